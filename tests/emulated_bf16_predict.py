"""``accelerated-seg predict`` under a launch, run by test_inference_distributed: every process on a CPU
without bf16 instructions (an AVX2 host's /proc/cpuinfo), so ``--precision bf16`` is emulated."""

import sys

import accelerated_seg.host_cpu as host_cpu
from accelerated_seg.cli import end_process, main


class AnAvx2HostsCpuinfo:
    """/proc/cpuinfo as a CPU without avx512_bf16 or amx_bf16 gives it (this host's may have them)."""

    def is_file(self) -> bool:
        return True

    def read_text(self) -> str:
        return "processor\t: 0\ncpu family\t: 25\nmodel name\t: AMD EPYC\nflags\t\t: fpu sse2 avx2 fma\n"


if __name__ == "__main__":
    host_cpu.CPUINFO = AnAvx2HostsCpuinfo()
    end_process(main(sys.argv[1:]))
