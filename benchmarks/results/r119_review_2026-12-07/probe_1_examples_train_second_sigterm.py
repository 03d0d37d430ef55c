# cd /tmp/wt_r119/benchmarks/results/r119_review_2026-12-07 && /work/main/.venv/bin/python \
#   probe_1_examples_train_second_sigterm.py > probe_1_examples_train_second_sigterm_before.txt 2>&1
# (R119_CODE=/work/main: main's code and its examples/train.py; the fix's after: the worktree's,
# > probe_1_..._after.txt;
# a first after-run that ran /tmp/r119_probe's copy of main's examples/train.py by mistake said -15, 4 of 4, as before)
# examples/train.py in one process (stopping.md's table: SIGTERM -> "preempted:", 0) does not go through cli.main:
# does a second SIGTERM 0.1 s after its preempted line kill it, as it did `accelerated-seg train` before h139's fix?
import signal
import sys
import time

from probe_lib import CODE, Run

print(f"code: {CODE}")
for attempt in range(4):
    run = Run([sys.executable, f"{CODE}/examples/train.py", "--config", "tiny.yaml", "--no-report",
               f"--train.output_dir=output/ex_second_{'main' if CODE == '/work/main' else 'wt'}_{attempt}",
               "--train.overwrite=true"], f"examples/train.py: SIGTERM, then SIGTERM 0.1 s after its preempted line "
              f"({attempt + 1})")
    run.wait_for(r"step 5: validation mean Dice", timeout=240)
    run.group(signal.SIGTERM)
    if run.wait_for(r"preempted: [^\n]*", timeout=60):
        time.sleep(0.1)
        if run.process.poll() is None:
            run.group(signal.SIGTERM, "SIGTERM (second)")
        else:
            print("  ended before the second")
    run.finish()
