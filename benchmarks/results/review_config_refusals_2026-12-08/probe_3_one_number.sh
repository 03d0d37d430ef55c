# bash probe_3_one_number.sh > probe_3_one_number.txt 2>&1   (after `source env.sh`)
# One value for a setting of three (data.patch_size, data.spacing; data.ct_window is of two) as an override, in the
# YAML file and through the estimator: the list offered must be the value given, on every axis, and one the setting
# takes.
cd $T
t() { echo "== $*"; set -o pipefail; "$@" 2>&1 | grep -v Warning | tail -1; echo "status $?"; }
for o in data.patch_size=16 data.patch_size=16.0 data.patch_size=16.5 data.patch_size=0 data.patch_size=-4 \
         data.patch_size=[16,16] data.patch_size=x16 data.patch_size=true data.patch_size=1234567 \
         data.spacing=1.5 data.spacing=0.7421875 data.spacing=0.68359375 data.spacing=1e-3 data.spacing=.inf \
         data.ct_window=5; do
  t accelerated-seg train --config $T/exp.yaml --$o
done
sed "s#^  spacing: .*#  spacing: 0.7421875#" $T/exp.yaml > $T/one.yaml
t accelerated-seg train --config $T/one.yaml
t python - <<'PY'
from accelerated_seg.estimator import Dataset
import csv, os, numpy as np
rows = list(csv.reader(open(os.environ["T"] + "/mydata/cases.csv")))[1:]
for kw in ({"spacing": 0.7421875}, {"spacing": np.float32(0.7421875)}, {"spacing": np.float64(1.5)}):
    try:
        Dataset.from_files([tuple(r) for r in rows], block_shape=16, n_classes=3, **kw)
    except Exception as e:
        print(type(e).__name__, e)
PY
