#!/bin/bash
# synth and evaluate into a folder named in Latin-1, read through `| head -1` (the reader gone after its first line),
# and with stdout and stderr to one file (2>&1) under a strict stdout (PYTHONIOENCODING=utf-8:strict), the C locale
# (LC_ALL=C: Python's UTF-8 mode) and PYTHONIOENCODING=utf-8 (strict too); a command's status, what each stream
# showed of the byte (raw 0xe9, or the four characters \xe9), and the order of its lines. Command:
# cd /tmp/wt_r107 && PATH=/work/main/.venv/bin:$PATH PYTHONPATH=/tmp/wt_r107 \
#     bash benchmarks/results/r107_2026-12-07/pipes_and_locales.sh > benchmarks/results/r107_2026-12-07/<out>.txt 2>&1
set -u
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
folder=$(printf 'r\xe9sultats')
export OMP_NUM_THREADS=1
python -m accelerated_seg synth "$folder" --cases 2 --validation 0 > /dev/null 2>&1
cp -r "$folder/labelsTr" "$folder/pred"
show() { LC_ALL=C sed -e "s|$work|TMP|g" -e 's/\xe9/<raw e9>/g' | cut -c1-200; }
for env in PYTHONIOENCODING=utf-8:strict LC_ALL=C PYTHONIOENCODING=utf-8; do
  echo "== $env: synth | head -1"
  env "$env" python -m accelerated_seg synth "$folder" --cases 2 --validation 0 2> err.txt | head -1 | show
  echo "   status ${PIPESTATUS[0]}; stderr: $(show < err.txt)"
  echo "== $env: evaluate into $folder/eval, 2>&1 (the order of stdout's and stderr's lines)"
  env "$env" python -m accelerated_seg evaluate "$folder/pred" "$folder/labelsTr" --num-classes 3 \
      --output "$folder/eval" --tolerance -1 2>&1 | show
  env "$env" python -m accelerated_seg evaluate "$folder/pred" "$folder/labelsTr" --num-classes 3 \
      --output "$folder/eval" --overwrite 2>&1 | show
  echo "   status ${PIPESTATUS[0]}"
  rm -rf "$folder/eval"
done
