"""python load_plain.py EXPORT_FOLDER...: each export into a plain MONAI network, strictly, as the README's block
loads one (monai_class and args from config.json, shared tensors given their second names); prints the class, the
tensors and the checksum of the weights, so two exports of one step can be compared."""
import json
import sys

import monai.networks.nets
import torch
from safetensors.torch import load_file

for folder in sys.argv[1:]:
    with open(f"{folder}/config.json") as file:
        config = json.load(file)
    net = getattr(monai.networks.nets, config["model"]["monai_class"])(**config["model"]["args"])
    state = load_file(f"{folder}/model.safetensors")
    state.update({second: state[first] for second, first in config.get("shared_tensors", {}).items()})
    print(folder, net.load_state_dict(state), config["model"]["monai_class"], len(state), "tensors,",
          {str(t.dtype) for t in state.values()}, "sum", float(sum(t.double().sum() for t in state.values())))
    net.eval()
    with torch.no_grad():
        print("  forward on 1x1x16^3:", tuple(net(torch.zeros(1, config.get("in_channels", 1), 16, 16, 16)).shape))
