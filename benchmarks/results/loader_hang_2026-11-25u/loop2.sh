cd /work/main
for i in $(seq 100 160); do
  port=$((20000 + RANDOM % 20000))
  start=$(date +%s)
  ACCELERATE_USE_CPU=true OMP_NUM_THREADS=1 PYTHONPATH=/work/main setsid .venv/bin/python -m accelerate.commands.launch --multi_gpu --num_processes 2 --num_machines 1 --mixed_precision no --dynamo_backend no --main_process_port $port -m accelerated_seg.cli benchmark train --model unet --model-args '{"channels": [4, 8], "strides": [2], "num_res_units": 0}' --patch 16 --batch 2 --steps 2 --blocks 2 --data real --num-workers 1 --lever none ddp_static_graph --ddp-bucket-mb 1 --output /tmp/hang/out_$i.json > /tmp/hang/run_$i.log 2>&1 &
  pid=$!
  hung=0
  while kill -0 $pid 2>/dev/null; do
    sleep 2
    if [ $(( $(date +%s) - start )) -gt 50 ]; then
      hung=1
      echo "run $i HUNG"
      { ps -eo pid,ppid,stat,wchan:32,etime,cmd --forest | grep -v grep | grep "accelerate\|accelerated_seg" | cut -c1-150
        for p in $(pgrep -f "accelerated_seg.cli benchmark train"); do echo "=== pid $p"; grep -E "State|Threads" /proc/$p/status; cat /proc/$p/wchan; echo; for t in /proc/$p/task/*; do echo "  task $(basename $t) $(cat $t/comm) $(cat $t/wchan) $(awk '{print $3}' $t/stat)"; done; .venv/bin/py-spy dump --pid $p 2>&1 | head -60; done; } > /tmp/hang/dump_$i.txt 2>&1
      break
    fi
  done
  if [ $hung = 1 ]; then break; fi
  wait $pid; echo "run $i rc=$? $(( $(date +%s) - start )) s"
done
