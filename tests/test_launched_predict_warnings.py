"""The warnings of a launched predict_distributed (accelerate launch, 2 CPU processes): what every process repeats
alike said by the main process alone, each process's own cases' warnings by that process, and a script's loop of
calls saying each once, as Python says a warning of one line once (docs/inference.md, Several processes)."""

import json
import types
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from accelerated_seg.inference_distributed import _warned_by_the_main_process

from test_inference import export
from test_inference_distributed import launch_two

WORKER = Path(__file__).with_name("infer_worker.py")


def test_a_process_but_the_main_one_silences_the_shared_work_without_resetting_its_lines_warnings():
    """A process but the main one silenced the work every process repeats alike with catch_warnings, whose entry
    and exit reset what Python keeps of the lines that said a warning: a script's loop of predict_distributed said
    each warning of that process's own cases at every call, the main process's once (until the
    hundred-and-twenty-sixth session)."""
    other = types.SimpleNamespace(is_main_process=False)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("default")
        filters = list(warnings.filters)
        for _ in range(3):
            warnings.warn("a warning of this process's own case, once at its line", UserWarning)
            with _warned_by_the_main_process(other):
                warnings.warn("a warning every process repeats alike", UserWarning)
        assert warnings.filters == filters
    assert [str(warning.message) for warning in seen] == ["a warning of this process's own case, once at its line"]


@pytest.mark.distributed
def test_a_launched_loop_of_predicts_by_cases_says_each_scans_warning_once(tmp_path):
    """Two scans without orientation, one to each process by cases, predicted twice by a script's loop under one
    launch: each scan's warning said once, by the process that read it. Process 1 said its scan's at both calls
    until the hundred-and-twenty-sixth session (3 lines for 2)."""
    model = export(tmp_path / "model", spacing=(2.0, 2.0, 2.0))
    scans = tmp_path / "scans"
    scans.mkdir()
    for index in range(2):
        image = nib.Nifti1Image(np.random.default_rng(index).random((16, 16, 16), np.float32) * 100, None)
        image.header.set_zooms((2.0, 2.0, 2.0))  # without an affine: qform and sform codes 0
        nib.save(image, scans / f"bare_{index}.nii.gz")
    jobs = [{"model_dir": str(model), "inputs": [str(scans)], "output": str(tmp_path / f"out_{call}"),
             "split": "cases"} for call in range(2)]
    proc = launch_two(tmp_path / "x", [str(WORKER), str(tmp_path / "x"), json.dumps(jobs)], timeout=180)
    results = [json.loads((tmp_path / f"x.rank{rank}.json").read_text()) for rank in range(2)]
    assert all(result["ok"] for result in results), results
    written = [line for result in results for job in result["jobs"] for line in job["lines"]
               if line.startswith("[process")]
    assert sorted(line.split("] ")[1].split(":")[0] for line in written) == ["bare_0", "bare_0", "bare_1", "bare_1"]
    assert {line[:10] for line in written} == {"[process 0", "[process 1"}, written  # one scan each
    said = {name: proc.stderr.count(f"{scans / name}: its header gives no orientation")
            for name in ("bare_0.nii.gz", "bare_1.nii.gz")}
    assert said == {"bare_0.nii.gz": 1, "bare_1.nii.gz": 1}, proc.stderr[-3000:]
