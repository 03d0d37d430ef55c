#!/bin/bash
# Run from the repository root: bash benchmarks/results/phantoms_two_writers_2026-12-08/two_processes.sh
# Two processes call ensure_synthetic_dataset on one new folder at once, as the two processes of a launched
# docs/python_api.md first block do; five tries, each process's status.
PY=${PYTHON:-python}
for try in 1 2 3 4 5; do
  d=$(mktemp -d)
  code="from accelerated_seg.data.synthetic import ensure_synthetic_dataset as e; e('$d/demo', num_cases=6, num_validation=2)"
  $PY -c "$code" 2>"$d/a.err" & a=$!
  $PY -c "$code" 2>"$d/b.err" & b=$!
  wait $a; sa=$?; wait $b; sb=$?
  echo "try $try: statuses $sa $sb; $(ls $d/demo/imagesTr | wc -l) case files; $(cat $d/a.err $d/b.err | grep -o "[A-Za-z]*Error: .*" | head -1)"
  rm -rf "$d"
done
