# source env.sh && bash $HERE/walk_10b_phantoms_first.sh > $HERE/walk_10b_phantoms_first.txt 2>&1
# Walk 10 again with the phantoms written first in one process (as examples/estimator.py writes them from the main
# process alone): the rest of the page's first block (fit, predict, evaluate, save, load) launched on 2 CPU processes.
set -u
rm -rf $T/w10b && mkdir -p $T/w10b && cd $T/w10b
python -c 'from accelerated_seg.data.synthetic import ensure_synthetic_dataset as e
e("demo/data", num_cases=6, num_validation=2)'
(time ACCELERATE_USE_CPU=true accelerate launch --multi_gpu --num_processes 2 --num_machines 1 --mixed_precision no \
   --dynamo_backend no $HERE/block_1.py) 2>&1 | grep -v "it/s\]$\|it/s, loss"
echo "status ${PIPESTATUS[0]}"
find demo -maxdepth 2 -not -path "demo/data/*" | sort
