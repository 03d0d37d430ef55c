# source env.sh && bash $HERE/walk_10_first_block_launched.sh > $HERE/walk_10_first_block_launched.txt 2>&1
# The page's first block (block_1.py, as written) launched on 2 CPU processes, as the page says its runnable examples
# are ("All run ... under a 2-process launch"): what a researcher who launches the page's own block meets.
set -u
rm -rf $T/w10 && mkdir -p $T/w10 && cd $T/w10
(time ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num_processes 2 --num_machines 1 --mixed_precision no \
   --dynamo_backend no $HERE/block_1.py) 2>&1 | grep -v "it/s\]$\|it/s, loss"
echo "status ${PIPESTATUS[0]}"
find demo -maxdepth 2 -not -path "demo/data/*" | sort
