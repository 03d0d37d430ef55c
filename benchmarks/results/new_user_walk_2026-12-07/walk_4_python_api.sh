# bash walk_4_python_api.sh > walk_4_python_api.txt 2>&1
# docs/python_api.md's two ```python blocks, extracted from the page as written (snippet_1.py, snippet_2.py), each run
# in an empty folder with a fresh cache; the lines the page promises printed are added at the end, marked "# walk:".
source "$(dirname "$0")/env.sh"
HERE=/tmp/wt_h130/benchmarks/results/new_user_walk_2026-12-07
python - "$HERE" <<'PY'
import re, sys
text = open("/tmp/wt_h130/docs/python_api.md").read()
blocks = re.findall(r"```python\n(.*?)```", text, re.S)
print(len(blocks), "python blocks")
extra1 = ("    print(data)  # walk: the page's <Dataset: 4 training and 2 validation cases, ...>\n"
          "    print(model)  # walk: the page's <Segmentation 'unet': trained 4 steps in .../demo/run, ...>\n"
          "    print(type(label_image).__name__, label_image.shape)  # walk\n"
          "    print({k: summary[k] for k in list(summary)[:6]})  # walk\n"
          "    print(again)  # walk\n")
open(f"{sys.argv[1]}/snippet_1.py", "w").write(blocks[0] + extra1)
open(f"{sys.argv[1]}/snippet_2.py", "w").write(blocks[1])
PY
for n in 1 2; do
  rm -rf $WALK/py$n && mkdir -p $WALK/py$n && cd $WALK/py$n && cp $HERE/snippet_$n.py .
  echo "=== snippet_$n.py in $PWD"; uptime
  /usr/bin/time -f "wall %e s, max rss %M KB" python snippet_$n.py 2>&1 | tr '\r' '\n' | grep -v -E "^ *[0-9]+%|it/s]|s/it]"
  echo "status ${PIPESTATUS[0]}"; find . -maxdepth 3 | sort | head -60
done
