#!/bin/bash
# Run: bash storm.sh > storm.txt 2>&1   (from this folder; WT = the worktree)
WT=${WT:-/tmp/wt_r114}; PY=/work/main/.venv/bin/python; D=/tmp/r114/data
export PYTHONPATH=$WT:$WT/tests ACCELERATE_USE_CPU=true OMP_NUM_THREADS=1
[ -d $D ] || $PY make_data.py $D
for split in windows cases; do
  for i in 1 2 3; do
    rm -rf /tmp/r114/out_storm
    start=$(date +%s.%N)
    $PY -m accelerate.commands.launch --multi_gpu --num_processes 2 --num_machines 1 --mixed_precision no \
      --dynamo_backend no --main_process_port $((29700 + i)) storm_predict.py predict --model $D/model \
      $D/scans/small_0.nii.gz $D/scans/small_1.nii.gz $D/scans/medium_0.nii.gz $D/scans/big_0.nii.gz \
      --output /tmp/r114/out_storm --split $split > /tmp/r114/storm_out.txt 2> /tmp/r114/storm_err.txt
    rc=$?
    echo "split=$split try=$i status=$rc $(echo "$(date +%s.%N) - $start" | bc) s;" \
      "written: $(ls /tmp/r114/out_storm | tr '\n' ' ')"
    grep -E "storm:|Error|error|Interrupted|Traceback" /tmp/r114/storm_err.txt | head -8
  done
done
