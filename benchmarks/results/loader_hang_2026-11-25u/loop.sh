cd /work/main
for i in $(seq 1 40); do
  port=$((20000 + RANDOM % 20000))
  start=$(date +%s)
  ACCELERATE_USE_CPU=true OMP_NUM_THREADS=1 PYTHONPATH=/work/main setsid .venv/bin/python -m accelerate.commands.launch --multi_gpu --num_processes 2 --num_machines 1 --mixed_precision no --dynamo_backend no --main_process_port $port -m accelerated_seg.cli benchmark train --model unet --model-args '{"channels": [4, 8], "strides": [2], "num_res_units": 0}' --patch 16 --batch 2 --steps 2 --blocks 2 --data real --num-workers 1 --lever none ddp_static_graph --ddp-bucket-mb 1 --output /tmp/hang/out_$i.json > /tmp/hang/run_$i.log 2>&1 &
  pid=$!
  while kill -0 $pid 2>/dev/null; do
    sleep 2
    if [ $(( $(date +%s) - start )) -gt 120 ]; then
      echo "run $i HUNG"; 
      for p in $(pgrep -f "accelerated_seg.cli benchmark train"); do echo "=== pid $p"; cat /proc/$p/cmdline | tr '\0' ' '; echo; .venv/bin/py-spy dump --pid $p --native 2>&1 | head -80; done > /tmp/hang/dump_$i.txt
      pkill -9 -f "accelerated_seg.cli benchmark train"; break
    fi
  done
  wait $pid; echo "run $i rc=$? $(( $(date +%s) - start )) s"
done
