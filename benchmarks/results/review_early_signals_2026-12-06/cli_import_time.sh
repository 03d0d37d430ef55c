# command: cd /tmp/wt_r83 && bash benchmarks/results/review_early_signals_2026-12-06/cli_import_time.sh
# The console script's `import accelerated_seg.cli`, timed in the process (perf_counter), 5 fresh processes; each
# signal has its default there (early_signals' docstring: 0.075-0.09 s). And the process's start to main's first line.
for i in 1 2 3 4 5; do
  PYTHONPATH=. /work/main/.venv/bin/python -c "
import time; t = time.perf_counter()
import accelerated_seg.cli
import os; clk = os.sysconf('SC_CLK_TCK'); start = int(open('/proc/self/stat').read().rsplit(')', 1)[1].split()[19])
up = float(open('/proc/uptime').read().split()[0])
print(f'import accelerated_seg.cli {time.perf_counter() - t:.3f} s; process start to here {up - start / clk:.2f} s')"
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
