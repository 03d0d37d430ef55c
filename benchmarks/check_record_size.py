"""How much the pre-flight checks' records (``check_records``) hold per case: the bytes of the record
file once the cases have passed and been recorded, at two volume sizes, to show that a record's size
does not depend on the voxel count (it holds the case's key, its files' fingerprint, its warnings and
what its label holds, never voxels). On the CT-like cases of check_threads.py, which pass with no
warning of their own; ids of 6 characters (``ct_000``). Writes
benchmarks/results/check_record_size_<tag>.json with the machine and the command.

    PYTHONPATH=. python benchmarks/check_record_size.py --cases 8 --sizes 16 48 --tag 2cpu
"""
import argparse
import json
import tempfile
from pathlib import Path

from check_threads import write_cases  # benchmarks/ is this script's folder

from accelerated_seg.benchmark import script_command, write_result
from accelerated_seg.data.check_records import CheckRecords
from accelerated_seg.data.checks import check_cases


def record_bytes(folder: Path, cases: int, size: int) -> tuple[int, int]:
    """The record file's bytes for ``cases`` cases of ``size``^3 voxels, and what the file holds besides
    its cases (its checking stamp): one check recorded as training records it."""
    written = write_cases(folder, cases, (size, size, size))
    records = CheckRecords(folder / "records", folder)
    report = check_cases(written, 3, records=records)
    assert not report.errors and report.recalled == 0, report
    report.keep_records()
    (record_file,) = records.folder.iterdir()
    document = json.loads(record_file.read_text())
    envelope = len(json.dumps({**document, "cases": {}}))
    return record_file.stat().st_size, envelope


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=8)
    parser.add_argument("--sizes", type=int, nargs="+", default=[16, 48], help="edge of the cubic volumes, voxels")
    parser.add_argument("--tag", default="2cpu", help="the result's file name: check_record_size_<tag>.json")
    args = parser.parse_args()
    by_size = {}
    for size in args.sizes:
        with tempfile.TemporaryDirectory() as folder:
            total, envelope = record_bytes(Path(folder), args.cases, size)
        by_size[str(size)] = {"record_file_bytes": total, "bytes_besides_the_cases": envelope,
                              "bytes_per_case": round((total - envelope) / args.cases, 1)}
    per_case = [entry["bytes_per_case"] for entry in by_size.values()]
    record = {"what": "bytes of the checks' record file of a dataset whose cases all passed, and per case (the "
                      "file less its checking stamp, over the cases), for cubic volumes of each edge",
              "cases": args.cases, "by_edge_voxels": by_size,
              "same_per_case_at_every_size": len(set(per_case)) == 1,
              "record_file_bytes_2000_cases": round(max(per_case) * 2000 + max(
                  entry["bytes_besides_the_cases"] for entry in by_size.values()))}
    out = write_result(f"check_record_size_{args.tag}", record, None, command=script_command())
    print(json.dumps(record))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
