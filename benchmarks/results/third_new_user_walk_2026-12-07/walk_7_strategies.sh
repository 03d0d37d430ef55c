# bash walk_7_strategies.sh > walk_7_strategies.txt 2>&1   (strategies.md's CPU-runnable parts, in the walk's clone:
# the gloo DDP launch, scaled to 4 steps and 16^3 patches of the walk's spleen data; plan --accelerate-config on the
# shipped profiles and on the hand edits "Hand-edited launch files" lists, each against the page's wording)
source "$(dirname "$0")/env.sh"
small="--config spleen_tutorial.yaml --train.max_steps=4 --train.batch_size=2 --model.args={channels:[16,32,64],strides:[2,2]}"
echo "== DDP without GPUs"
ACCELERATE_USE_CPU=true accelerate launch --config_file configs/accelerate/ddp.yaml --mixed_precision no \
  examples/train.py $small --train.output_dir=output/ddp 2>&1 | grep -v "it/s" | grep -v "HU: " ; echo "status $?"
python -c "import json; print('run_info strategy:', json.load(open('output/ddp/run_info.json')).get('strategy'))"
echo "== FSDP without GPUs (no fallback)"
ACCELERATE_USE_CPU=true accelerate launch --config_file configs/accelerate/fsdp.yaml --num_processes 1 \
  examples/train.py $small --train.output_dir=output/fsdp 2>&1 | grep -v "it/s" | tail -3; ls output/fsdp 2>&1
for p in cpu ddp fsdp fsdp_full_shard deepspeed_zero3_offload; do
  echo "== plan --accelerate-config $p"; accelerated-seg plan --config configs/demo.yaml \
    --accelerate-config configs/accelerate/$p.yaml 2>&1 | head -3; done
mkdir -p edits && cd edits
python - <<'PY'
base = open("../configs/accelerate/ddp.yaml").read()
open("utf16.yaml", "w", encoding="utf-16").write(base)
open("latin1.yaml", "wb").write(("# r\u00e9glage\n" + base).encode("latin-1"))
open("tab.yaml", "w").write(base.replace("num_machines: 1", "num_machines:\t1\n\tx: 1"))
open("twice.yaml", "w").write(base + "mixed_precision: 'no'\n")
open("dynamo_out.yaml", "w").write(base + "dynamo_config:\n  dynamo_backend: INDUCTOR\ndynamo_mode: max-autotune\n")
open("cut.yaml", "w").write(base[:base.rindex("mixed_precision")])
open("unknown.yaml", "w").write(base + "gradient_accumulation_steps: 2\n")
open("noquote.yaml", "w").write(base.replace("mixed_precision: bf16", "mixed_precision: no"))
import json
ds = '{"zero_optimization": {"stage": 3,}, "train_micro_batch_size_per_gpu": 1}'
open("comma.json", "w").write(ds)
open("bom.json", "w", encoding="utf-8-sig").write('{"zero_optimization": {"stage": 2}}')
open("twice.json", "w").write('{"zero_optimization": {\n"stage": 2,\n"stage": 3}}')
for name in ["comma", "bom", "twice"]:
    open(f"ds_{name}.yaml", "w").write(f"distributed_type: DEEPSPEED\nnum_processes: 1\ndeepspeed_config:\n"
                                       f"  deepspeed_config_file: {name}.json\n  zero3_init_flag: false\n")
PY
for f in utf16 latin1 tab twice dynamo_out cut unknown noquote ds_comma ds_bom ds_twice; do
  echo "== plan --accelerate-config edits/$f.yaml"
  accelerated-seg plan --config ../configs/demo.yaml --accelerate-config $f.yaml 2>&1 | head -2; echo "status ${PIPESTATUS[0]}"
done
