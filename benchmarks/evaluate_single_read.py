"""Evaluate's reads of the files it scores, before against after the hundredth session: before, scoring read
each file (``read_label_map``) and ``input_digests`` read it again for summary.json's ``inputs_sha256``; after,
the scoring read hashes the bytes it takes (``read_label_map``'s ``digest``) and nothing is read again. Both
are this tree's own code (the reader without a digest is the one before), timed in one process, alternating,
over --cases pairs of --size^3 uint8 label maps (``evaluate_inputs_digest_cost``'s balls), gzipped and
uncompressed, each timed with the files dropped from the page cache first (``cold``: written, fsync'd, then
``posix_fadvise(DONTNEED)``, their pages in memory counted after the drop, as mincore(2) gives them), the same
with them dropped again between scoring and the digests before (``cold_larger_than_the_cache``: a dataset
larger than the page cache, whose second read is from disk too; the drop's own time counted) and with them in
it (``warm``). The metrics, the rest of an evaluation, are the same code either way and not timed
here. Also tracemalloc's peak of reading one --memory-size^3 map, with and without the digest.

    PYTHONPATH=. python benchmarks/evaluate_single_read.py --repeats 9 --work /var/tmp \\
        --output benchmarks/results/evaluate_single_read_2cpu.json

The files go into a folder under --work (default: the system's temporary folder); on a tmpfs the page cache
is where they live, so nothing is dropped, which ``resident_after_drop_bytes_max`` says.
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import hashlib
import mmap
import os
import statistics
import tempfile
import time
import tracemalloc
from pathlib import Path

from evaluate_inputs_digest_cost import write_cases  # benchmarks/ is sys.path[0] for a script run from there

from accelerated_seg.benchmark import script_command, write_result
from accelerated_seg.evaluate import match_cases
from accelerated_seg.evaluate_output import input_digests
from accelerated_seg.files import check_script_output
from accelerated_seg.label_map_reading import read_label_map

_LIBC = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
_LIBC.mmap.restype = ctypes.c_void_p
_LIBC.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
_LIBC.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
_LIBC.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]


def _resident_bytes(path: Path) -> int:
    """How many of the file's bytes are in the page cache (mincore(2) of a mapping of it), to the page."""
    size = path.stat().st_size
    pages = -(-size // mmap.PAGESIZE)
    with open(path, "rb") as file:
        address = _LIBC.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, file.fileno(), 0)
        if address in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), f"mmap of {path}")
        try:
            vector = (ctypes.c_ubyte * pages)()
            if _LIBC.mincore(address, size, vector) != 0:
                raise OSError(ctypes.get_errno(), f"mincore of {path}")
        finally:
            _LIBC.munmap(address, size)
    return sum(byte & 1 for byte in vector) * mmap.PAGESIZE


def _drop(paths) -> None:
    """Drop the files' pages from the page cache (written and fsync'd before: dirty pages stay)."""
    for path in paths:
        with open(path, "rb") as file:
            os.posix_fadvise(file.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)


def dropped_from_the_cache(paths: list[Path]) -> int:
    """``_drop``, then how many of the files' bytes are still in the page cache."""
    _drop(paths)
    return sum(_resident_bytes(path) for path in paths)


def _before(pairs, evicted=()) -> dict:
    """Scoring's read of each file, then input_digests reading every one of them again (until the 100th);
    ``evicted`` are dropped from the page cache in between, as a dataset larger than it has them evicted by the
    time input_digests reads them at the end (a small one's are read again from the cache)."""
    for _, pred, label in pairs:
        read_label_map(pred, "prediction"), read_label_map(label, "reference")
    _drop(evicted)
    return input_digests(pairs, None)


def _after(pairs) -> dict:
    """Scoring's read of each file, hashing its bytes on the way, as evaluate_folders does since the 100th."""
    hashed = {}
    for _, pred, label in pairs:
        for path, role in ((pred, "prediction"), (label, "reference")):
            read_label_map(path, role, hashed.setdefault(path, hashlib.sha256()))
    return input_digests(pairs, None, {path: digest.digest() for path, digest in hashed.items()})


def timed(ways: dict, pairs, paths: list[Path], repeats: int, cold: bool) -> dict:
    """Seconds of each way, alternating (before, after, after, before, ...); for ``cold`` the files are
    dropped from the page cache before each run."""
    runs, left = {name: [] for name in ways}, []
    for repeat in range(repeats):
        for name in (list(ways) if repeat % 2 == 0 else list(ways)[::-1]):
            if cold:
                left.append(dropped_from_the_cache(paths))
            start = time.perf_counter()
            digests = ways[name](pairs)
            runs[name].append(round(time.perf_counter() - start, 4))
            assert digests == input_digests(pairs, None), name  # the same record either way
    medians = {f"{name}_s": round(statistics.median(times), 4) for name, times in runs.items()}
    return {**medians, **{f"{name}_runs_s": times for name, times in runs.items()},
            "after_over_before": round(medians["after_s"] / medians["before_s"], 3),
            **({"resident_after_drop_bytes_max": max(left)} if cold else {})}


def fsynced(paths: list[Path]) -> None:
    for path in paths:
        with open(path, "rb+") as file:
            os.fsync(file.fileno())


def _peak_megabytes(path: Path) -> dict:
    """tracemalloc's peak (MiB) of reading one map, without and with the digest (numpy's arrays are counted)."""
    peaks = {}
    for name, digest in (("before", None), ("after", hashlib.sha256())):
        tracemalloc.start()
        read_label_map(path, None, digest)
        peaks[f"{name}_peak_mib"] = round(tracemalloc.get_traced_memory()[1] / 2**20, 1)
        tracemalloc.stop()
    return {"file_mib": round(path.stat().st_size / 2**20, 2), **peaks}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=5)
    parser.add_argument("--size", type=int, default=192)
    parser.add_argument("--memory-size", type=int, default=320, help="edge of the map whose reading's peak is taken")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--work", default=None, help="folder to write the files under (a disk, not a tmpfs)")
    parser.add_argument("--output", help="the result's file (default: benchmarks/results/evaluate_single_read_"
                                         "<cores>cpu.json, or _2, _3, ... beside one there)")
    args = parser.parse_args()
    check_script_output(parser, args.output, result_key="benchmark", kind="evaluate_single_read")
    result = {"cases": args.cases, "size": args.size, "memory_size": args.memory_size}
    for ending in (".nii.gz", ".nii"):
        with tempfile.TemporaryDirectory(dir=args.work) as folder:
            write_cases(Path(folder), args.cases, args.size, ending)
            pairs, _ = match_cases(Path(folder) / "pred", Path(folder) / "labels")
            paths = [path for _, pred, label in pairs for path in (pred, label)]
            fsynced(paths)
            ways = {"before": _before, "after": _after}
            evicted = {"before": lambda pairs: _before(pairs, evicted=paths), "after": _after}
            result[ending] = {"file_megabytes": round(sum(path.stat().st_size for path in paths) / 2**20, 2),
                              "cold": timed(ways, pairs, paths, args.repeats, cold=True),
                              "cold_larger_than_the_cache": timed(evicted, pairs, paths, args.repeats, cold=True),
                              "warm": timed(ways, pairs, paths, args.repeats, cold=False)}
            print(ending, result[ending], flush=True)
        with tempfile.TemporaryDirectory(dir=args.work) as folder:
            write_cases(Path(folder), 1, args.memory_size, ending)
            result[ending]["memory"] = _peak_megabytes(Path(folder) / "labels" / f"case0{ending}")
            print(ending, result[ending]["memory"], flush=True)
    path = write_result(f"evaluate_single_read_{os.cpu_count()}cpu", result, args.output, command=script_command())
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
