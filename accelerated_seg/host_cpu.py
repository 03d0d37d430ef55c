"""What the host CPU is and whether it computes bf16 natively, as Linux's /proc/cpuinfo says.

bf16 autocast on a CPU is fast only with bf16 instructions: on x86 AVX512-BF16 or AMX, on Arm the
BF16 extension. Without them oneDNN emulates bf16 convolutions from wider ones: a bf16 training
step of the default U-Net (batch 2, 32^3 and 64^3) took 1.8-2.0x fp32's time with AVX-512 and
12-18x with AVX2, where with AVX512-BF16 it took 0.92x and 0.61x (one host, oneDNN's instruction
set capped: ``benchmarks/cpu_bf16_emulation.py``, docs/performance.md "bf16 and fp16 on a CPU"). torch chooses bf16
kernels whatever the CPU, and its own check of oneDNN's bf16 support is true for the emulating
AVX-512 CPUs too, so the flags are read here.

Where there is no /proc/cpuinfo (macOS, Windows) nothing is known, and nothing is said.

How busy the CPU is (``load_average``) goes beside a benchmark's figures: a shared machine's load moves them.
"""

from __future__ import annotations

import os
from pathlib import Path

CPUINFO = Path("/proc/cpuinfo")
#: The flags (x86 ``flags``, Arm ``Features``) of instructions that compute bf16 natively.
BF16_FLAGS = frozenset({"avx512_bf16", "amx_bf16", "bf16"})


def cpuinfo_lines() -> list[str]:
    """/proc/cpuinfo's lines, or [] where the system has none."""
    return CPUINFO.read_text().splitlines() if CPUINFO.is_file() else []


def cpuinfo_field(lines: list[str], name: str) -> str | None:
    """The first processor's ``name`` in /proc/cpuinfo's lines (the key whole: "model" is not "model name")."""
    return next((value.strip() for key, _, value in (line.partition(":") for line in lines)
                 if key.strip() == name), None)


def cpu_generation(lines: list[str]) -> str | None:
    """x86's "family/model" (e.g. "26/2"), or None where /proc/cpuinfo gives neither.

    The model name alone does not tell hosts apart: "AMD EPYC" named 2-core hosts 1.6x apart at unet
    64^3 between these sessions, and "Intel(R) Xeon(R) Processor" names every Xeon generation.
    """
    family, model = cpuinfo_field(lines, "cpu family"), cpuinfo_field(lines, "model")
    return f"{family}/{model}" if family and model else None


def bf16_instructions(lines: list[str]) -> list[str] | None:
    """The native bf16 instructions among the first processor's flags, sorted; None if it has none.
    (The same model name covers hosts with and without them.)"""
    flags = set((cpuinfo_field(lines, "flags") or cpuinfo_field(lines, "Features") or "").split())
    return sorted(flags & BF16_FLAGS) or None


# The command line's ways to fp32, training's and predict's, which the warning below names by default
COMMAND_LINE_FP32 = "--mixed_precision no; --precision fp32 for predict"


def emulated_bf16_warning(device_type: str, precision: str, lines: list[str] | None = None,
                          fp32: str = COMMAND_LINE_FP32) -> str | None:
    """A warning when ``precision`` is bf16 autocast on the CPU (``device_type`` "cpu") and this CPU has
    no bf16 instructions, else None (also where that cannot be told). Training, prediction and
    ``benchmark train`` each ask it. ``lines``: /proc/cpuinfo's, read when not given; ``fp32``: the caller's
    ways to fp32 (the estimator's are its precision keywords since the ninety-second session)."""
    if device_type != "cpu" or precision != "bf16":
        return None
    lines = cpuinfo_lines() if lines is None else lines
    if not lines or bf16_instructions(lines):
        return None
    return ("bf16 on this CPU is emulated: it has no bf16 instructions (none of avx512_bf16, amx_bf16 or "
            "bf16 among /proc/cpuinfo's flags), so each bf16 convolution is computed through wider ones. "
            "A bf16 training step of the default U-Net took 1.8-2.0x fp32's time on AVX-512 without them "
            f"and 12-18x on AVX2. fp32 is faster here ({fp32}); "
            "bf16 pays on GPUs and on CPUs with AVX512-BF16 or AMX.")


def bf16_two_voxel_warning(device_type: str, precision: str, convolutions: list[str], patch_size,
                           patch: str = "data.patch_size", fp32: str = "--mixed_precision no") -> str | None:
    """A warning when bf16 autocast on the CPU meets ``convolutions`` (names) whose input is 2 voxels
    along an axis (``models.convolutions_over_two_voxels``), else None. ``patch``, ``fp32``: how the caller
    names the patch and trains in fp32 (the estimator's block_shape and precision since the ninety-second
    session).

    oneDNN's bf16 weight gradient of a 3x3x3 convolution over a 2 x 2 x 2 volume came back as garbage
    (up to 1e36) in 0-18% of the calls of a process on the Zen 5 EPYC with AVX512-BF16 (torch 2.13,
    oneDNN 3.12; 32 to 256 channels, 1 or 2 threads, three processes each; none at 1, 3 or 4 voxels;
    ``benchmarks/results/cpu_bf16_two_voxels_2cpu.json``).
    The default U-Net on 32^3 patches reaches 2 voxels at its bottom and its weights turned NaN within
    ten steps in 3 of 4 runs (sixty-eighth session). The loop skips a step whose gradient norm is not
    finite, but the finite garbage is clipped and taken."""
    if device_type != "cpu" or precision != "bf16" or not convolutions:
        return None
    shown = ", ".join(convolutions[:3]) + (f" and {len(convolutions) - 3} more" if len(convolutions) > 3 else "")
    return (f"bf16 on the CPU with {patch} {tuple(patch_size)}: {len(convolutions)} convolution(s) of the "
            f"network see a volume 2 voxels wide ({shown}), where oneDNN's bf16 gradient came back as garbage "
            "(up to 1e36, or inf) in up to 18% of the calls on one CPU; steps whose gradient norm is not finite "
            f"are skipped, the others are taken. Train in fp32 ({fp32}), or on a patch whose "
            "deepest level is at least 3 voxels wide (e.g. 48^3 instead of 32^3 for a network that halves it "
            "four times).")


def cpu_summary(lines: list[str] | None = None) -> str | None:
    """The CPU for a bug report: "cpu AMD EPYC (26/2), bf16 native (avx512_bf16)" or "..., bf16
    emulated"; None where there is no /proc/cpuinfo. ``lines``: /proc/cpuinfo's, read when not given."""
    lines = cpuinfo_lines() if lines is None else lines
    if not lines:
        return None
    name = cpuinfo_field(lines, "model name") or "unnamed"
    generation = cpu_generation(lines)
    native = bf16_instructions(lines)
    return (f"cpu {name}{f' ({generation})' if generation else ''}, bf16 "
            + (f"native ({', '.join(native)})" if native else "emulated"))


def load_average() -> list[float] | None:
    """The 1, 5 and 15-minute load average, rounded; None where the system gives none."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None
