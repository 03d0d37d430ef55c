#!/bin/bash
# usage: run.sh PROFILE OUTDIR [overrides...]
# PROFILE: cpu | ddp | zero1 | zero2 | zero3 | zero3_offload | fsdp2 | fsdp2_blocks
set -u
P=$1; OUT=$2; shift 2
V=/work/main/.venv/bin
PORT=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
cd /tmp/probe_strat
COMMON="--num_processes 2 --num_machines 1 --mixed_precision ${MP:-no} --dynamo_backend no --main_process_port $PORT"
T=/work/main/examples/train.py
start=$(date +%s.%N)
case $P in
  cpu) ACCELERATE_USE_CPU=true OMP_NUM_THREADS=2 timeout 400 $V/accelerate launch --config_file /work/main/configs/accelerate/cpu.yaml $T --config base.yaml --no-report --train.output_dir=$OUT "$@" ;;
  ddp) ACCELERATE_USE_CPU=true OMP_NUM_THREADS=1 timeout 400 $V/accelerate launch --multi_gpu $COMMON $T --config base.yaml --no-report --train.output_dir=$OUT "$@" ;;
  zero*) OMP_NUM_THREADS=1 timeout 400 $V/accelerate launch --config_file /work/main/configs/accelerate/deepspeed_${P}.yaml $COMMON $T --config base.yaml --no-report --train.output_dir=$OUT "$@" ;;
  fsdp*) ACCELERATE_USE_CPU=true OMP_NUM_THREADS=1 timeout 400 $V/accelerate launch --config_file /work/main/configs/accelerate/${P}.yaml $COMMON /work/main/benchmarks/fsdp_on_cpu.py --config base.yaml --no-report --train.output_dir=$OUT "$@" ;;
esac
rc=$?
end=$(date +%s.%N)
echo "RUN $P $OUT rc=$rc wall=$(python3 -c "print(round($end-$start,1))")s" | tee -a /tmp/probe_strat/walltimes.txt
exit $rc
