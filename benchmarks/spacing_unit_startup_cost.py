"""The header reads training's start makes for the target spacing and the export's record: the main process
resolves the preprocessing (``prepare.preprocess_settings``: every case's header, for the checks of the spacing,
and the median cases' again for the median), and every rank then builds the export's description
(``run_records.export_metadata``), which since the hundred-and-sixth session records ``spacing_unit``: at commit
43107b44 by reading the cases' headers once more up to the first that declares a unit, so every header of a dataset
whose headers declare none (nibabel's default, the phantoms'), on every rank. Here CASES phantoms of about 16^3
voxels (.nii.gz, no unit declared), data.spacing unset, page cache warm, median of REPEATS in one process; run it
with PYTHONPATH set to the code to time, named with --code: the commits' were unpacked with ``git archive <commit>
accelerated_seg | tar -x -C /tmp/<folder>`` (the review's fix: its worktree). Writes
benchmarks/results/spacing_unit_startup_cost_2cpu_<code>.json, or --output."""
import argparse
import json
import os
import shlex
import statistics
import sys
import tempfile
import timeit
from pathlib import Path

import accelerated_seg
from accelerated_seg.benchmark import provenance
from accelerated_seg.config import Config
from accelerated_seg.data import prepare
from accelerated_seg.data.manifest import load_msd
from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.files import write_text_atomically
from accelerated_seg.run_records import export_metadata

CASES = 300
REPEATS = 9


def _median_seconds(work) -> tuple[float, list[float]]:
    runs = timeit.repeat(work, number=1, repeat=REPEATS)
    return round(statistics.median(runs), 4), [round(run, 4) for run in runs]


def _settings_and_record(cfg: Config, manifest):
    """What the start does with the headers, by the API of the code timed: the spacing and unit resolved on the
    main process, then the export's description on every rank."""
    if hasattr(prepare, "settings_and_unit"):  # the unit taken from the spacing checks' headers
        settings, unit = prepare.settings_and_unit(cfg.data, manifest)[:2]
        return settings, lambda: export_metadata(cfg, manifest, settings, unit)
    settings = prepare.preprocess_settings(cfg.data, manifest)
    return settings, lambda: export_metadata(cfg, manifest, settings)


def main(code: str, output: str) -> None:
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as work:
        dataset = write_synthetic_dataset(Path(work), num_cases=CASES, num_validation=CASES // 5, seed=0,
                                          size_mm=(32.0, 32.0, 32.0), spacing_mm=2.0)
        manifest = load_msd(dataset)
        cfg = Config()
        cfg.data.spacing = None  # the median: the headers of the training cases read once more
        settings_s, settings_runs = _median_seconds(lambda: _settings_and_record(cfg, manifest))
        _, record = _settings_and_record(cfg, manifest)
        record_s, record_runs = _median_seconds(record)
        unit = record()["spacing_unit"] if "spacing_unit" in record() else "(not recorded)"
    out = {"what": f"training's start: preprocess settings (main process, data.spacing unset) and the export's "
                   f"description (every rank) over {CASES} phantoms of about 16^3 voxels, .nii.gz, no unit declared, "
                   f"median of {REPEATS}, page cache warm",
           **provenance(f"PYTHONPATH={os.environ.get('PYTHONPATH', '.')} python {shlex.join(sys.argv)}"),
           "code": code, "package": str(Path(accelerated_seg.__file__).parent),
           "cases": CASES, "load_average": {"before": [round(x, 2) for x in load_before],
                                            "after": [round(x, 2) for x in os.getloadavg()]},
           "settings_median_s": settings_s, "export_record_median_s": record_s, "spacing_unit": unit,
           "settings_runs_s": settings_runs, "export_record_runs_s": record_runs}
    print({key: value for key, value in out.items() if key.endswith("median_s") or key == "code"})
    write_text_atomically(output or f"benchmarks/results/spacing_unit_startup_cost_2cpu_{code}.json",
                          json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--code", required=True, help="what the timed code is, for the result's name (a commit)")
    parser.add_argument("--output", help="the result file (default: benchmarks/results/"
                                         "spacing_unit_startup_cost_2cpu_<code>.json)")
    args = parser.parse_args()
    from accelerated_seg.files import check_script_output

    check_script_output(parser, args.output, result_key="export_record_median_s")  # before anything is timed
    main(args.code, args.output)
