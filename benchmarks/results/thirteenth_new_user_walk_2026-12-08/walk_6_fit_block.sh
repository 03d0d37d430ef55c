# source env.sh && bash $HERE/walk_6_fit_block.sh > $HERE/walk_6_fit_block.txt 2>&1
# "## Your own model, loader, loss and optimizer: fit": the block as the page gives it (block_3.py), in an empty folder:
# as a script, again (the rerun refused), and launched on 2 CPU processes ("Launch it like any script"), as the
# project's design notes launch CPU processes (ACCELERATE_USE_CPU=true accelerate launch --multi_gpu).
set -u
mkdir -p $T/w6/plain $T/w6/launched && cd $T/w6/plain
echo "=== python block_3.py"; (time python $HERE/block_3.py) 2>&1 | tail -8; echo "status ${PIPESTATUS[0]}"
find runs -maxdepth 4 | sort
echo "=== again, into the same runs/mine"; python $HERE/block_3.py 2>&1 | tail -3
cd $T/w6/launched
echo "=== launched, 2 CPU processes"
(time ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num_processes 2 --num_machines 1 --mixed_precision no \
   --dynamo_backend no $HERE/block_3.py) 2>&1 | grep -v "^\s*$" | tail -12
find runs -maxdepth 4 | sort
