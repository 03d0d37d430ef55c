#!/bin/bash
# One node's part of examples/slurm/train.sbatch, which starts it once per node with srun:
# `accelerate launch` for this node's GPUs, and a SIGUSR1 passed on to the training processes.
#
# Set by train.sbatch (and by tests/test_preemption.py, which runs this on the CPU): EXPERIMENT, OUT,
# RESUME ("", "--resume latest" or "--train.overwrite=true"), GPUS_PER_NODE, MAIN_IP, MAIN_PORT;
# SLURM_NNODES and SLURM_NODEID come from srun. Arguments are passed to examples/train.py as
# overrides (--optim.lr=3e-4 ...).
#
# Who gets the signal depends on the cluster: srun may forward it to this shell only, or SLURM may
# send it to every process of the step. Either way the ranks must get it and the launcher must live:
# torchrun (inside accelerate launch) does not handle SIGUSR1, so it would die of it and take the
# ranks down before they save. So the launcher starts with SIGUSR1 ignored (inherited; the ranks
# install their own handler when training starts), and this shell passes the signal to the ranks,
# the launcher's children. A rank still starting (importing, reading its config) ignores it as the
# launcher does, so once asked to stop this shell passes the signal on every few seconds until the
# launcher exits: one sent before the ranks listened was lost, and the time limit then killed the
# job unsaved (sixty-ninth session). A rank signalled twice stops once.
#
# RENDEZVOUS_TIMEOUT (seconds, default torch's 900): how long the nodes wait for each other to join
# before each fails with "DistStoreError: ... 1/2 clients joined". A node that never starts held the
# others' GPUs idle for those 15 minutes; accelerate's config files cannot set it, its --rdzv_conf can.
set -uo pipefail
trap '' USR1
accelerate launch --config_file configs/accelerate/multi_node.yaml \
  --num_machines "$SLURM_NNODES" --num_processes $((SLURM_NNODES * GPUS_PER_NODE)) \
  --machine_rank "$SLURM_NODEID" --main_process_ip "$MAIN_IP" --main_process_port "${MAIN_PORT:-29500}" \
  --rdzv_conf "timeout=${RENDEZVOUS_TIMEOUT:-900}" \
  examples/train.py --config "$EXPERIMENT" --train.output_dir="$OUT" ${RESUME:-} "$@" &
LAUNCHER=$!
STOPPING=""
trap 'echo "node $SLURM_NODEID: SIGUSR1, stopping the ranks after this step"; STOPPING=1
      pkill -USR1 -P "$LAUNCHER"' USR1
# A trapped signal interrupts `wait`; wait again until the launcher has really exited.
while :; do
  if [ -n "$STOPPING" ]; then
    sleep 3 & wait $!
    if kill -0 "$LAUNCHER" 2>/dev/null; then pkill -USR1 -P "$LAUNCHER"; continue; fi
  fi
  wait "$LAUNCHER"; status=$?
  kill -0 "$LAUNCHER" 2>/dev/null || exit "$status"
done
