#!/bin/bash
# Run: bash storm_ctrl_c.sh > storm_ctrl_c.txt 2>&1   (from this folder; WT = the worktree; data from make_data.py)
# The test_ctrl_c_by_windows scenario (both cases: as it comes, and process 1's main thread blocking SIGINT), a
# SIGINT to the launch's process group 0.2 s after process 1 sleeps, each process's main thread under a wake storm.
WT=${WT:-/tmp/wt_r114}; PY=/work/main/.venv/bin/python; D=/tmp/r114/data
export PYTHONPATH=$WT:$WT/tests:$PWD ACCELERATE_USE_CPU=true OMP_NUM_THREADS=1
export ONE_RANK_ERROR=slow ONE_RANK_STAGE=case_prediction
for elsewhere in "" 1; do
  for i in 1 2 3; do
    rm -rf /tmp/r114/out_c /tmp/r114/sleeping
    export ONE_RANK_STARTED=/tmp/r114/sleeping ONE_RANK_SIGINT_ELSEWHERE=$elsewhere
    setsid $PY -m accelerate.commands.launch --multi_gpu --num_processes 2 --num_machines 1 --mixed_precision no \
      --dynamo_backend no --main_process_port $((29710 + i)) storm_ctrl_c_predict.py predict --model $D/model \
      $D/scans/small_0.nii.gz $D/scans/small_1.nii.gz --output /tmp/r114/out_c --split windows \
      > /tmp/r114/c_out.txt 2> /tmp/r114/c_err.txt &
    launch=$!
    while [ ! -f /tmp/r114/sleeping ]; do sleep 0.05; done
    sleep 0.2; sent=$(date +%s.%N); kill -INT -- -$launch; wait $launch; rc=$?
    echo "elsewhere=${elsewhere:-no} try=$i status=$rc" \
      "ended $(echo "$(date +%s.%N) - $sent" | bc) s after the SIGINT;" \
      "written: $(ls /tmp/r114/out_c | tr '\n' ' ')"
    grep -E "^storm:|^predict|^error|Interrupted|Traceback|forcefully" /tmp/r114/c_err.txt | head -8
  done
done
