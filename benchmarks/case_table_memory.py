"""Peak memory of writing the preprocessed cache's case table (``PreprocessedCache.write_table``), which
holds up to 10,000 foreground locations per class and case: a cohort of many cases and classes, each
case's arrays written as training writes them (the image and label arrays are named, not read).
Each tree given (a checkout's root) writes the same cases' table in a fresh process of its own; its
peak resident memory (the table's memory-mapped pages it read included) and the write's time are
measured. Writes benchmarks/results/case_table_memory_<tag>.json with the machine and the command.

    PYTHONPATH=. python benchmarks/case_table_memory.py --cases 500 --classes 14 --trees /old/checkout . --tag 2cpu
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from accelerated_seg.benchmark import script_command, write_result
from accelerated_seg.files import check_script_output

SHAPE = [256, 256, 160]  # a CT-sized case resampled (10.5 million voxels)

# The cohort's cases, alike in every tree's process.
CASES = """
from pathlib import Path
from accelerated_seg.data.cases import Case
cases = [Case(id=f"case_{i:05d}", images=(Path(source),), label=Path(source)) for i in range(count)]
"""

# Run by each tree in a process of its own, before it is measured: what ``_write_case`` leaves for each
# case, its json and its locations.npz (int64, as written), where that tree's cache reads them. Each
# tree names them itself: since the eighty-sixth session a case's json is named by its files too
# (``fingerprint.case_key``) and ``paths`` takes the case, so one tree's names are not another's.
WRITER = textwrap.dedent("""
    import json, sys
    import numpy as np
    from accelerated_seg.data import fingerprint
    from accelerated_seg.data.cache import PreprocessedCache
    from accelerated_seg.data.preprocess_settings import PreprocessSettings
    root, source, classes, count, per_class = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:6])
    shape = json.loads(sys.argv[6])
""") + CASES + textwrap.dedent("""
    cache = PreprocessedCache(root, source, PreprocessSettings(), classes)
    cache.dir.mkdir(parents=True, exist_ok=True)
    by_case = hasattr(fingerprint, "case_key")  # else paths() takes the case's id
    rng = np.random.default_rng(0)
    voxels = int(np.prod(shape))
    for case in cases:
        paths = cache.paths(case if by_case else case.id, "src")
        locations = {f"class_{c}": np.sort(rng.choice(voxels, per_class, replace=False)).astype(np.int64)
                     for c in range(1, classes)}
        np.savez(paths["locations.npz"], **locations)
        paths["json"].write_text(json.dumps({"id": case.id, "shape": shape, "channels": 1, "spacing": [1.5] * 3,
                                             "class_voxels": [per_class] * (classes - 1), "source": "src"}))
""")

# Run by each tree: the table of the cases written above, then the process's peak resident memory.
CHILD = textwrap.dedent("""
    import json, resource, sys, time
    from pathlib import Path
    from accelerated_seg.data.cache import PreprocessedCache
    from accelerated_seg.data.preprocess_settings import PreprocessSettings
    root, source, classes, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    cache = PreprocessedCache(root, source, PreprocessSettings(), classes)
""") + CASES + textwrap.dedent("""
    import numpy, datasets  # their imports out of the difference: measured before the table
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    table = cache.write_table(cases)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    stored = str(datasets.load_from_disk(str(table)).features["class_locations"])  # numpy rows are int64 either way
    size = sum(f.stat().st_size for f in Path(table).rglob("*") if f.is_file())
    print(json.dumps({"peak_mb": round(after / 1024, 1), "before_mb": round(before / 1024, 1),
                      "seconds": round(seconds, 2),
                      "table_mb": round(size / 2 ** 20, 1), "stored_as": stored}))
""")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=500)
    parser.add_argument("--classes", type=int, default=14, help="classes with background (TotalSegmentator-like: many)")
    parser.add_argument("--locations", type=int, default=10_000, help="recorded per foreground class and case")
    parser.add_argument("--trees", nargs="+", default=["."], help="checkouts whose write_table is measured")
    parser.add_argument("--tag", default="2cpu", help="the result's file name: case_table_memory_<tag>.json")
    parser.add_argument("--output", help="the result's file (default: benchmarks/results/case_table_memory_<tag>.json)")
    args = parser.parse_args()
    check_script_output(parser, args.output, result_key="benchmark", kind="case_table_memory")
    runs = []
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "dataset.json"
        source.write_text("{}")
        for tree in args.trees:  # each into a cache root of its own: a table written once is reused
            root = Path(folder) / f"cache_{len(runs)}"
            env = {**os.environ, "PYTHONPATH": str(Path(tree).resolve())}
            subprocess.run([sys.executable, "-c", WRITER, str(root), str(source), str(args.classes), str(args.cases),
                            str(args.locations), json.dumps(SHAPE)], env=env, check=True, cwd=tree)
            done = subprocess.run([sys.executable, "-c", CHILD, str(root), str(source), str(args.classes),
                                   str(args.cases)], capture_output=True, text=True, env=env, check=True,
                                  cwd=tree)  # python -c puts its working folder first on sys.path
            commit = subprocess.run(["git", "-C", tree, "rev-parse", "--short", "HEAD"], capture_output=True,
                                    text=True).stdout.strip()
            runs.append({"tree": tree, "commit": commit, **json.loads(done.stdout.strip().splitlines()[-1])})
            print(runs[-1], flush=True)
    locations_mb = args.cases * (args.classes - 1) * args.locations * 8 / 2 ** 20
    record = {"what": "peak resident memory of a process writing the case table (write_table), per tree",
              "cases": args.cases, "classes": args.classes, "locations_per_class": args.locations,
              "int64_locations_mb": round(locations_mb, 1), "runs": runs}
    if len(runs) > 1:
        record["peak_ratio_last_to_first"] = round(runs[-1]["peak_mb"] / runs[0]["peak_mb"], 3)
    print(f"wrote {write_result(f'case_table_memory_{args.tag}', record, args.output, command=script_command())}")


if __name__ == "__main__":
    main()
