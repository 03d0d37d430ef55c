# bash walk_1_evaluate.sh > walk_1_evaluate.txt 2>&1
# docs/inference.md "## Evaluate" to the end: every evaluate command and refusal the page quotes, on make_data.py's
# maps. Each command echoed, its output, its status and its wall time.
source /tmp/wt_h138/benchmarks/results/sixth_new_user_walk_2026-12-07/env.sh
rm -rf data && mkdir data && cd data && python $HERE/make_data.py
ev() { echo; echo "\$ accelerated-seg evaluate $*"; local t0=$(date +%s.%N)
       accelerated-seg evaluate "$@"; local rc=$?
       echo "status $rc ($(python3 -c "print(f'{$(date +%s.%N) - $t0:.1f}')") s)"; }
echo "=== the synopsis, the main set: --labels dataset.json, --tolerance 1 2 ==="
ev eval/predictions eval/labelsTs --labels eval/dataset.json --tolerance 1 2
head -5 eval/predictions/evaluation/metrics.csv
echo "=== --tolerance before PRED and LABELS; after -- ==="
ev --tolerance 1 eval/predictions eval/labelsTs
ev --labels eval/dataset.json --output eval/out_dashdash --tolerance 1 2 -- eval/predictions eval/labelsTs
echo "=== the same evaluation again; another; --overwrite ==="
ev eval/predictions eval/labelsTs --labels eval/dataset.json --tolerance 1 2
ev eval/predictions eval/labelsTs --labels eval/dataset.json --tolerance 2
ev eval/predictions eval/labelsTs --labels eval/dataset.json --tolerance 2 --overwrite
echo "=== pairs ==="
ev eval/predictions/case_a.nii.gz eval/labelsTs
ev eval/predictions eval/labelsTs/case_a.nii.gz
ev eval/labelsTs eval/labelsTs
ev twice/pred twice/labels
for tool in plain nnunet_v2 nnunet_v1 monai renamed; do ev missing_$tool/pred missing_$tool/labels; done
ev eval/predictions nested
echo "=== grids ==="
ev grid/pred grid/labels
ev lps/pred lps/labels --output lps/out
python -c "import json; print(json.load(open('lps/out/summary.json'))['reoriented_predictions'])"
ev units_um/pred units_um/labels
ev units_m/pred units_m/labels
ev units_two/pred units_two/labels
ev units_both_um/pred units_both_um/labels --tolerance 1000
python -c "import json; s = json.load(open('units_both_um/pred/evaluation/summary.json')); print(s['per_class']['1']['hd95_mm'], s['tolerance_mm'])"
ev sheared/pred sheared/labels
echo "=== maps ==="
for m in two_d volumes channels_first nan image naninf scaled; do ev maps_$m/pred maps_$m/labels; done
echo "=== classes ==="
ev neg/pred neg/labels
ev eval/predictions eval/labelsTs --labels both_decl --output eval/o1
ev eval/predictions eval/labelsTs --labels cases.csv --output eval/o2
ev Dataset041_Tiny/predictions Dataset041_Tiny/labelsTs
ev Dataset042_Tiny/predictions Dataset042_Tiny/labelsTs
echo "=== one foreground ==="
ev masks/pred masks/labels
ev masks/pred masks/labels --merge-foreground
ev masks/pred masks/labels --merge-foreground --num-classes 3
ev masks/pred masks/labels --merge-foreground --labels eval/dataset.json
ev masks/pred masks/labels --merge-foreground --labels eval/regions/dataset.json
ev masks/pred masks/labels --num-classes 2
ev masks/pred masks/labels --num-classes 256 --output masks/o256
echo "=== annotated in part ==="
ev ignore/pred ignore/labels --labels eval/dataset_ignore.json
python -c "import json; s = json.load(open('ignore/pred/evaluation/summary.json')); print({k: s[k] for k in ('ignore_value', 'cases_annotated_in_part')})"
grep case_a ignore/pred/evaluation/metrics.csv
ev ignore_pred/pred ignore_pred/labels --labels eval/dataset_ignore.json
ev sparse255/pred sparse255/labels --num-classes 3
echo "=== metrics: tolerance ==="
ev eval/predictions eval/labelsTs --tolerance -1
ev eval/predictions eval/labelsTs --tolerance nan
echo "=== outputs ==="
touch afile
ev eval/predictions eval/labelsTs --output afile
ev eval/predictions eval/labelsTs --output afile/below
mkdir -p o_dir/metrics.csv; ev eval/predictions eval/labelsTs --output o_dir
ln -sfn /nonexistent/place dangling; ev eval/predictions eval/labelsTs --output dangling
ev eval/predictions eval/labelsTs --output "$(printf 'x%.0s' $(seq 300))"
ev eval/predictions eval/labelsTs --output eval/labelsTs
ev eval/predictions eval/labelsTs --output eval/labelsTs/sub
mkdir -p runlike && echo '{}' > runlike/run_info.json; ev eval/predictions eval/labelsTs --output runlike
mkdir -p other && echo 'a,b' > other/metrics.csv; ev eval/predictions eval/labelsTs --output other
echo "=== a name in Latin-1 ==="
ev latin/pred latin/labels
grep -a "^c" latin/pred/evaluation/metrics.csv | head -2
grep -o '"c[^"]*"' latin/pred/evaluation/summary.json | head -3
