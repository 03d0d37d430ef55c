# The test itself, both of its cases, 10 times over beside 3 busy loops (20 runs), at the branch's code:
#   cd <worktree> && bash benchmarks/results/ctrl_c_by_windows_hang_2026-12-07/pytest_loop.sh > .../pytest_loop.txt
for i in 1 2 3; do /work/main/.venv/bin/python -c "while 1: pass" & done
for run in $(seq 10); do
  PYTHONPATH=$PWD timeout 300 /work/main/.venv/bin/python -m pytest -q -p no:cacheprovider -n 2 \
    "tests/test_inference_distributed.py::test_ctrl_c_by_windows_stops_every_process_with_one_line_and_status_130" \
    2>&1 | tail -1 | sed "s/^/run $run: /"
done
kill $(jobs -p)
