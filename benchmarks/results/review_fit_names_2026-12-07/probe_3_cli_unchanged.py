# cd benchmarks/results/review_fit_names_2026-12-07 && /work/main/.venv/bin/python probe_3_cli_unchanged.py \
#   > probe_3_cli_unchanged.txt 2>&1
# examples/train.py (train's own names, the default every caller that gives none gets), tiny: Ctrl-C after a step
# before a checkpoint, SIGTERM after a step, the same command again (refused), at main before h147 (82aaa70d, from
# git archive in /tmp/r128_base) and at branch r128: the last line after each stop (step numbers aside), which
# should be the same.
import re
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "estimator_stop_walk_2026-12-07"))
import probe_lib  # noqa: E402
from probe_lib import A_STEP, Run  # noqa: E402

said = {}
for code in ("/tmp/r128_base", "/tmp/wt_r128"):
    probe_lib.HOME = Path("/tmp/r128_probe_cli") / Path(code).name
    probe_lib.HOME.mkdir(parents=True, exist_ok=True)
    probe_lib.ENV.update(PYTHONPATH=code, XDG_CACHE_HOME=str(probe_lib.HOME / "xdg_cache"))
    argv = [sys.executable, f"{code}/examples/train.py", "--config", f"{code}/configs/demo.yaml", "--no-report",
            "--data.synthetic.num_cases=6", "--data.synthetic.num_validation=2", "--data.patch_size=[16,16,16]",
            "--data.spacing=[3.0,3.0,3.0]", "--data.samples_per_volume=2", "--data.num_workers=0",
            "--model.args.channels=[4,8,16]", "--model.args.strides=[2,2]", "--train.max_steps=40",
            "--train.val_every=0", "--train.save_every=30", "--train.trackers=none", "--train.output_dir=out/run"]
    lines = []
    for label, extra, sig in (("Ctrl-C after a step, before a checkpoint", ["--train.overwrite=true"], signal.SIGINT),
                              ("SIGTERM after a step", ["--train.overwrite=true"], signal.SIGTERM),
                              ("the same command again", [], None)):
        run = Run([*argv, *extra], f"{code}: {label}")
        if sig is not None:
            run.wait_for(A_STEP, timeout=300)
            run.group(sig)
        status = run.finish(tail=2)
        text = [line for line in re.split(r"[\r\n]", run.text()) if line.strip() and not re.search(A_STEP, line)]
        lines.append((label, status, [re.sub(r"step_\d+|step \d+", "step N", line) for line in text[-1:]]))
    said[code] = lines
print("\nthe same lines and statuses at 82aaa70d and r128:", said["/tmp/r128_base"] == said["/tmp/wt_r128"])
