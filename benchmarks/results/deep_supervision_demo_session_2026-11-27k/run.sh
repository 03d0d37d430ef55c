#!/bin/bash
# The demo's phantoms and schedule with a DynUNet, without and with a deep supervision head.
cd /work/main
for ds in false true; do
  start=$SECONDS
  .venv/bin/accelerated-seg train --config configs/demo.yaml --model.name=dynunet \
    "--model.args={filters: [16, 32, 64, 128], deep_supervision: $ds}" \
    --train.output_dir=/tmp/dsdemo/ds_$ds --train.progress_bar=false --train.trackers=none > /tmp/dsdemo/ds_$ds.log 2>&1
  echo "ds=$ds rc=$? seconds=$((SECONDS - start))" >> /tmp/dsdemo/done.txt
done
