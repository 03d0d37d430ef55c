# cd /tmp/walk_h139 && PYTHONPATH=/tmp/wt_h139 /work/main/.venv/bin/python \
#   /tmp/wt_h139/benchmarks/results/seventh_new_user_walk_2026-12-07/walk_5_other.py > walk_5_other.txt 2>&1
# stopping.md "The other commands" and the At-a-glance rows of synth, evaluate, export, plan --json, check, cache:
# each stopped mid-work where it lasts long enough to be, else at its start; the line, the status, files left.
import re
import signal
import sys
import time

sys.path.insert(0, "/tmp/wt_h139/benchmarks/results/seventh_new_user_walk_2026-12-07")
from walk_lib import CLONE, Run, files, setup  # noqa: E402

setup()


def after_first_case(run, folder, timeout=120):
    deadline = time.monotonic() + timeout
    while not list((CLONE / folder).glob("imagesTr/case_*.nii.gz")) and time.monotonic() < deadline:
        time.sleep(0.05)
    print(f"  [{time.monotonic() - run.started:.1f} s] a first case file there")


# synth: SIGTERM, SIGINT, SIGUSR1 once its first case file is there; then the same command finishes them.
for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGUSR1):
    run = Run(f"accelerated-seg synth data/synth_{sig.name} --cases 40", f"synth, {sig.name} after its first case")
    after_first_case(run, f"data/synth_{sig.name}")
    run.group(sig)
    run.finish()
    files(f"data/synth_{sig.name}", hidden_only=True)
run = Run("accelerated-seg synth data/synth_SIGTERM --cases 40", "synth again: the same command finishes them")
run.finish()

# evaluate of walk_3's predictions (preds_SIGINT, whole once --continue ran): at its start and mid-way.
for sig, delay in ((signal.SIGTERM, 1.0), (signal.SIGINT, 3.0), (signal.SIGUSR1, 3.0)):
    run = Run(f"accelerated-seg evaluate preds_SIGINT data/phantoms/labelsTr --labels data/phantoms --output eval_{sig.name}",
              f"evaluate, {sig.name} {delay} s after the start")
    time.sleep(delay)
    run.group(sig)
    run.finish()
    files(f"eval_{sig.name}")

# export of a checkpoint: SIGTERM 2 s in.
for sig, delay in ((signal.SIGTERM, 2.0), (signal.SIGINT, 4.0)):
    run = Run(f"accelerated-seg export output/one --output exported_{sig.name}", f"export, {sig.name} {delay} s in")
    time.sleep(delay)
    run.group(sig)
    run.finish()
    print(f"  exported_{sig.name} there: {(CLONE / f'exported_{sig.name}').exists()}; "
          f"partial: {(CLONE / f'exported_{sig.name}.partial').exists()}")

# plan --json, check, cache (its listing): SIGTERM / SIGINT 2 s in.
for command, sig in (("accelerated-seg plan --config tiny.yaml --json plan.json", signal.SIGTERM),
                     ("accelerated-seg plan --config tiny.yaml", signal.SIGINT),
                     ("accelerated-seg check data/phantoms", signal.SIGINT),
                     ("accelerated-seg check data/phantoms", signal.SIGUSR1),
                     ("accelerated-seg cache", signal.SIGTERM)):
    run = Run(command, f"{command.split()[1]}, {sig.name} 2 s in")
    time.sleep(2.0)
    run.group(sig)
    run.finish(show=re.compile(r"interrupt|stopped|Traceback|rror|began"))
print("  plan.json there:", (CLONE / "plan.json").exists())
