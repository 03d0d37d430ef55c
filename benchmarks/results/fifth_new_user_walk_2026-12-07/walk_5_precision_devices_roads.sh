# bash walk_5_precision_devices_roads.sh > walk_5_precision_devices_roads.txt 2>&1   (inference.md "Precision",
# "Volumes larger than GPU memory", "The transforms on the GPU" (CPU claims) and "Many cases: the pipeline": fp16
# refused (with --device cpu before torch), bf16 against fp32, the emulated-bf16 warning with an AVX2 CPU's flags,
# devices refused, and each option that should change no byte on a CPU: --aggregate-on-cpu either way,
# --no-transforms-on-device, --sequential (with the progress lines' order); benchmark predict's refusals and a tiny run)
source "$(dirname "$0")/env.sh"
M=runs/fold0/best_model
echo "== --precision fp16 --device cpu, and without --device"
/usr/bin/time -f "  %e s" accelerated-seg predict --model $M scans/ --output p_x/ --precision fp16 --device cpu; echo "status $?"
/usr/bin/time -f "  %e s" accelerated-seg predict --model $M scans/ --output p_x/ --precision fp16; echo "status $?"
echo "== bf16 on this CPU ($(grep -o -m1 -E 'avx512_bf16|amx_bf16' /proc/cpuinfo | head -1))"
accelerated-seg predict --model $M scans/ --output p_bf16/ --probabilities 2>&1 | tail -1; echo "status $?"
accelerated-seg predict --model $M scans/ --output p_bf16/ --probabilities --precision bf16 2>&1; echo "status $?"
python - <<'PY'
from accelerated_seg.host_cpu import emulated_bf16_warning, COMMAND_LINE_FP32
print("AVX2 CPU, command line:", emulated_bf16_warning("cpu", "bf16", lines=["flags\t: fpu avx avx2"]))
print("AVX2 CPU, fp32_setting=\"precision='fp32'\":", emulated_bf16_warning("cpu", "bf16", lines=["flags\t: avx2"], fp32="precision='fp32'"))
PY
echo "== devices"
for d in meta cuda cuda:1 mps xla; do
  accelerated-seg predict --model $M scans/ --output p_x/ --device $d; echo "--device $d status $?"; done
ls -d p_x 2>&1
echo "== options that change no byte on a CPU"
accelerated-seg predict --model $M scans/ --output p_base/ --probabilities; echo "status $?"
for form in "--aggregate-on-cpu" "--no-aggregate-on-cpu" "--no-transforms-on-device" "--transforms-on-device" "--sequential"; do
  out=p_$(echo $form | tr -d ' -')
  accelerated-seg predict --model $M scans/ --output $out/ --probabilities $form > $out.log 2>&1; echo "$form status $?"
  cat $out.log
  python -c "
import glob, os, sys
same = all(open(f, 'rb').read() == open(f.replace('p_base', '$out'), 'rb').read() for f in glob.glob('p_base/*.nii.gz'))
print('  $form: every label map and probabilities byte for byte those of the default:', same, len(glob.glob('p_base/*.nii.gz')), 'files')"
done
echo "== benchmark predict: its refusals and a tiny run"
accelerated-seg benchmark predict --model $M --roi 16; echo "status $?"
accelerated-seg benchmark predict --model $M --channels 4 8; echo "status $?"
accelerated-seg benchmark predict --channels 4; echo "status $?"
accelerated-seg benchmark predict --channels 0 8; echo "status $?"
accelerated-seg benchmark predict --cases 2 --size 48 48 40 --spacing 0.8 0.8 2.5 --roi 16 --channels 4 8 --blocks 1 \
    --output bp.json 2>&1 | tail -4; echo "status ${PIPESTATUS[0]}"
python -c "import json; d = json.load(open('bp.json')); print(sorted(d)); print('in blocks', d.get('stage_ms_in_blocks')); print('slowdown', d.get('stage_slowdown_pipelined')); print(d.get('command'))"
