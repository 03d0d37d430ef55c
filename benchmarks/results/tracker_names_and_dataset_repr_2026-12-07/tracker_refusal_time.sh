#!/bin/bash
# Command: cd <worktree> && bash benchmarks/results/tracker_names_and_dataset_repr_2026-12-07/tracker_refusal_time.sh > \
#   benchmarks/results/tracker_names_and_dataset_repr_2026-12-07/tracker_refusal_time_<before|after>.txt 2>&1
# Wall seconds of a misspelt tracker's refusal (--train.trackers=tensorbord), by examples/train.py and by
# accelerated-seg train, into a new folder and into a folder an earlier run used; beside them a misspelt
# setting's (--optim.lrr=1), refused before the imports. 2 shared cores: each timed 3 times. The last line said.
cd "$(git rev-parse --show-toplevel)"
PY=/work/main/.venv/bin/python
export PYTHONPATH=$PWD
work=$(mktemp -d)
used=$work/used; mkdir -p $used
# a finished run's folder, as run_folder.earlier_run reads one (its run_info.json and summary.json)
echo '{}' > $used/run_info.json; echo '{}' > $used/summary.json
launch() {  # $1: what; the rest: its arguments
  if [ "$1" = examples/train.py ]; then $PY examples/train.py "${@:2}"
  else /work/main/.venv/bin/accelerated-seg train "${@:2}"; fi
}
for what in "examples/train.py" "accelerated-seg train"; do
  for setting in --train.trackers=tensorbord --optim.lrr=1; do
    for folder in $work/new $used; do
      for i in 1 2 3; do
        start=$(date +%s.%N)
        said=$(launch "$what" $setting --train.output_dir=$folder 2>&1 | grep -v '^\s*$' | tail -1)
        end=$(date +%s.%N)
        printf '%-22s %-28s %-4s %5.2f s  %s\n' "$what" "$setting" "$(basename $folder)" \
          "$(echo "$end - $start" | bc)" "${said:0:200}"
      done
    done
  done
done
rm -rf $work
