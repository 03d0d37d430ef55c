#!/bin/bash
# Probe: what `accelerated-seg check` says of each dataset of tests/broken_cases.py's corpus (docs/data.md's
# "Errors" table and "Trying the checks" against it).
# Run: cd <repo> && bash benchmarks/results/review_data_md_2026-12-06/corpus_check.sh \
#        > benchmarks/results/review_data_md_2026-12-06/corpus_check.txt 2>&1
set -u
corpus=$(mktemp -d)
PYTHONPATH=tests:. python -c "from broken_cases import write_corpus; write_corpus('$corpus')"
echo "datasets in the corpus: $(ls "$corpus" | wc -l)"
for d in "$corpus"/*; do
  f=$(ls "$d"/dataset.json "$d"/cases.csv 2>/dev/null | head -1)
  echo "### $(basename "$d")"
  PYTHONPATH=. python -m accelerated_seg check --max-voxels 1000 "${f:-$d}" 2>&1 | grep -v '^channels' \
    | sed "s#$corpus/[a-z_0-9]*/#…/#g"
done
rm -rf "$corpus"
