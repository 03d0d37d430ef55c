# bash walk_10_speed.sh > walk_10_speed.txt 2>&1   (inference.md "Speed", its CPU-checkable claims: the refusals before
# any work; a small run's JSON (its fields, its name without --output, the bf16 name); the page's command as written)
source "$(dirname "$0")/env.sh"
for a in "--precision fp16" "--device cuda" "--roi 20" "--device cpu cpu"; do
  /usr/bin/time -f "  %e s" accelerated-seg benchmark infer --size 32 32 32 --roi 16 --blocks 1 $a; echo "[$a] status $?"; done
rm -rf benchmarks
accelerated-seg benchmark infer --size 32 32 32 --roi 16 --blocks 2 2>&1 | tail -3; echo "status ${PIPESTATUS[0]}"
accelerated-seg benchmark infer --size 32 32 32 --roi 16 --blocks 2 --precision bf16 2>&1 | tail -3; echo "status ${PIPESTATUS[0]}"
ls benchmarks/results
python -c "
import json; d = json.load(open('benchmarks/results/infer_2cpu.json')); c = d['devices']['cpu']
print(sorted(d)); print(sorted(c)); print('host_handover_ms', c.get('host_handover_ms'))"
echo "== the page's command, as written"
/usr/bin/time -f "  %e s" accelerated-seg benchmark infer --size 128 128 96 --roi 64 --overlap 0.5 --sw-batch-size 4 \
    --tta none --blocks 9 --output page_infer.json 2>&1 | tail -4
python -c "
import json; c = json.load(open('page_infer.json'))['devices']['cpu']
print({k: v for k, v in c.items() if k.startswith('ratio')}, c['ours']['volumes_per_s'], c['monai_sliding_window_inference']['volumes_per_s'])"
