# bash walk_1_demo.sh > walk_1_demo.txt 2>&1
# README "Quick start" after its install: the demo's launch as written, what the run wrote, then the second launch.
source "$(dirname "$0")/env.sh"
python -c "import accelerated_seg; print(accelerated_seg.__file__)"
nproc; uptime
/usr/bin/time -f "wall %e s, max rss %M KB" accelerate launch --config_file configs/accelerate/cpu.yaml examples/train.py --config configs/demo.yaml 2>&1 | tr '\r' '\n' | grep -v -E "^ *[0-9]+%|it/s]|s/it]" ; echo "status ${PIPESTATUS[0]}"
uptime
find output/demo -maxdepth 2 | sort
cat output/demo/summary.json; echo
python - <<'PY'
import json
m = json.load(open("output/demo/metrics.json"))
print("metrics.json keys:", list(m))
PY
echo "=== second launch (README: stops at once with an error)"
/usr/bin/time -f "wall %e s" accelerate launch --config_file configs/accelerate/cpu.yaml examples/train.py --config configs/demo.yaml 2>&1 | tail -30; echo "status ${PIPESTATUS[0]}"
