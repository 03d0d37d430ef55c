#!/usr/bin/env bash
# Command: cd /tmp/wt_r124 && bash benchmarks/results/review_ci_sigterm_kill_hang_2026-12-07/passing_thrice.sh
# (r124.) The real `1 after it answered` case 3 times in one pytest process (h142's repeat_plugin.py), with this
# worktree's tests/: each run's outcome, time and the stood.* files left in its folder (none where it passed), and
# pytest's whole output after, for any extra output. Output: passing_thrice.txt.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$HERE/passing_thrice.txt
: > "$OUT"
echo "# at $(git rev-parse --short HEAD); $(date -u +%H:%M) UTC" >> "$OUT"
OUT=$OUT REPEAT=3 PYTHONPATH="$HERE/../ci_sigterm_kill_hang_2026-12-07:$PWD" /work/main/.venv/bin/python -m pytest \
    -p repeat_plugin -p no:cacheprovider \
    "tests/test_inference_distributed.py::test_a_jobs_sigterm_just_before_a_process_is_killed_ends_the_launch_at_once_naming_both[1 after it answered]" \
    >> "$OUT" 2>&1
