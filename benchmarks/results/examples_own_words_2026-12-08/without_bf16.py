"""Runs an example as `python <example> <args>` would, on a CPU seen as one without bf16 instructions (AVX2 alone):
host_cpu.cpuinfo_lines made to say so, as tests/test_examples_own_words.py does.

    python without_bf16.py <code root>/examples/estimator.py --out ... --steps 1 --patch 32
"""
import runpy
import sys

import accelerated_seg.host_cpu as host_cpu

host_cpu.cpuinfo_lines = lambda: ["processor\t: 0", "model name\t: a CPU without bf16", "flags\t\t: fpu sse2 avx avx2"]
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
