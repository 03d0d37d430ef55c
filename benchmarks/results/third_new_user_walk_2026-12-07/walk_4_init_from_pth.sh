# bash walk_4_init_from_pth.sh > walk_4_init_from_pth.txt 2>&1   (from_monai.md "Not offered": the tutorial's
# best_metric_model.pth, a torch.save of the UNet's state_dict, loads with train.init_from and its note says
# it records no preprocessing)
source "$(dirname "$0")/env.sh"
python - <<'PY'
import torch
from monai.networks.layers import Norm
from monai.networks.nets import UNet
net = UNet(spatial_dims=3, in_channels=1, out_channels=2, channels=(16, 32, 64, 128, 256), strides=(2, 2, 2, 2),
           num_res_units=2, norm=Norm.BATCH)
torch.save(net.state_dict(), "best_metric_model.pth")
PY
accelerated-seg train --config spleen_tutorial.yaml --train.init_from=best_metric_model.pth \
  --train.output_dir=output/spleen_ft --train.max_steps=2 2>&1 | grep -v "it/s"; echo "status $?"
