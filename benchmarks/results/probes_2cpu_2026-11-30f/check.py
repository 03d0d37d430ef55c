"""check.py RUN [--ref OTHER_MODEL_DIR ...] [--ckpt-export CKPT]
- strict-load RUN/model into plain MONAI (README recipe), compare predict_file probabilities with
  plain net through the same prepared case
- compare RUN/model weights with each --ref model dir (max abs diff)
- export CKPT with accelerated-seg export and compare with RUN/model"""
import json, sys, subprocess, tempfile, os
from pathlib import Path
import torch, numpy as np, nibabel as nib
import monai.networks.nets
from safetensors.torch import load_model, load_file

def maxdiff(a_dir, b_dir):
    a, b = load_file(Path(a_dir) / "model.safetensors"), load_file(Path(b_dir) / "model.safetensors")
    if a.keys() != b.keys():
        return f"KEYS DIFFER: only a {sorted(set(a)-set(b))[:5]} only b {sorted(set(b)-set(a))[:5]}"
    d = max((a[k].float() - b[k].float()).abs().max().item() for k in a)
    dt = {str(v.dtype) for v in a.values()} | {str(v.dtype) for v in b.values()}
    return f"max|diff|={d:.3g} dtypes={sorted(dt)}"

args = sys.argv[1:]
run = Path(args[0]); model_dir = run / "model"
refs = [args[i+1] for i, a in enumerate(args) if a == "--ref"]
ckpts = [args[i+1] for i, a in enumerate(args) if a == "--ckpt-export"]
out = {}
config = json.load(open(model_dir / "config.json"))
net = getattr(monai.networks.nets, config["model"]["monai_class"])(**config["model"]["args"])
try:
    missing, unexpected = load_model(net, str(model_dir / "model.safetensors"))
    out["strict_load"] = f"ok missing={list(missing)[:3]} unexpected={list(unexpected)[:3]}"
except Exception as e:
    out["strict_load"] = f"FAIL {type(e).__name__}: {str(e)[:300]}"
net.eval()
# predict via framework on a validation case, and via plain net through the same preprocessing
from accelerated_seg.inference import predict_file, prepare_case, case_probabilities, PredictOptions
case = "/tmp/probe_strat/data/imagesTr/case_005.nii.gz"
with tempfile.TemporaryDirectory() as t:
    predict_file(str(model_dir), case, f"{t}/seg.nii.gz", device="cpu", sw_batch_size=1,
                 probabilities_output=f"{t}/probs.nii.gz")
    fw = np.asarray(nib.load(f"{t}/probs.nii.gz").dataobj)
    from accelerated_seg.checkpoint import read_export_config
    cfg = read_export_config(model_dir)
    prep = prepare_case(cfg, [case])
    with torch.no_grad():
        p = case_probabilities(net, cfg, prep, device=torch.device("cpu"), options=PredictOptions(1, 0.5))
    from accelerated_seg.inference import restore_case
    r = restore_case(prep, p, True)
    plain = r.probabilities if hasattr(r, "probabilities") else None
    if plain is not None:
        plain = np.asarray(plain)
        if plain.shape != fw.shape:
            plain = np.moveaxis(plain, 0, -1)
        out["predict_vs_plain"] = f"max|diff|={np.abs(plain - fw).max():.3g} shape={fw.shape}"
    else:
        out["predict_vs_plain"] = f"restored fields {r.__dict__.keys()}"
for ref in refs:
    out[f"vs {ref}"] = maxdiff(model_dir, ref)
for ck in ckpts:
    d = tempfile.mkdtemp(dir="/tmp/probe_strat/exports")
    os.rmdir(d)
    r = subprocess.run(["/work/main/.venv/bin/accelerated-seg", "export", ck, "--output", d], capture_output=True, text=True)
    if r.returncode:
        out[f"export {ck}"] = f"FAIL rc={r.returncode} {r.stdout[-500:]} {r.stderr[-800:]}"
    else:
        out[f"export {ck}"] = maxdiff(model_dir, d) + f" (into {d})"
for k, v in out.items():
    print(f"  {k}: {v}")
