"""What a relaunch's pre-flight check costs once the cases have passed (``check_records``): every
voxel read (``accelerated-seg check``, and every launch before the seventy-sixth session) against
the cases recalled from the records, on the CT-sized gzipped cases of check_threads.py, in one
thread; and what keeping the records adds to a check that reads everything (the first launch).
Alternating, median of the repeats, nothing else running. Writes
benchmarks/results/check_records_<tag>.json with the machine and the command.

    PYTHONPATH=. python benchmarks/check_records.py --cases 8 --tag 2cpu
"""
import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from check_threads import write_cases  # benchmarks/ is this script's folder

from accelerated_seg.benchmark import script_command, write_result
from accelerated_seg.data.check_records import CheckRecords
from accelerated_seg.data.checks import check_cases


def kept(report):
    """As training does once nothing refuses the run: the cases that passed are recorded."""
    report.keep_records()
    return report


def timed(work) -> tuple[float, object]:
    start = time.perf_counter()
    result = work()
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=8)
    parser.add_argument("--shape", type=int, nargs=3, default=[512, 512, 100], metavar=("X", "Y", "Z"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tag", default="2cpu", help="the result's file name: check_records_<tag>.json")
    args = parser.parse_args()
    seconds = {"read_without_records": [], "read_and_recorded": [], "recalled": []}
    with tempfile.TemporaryDirectory() as folder:
        cases = write_cases(Path(folder), args.cases, tuple(args.shape))
        gzipped = sum(path.stat().st_size for case in cases for path in (*case.images, case.label))
        check_cases(cases[:1], 3)  # imports and first-use costs out of the timing
        for repeat in range(args.repeats):
            records = CheckRecords(Path(folder) / f"records_{repeat}", Path(folder))  # none kept yet
            first = [("read_without_records", lambda: check_cases(cases, 3)),
                     ("read_and_recorded", lambda: kept(check_cases(cases, 3, records=records)))]
            for name, work in (first if repeat % 2 == 0 else first[::-1]):
                took, report = timed(work)
                seconds[name].append(took)
                assert not report.errors and report.recalled == 0, report
            took, report = timed(lambda: check_cases(cases, 3, records=records))
            seconds["recalled"].append(took)
            assert report.recalled == args.cases, report
            (record_file,) = records.folder.iterdir()
            record_bytes = record_file.stat().st_size
    medians = {name: statistics.median(runs) for name, runs in seconds.items()}
    record = {"what": "seconds of check_cases over the cases in one thread: every voxel read without records, "
                      "read and recorded (a first launch), recalled from the records (a relaunch); median of "
                      "the repeats, the first two alternating",
              "cases": args.cases, "shape": args.shape, "gzipped_bytes": gzipped,
              **{f"seconds_{name}": round(value, 4) for name, value in medians.items()},
              "relaunch_speedup": round(medians["read_without_records"] / medians["recalled"], 1),
              "recording_overhead": round(medians["read_and_recorded"] / medians["read_without_records"], 3),
              "record_bytes_per_case": round(record_bytes / args.cases),
              "runs_s": {name: [round(t, 4) for t in runs] for name, runs in seconds.items()}}
    out = write_result(f"check_records_{args.tag}", record, None, command=script_command())
    print(json.dumps({key: value for key, value in record.items() if key != "runs_s"}))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
