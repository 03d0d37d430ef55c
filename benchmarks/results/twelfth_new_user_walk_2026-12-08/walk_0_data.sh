# bash walk_0_data.sh > walk_0_data.txt 2>&1
# The tiny phantom dataset every run of the walk trains on (tests/conftest.py's tiny_dataset: 9 cases, 3 of them
# validation, 40 x 40 x 32 mm at 2 mm), written once into $T/data.
source /tmp/wt_h152/benchmarks/results/twelfth_new_user_walk_2026-12-08/env.sh
set -x
python -c "
from accelerated_seg.data.synthetic import write_synthetic_dataset
print(write_synthetic_dataset('$T/data', num_cases=9, num_validation=3, seed=0, size_mm=(40.0, 40.0, 32.0),
                              spacing_mm=2.0))"
ls $T/data
