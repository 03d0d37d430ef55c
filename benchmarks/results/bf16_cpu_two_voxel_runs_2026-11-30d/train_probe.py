import math, sys, torch, accelerate
from accelerated_seg.config import load_config
from accelerated_seg import train as train_module

orig = accelerate.Accelerator.clip_grad_norm_
def traced(self, parameters, max_norm, *a, **k):
    parameters = list(parameters)
    bad = [i for i, p in enumerate(parameters) if p.grad is not None and not torch.isfinite(p.grad).all()]
    badw = [i for i, p in enumerate(parameters) if not torch.isfinite(p).all()]
    norm = orig(self, parameters, max_norm, *a, **k)
    print(f"GRADNORM {float(norm):.4g} nonfinite grads {len(bad)} first {bad[:3]} nonfinite weights {len(badw)}", flush=True)
    return norm
accelerate.Accelerator.clip_grad_norm_ = traced
if __name__ == "__main__":
    cfg = load_config("/work/main/configs/demo.yaml", ["--data.dataset=/tmp/docs_probe_b/data/def/dataset.json",
        "--data.binarize=true", "--data.patch_size=[32,32,32]", "--model.args={}", "--optim.lr=3e-4",
        "--train.max_steps=10", "--train.val_every=5", f"--train.output_dir={sys.argv[1]}"])
    train_module.train(cfg)
