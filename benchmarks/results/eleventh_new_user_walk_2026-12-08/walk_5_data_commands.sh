# bash walk_5_data_commands.sh > walk_5_data_commands.txt 2>&1   (after walk_1_overrides.sh)
# docs/configuration.md, "The data commands: synth, check and cache": synth's rewrite and refusals, its stop by SIGTERM,
# check --config's lines, cache --config's listing and --prune.
source "$(dirname "$0")/env.sh"
X=$T/my_experiment.yaml
t() { local s=$(date +%s.%N); "$@"; local rc=$?; echo "status $rc, $(echo "$(date +%s.%N) - $s" | bc | cut -c1-4) s"; }
P=$T/phantoms
echo "== synth 4 cases, a scan of mine copied in, synth 2 cases"
accelerated-seg synth $P --cases 4 --validation 1; echo "status $?"
cp $T/mydata/scans/imagesTr/case_003.nii.gz $P/imagesTr/my_scan.nii.gz
accelerated-seg synth $P --cases 2 --validation 1; echo "status $?"
ls $P/imagesTr $P/labelsTr
echo "== a folder with NIfTI and no dataset.json"; mkdir -p $T/theirs/imagesTr; cp $P/imagesTr/my_scan.nii.gz $T/theirs/imagesTr/
t accelerated-seg synth $T/theirs
echo "== another dataset's dataset.json"; echo '{"name": "Liver", "training": []}' > $T/theirs/dataset.json; t accelerated-seg synth $T/theirs
echo "== a dataset.json that is no JSON"; echo 'not json' > $T/theirs/dataset.json; t accelerated-seg synth $T/theirs
echo "== dataset.json a folder"; mkdir -p $T/odd1/dataset.json; t accelerated-seg synth $T/odd1
echo "== imagesTr a file"; mkdir -p $T/odd2; : > $T/odd2/imagesTr; t accelerated-seg synth $T/odd2
echo "== SIGTERM to synth of 24 cases after 4 s"
accelerated-seg synth $T/big & pid=$!; sleep 4; kill -TERM $pid; wait $pid; echo "status $?"
ls $T/big; ls $T/big/imagesTr | wc -l
echo "== the same command finishes it"; t accelerated-seg synth $T/big --cases 6 --validation 2; ls $T/big
# check --config: what training would read
echo "== check --config my experiment"; t accelerated-seg check --config $X
echo "== check of the CSV alone; with --labels"; t accelerated-seg check $T/mydata/cases.csv | tail -3
t accelerated-seg check $T/mydata/cases.csv --labels '{0: background, 1: ventricles, 2: lesion}' | tail -3
echo "== check --config demo (synthetic)"; t accelerated-seg check --config configs/demo.yaml | tail -4
printf 'data:\n  dataset: synthetic\n  labels: {0: background, 1: a, 2: b}\n' > $T/synth_labels.yaml
echo "== synthetic with data.labels"; t accelerated-seg check --config $T/synth_labels.yaml
echo "== a missing dataset; --max-voxels 0"; t accelerated-seg check $T/nowhere.csv; t accelerated-seg check --config $X --max-voxels 0
echo "== check of a phantom folder (dataset.json)"; t accelerated-seg check $P/dataset.json | tail -3
# cache
echo "== cache --config"; t accelerated-seg cache --config $X
echo "== cache"; t accelerated-seg cache
echo "== cache --prune"; t accelerated-seg cache --prune
