"""docs/inference.md's options, from "Test-time augmentation" to "Speed", held to the code where no test held them: its
TTA table's passes, the Python block's three calls run as written (with the folders it names made), the refusals of
its Python table in the words it quotes, what --continue's digest takes and leaves out, the copy that keeps its time
and another model, and the ensembles' coarsest median. The hundred-and-twenty-fifth session's helper h137 walked
these sections as a new user (benchmarks/results/fifth_new_user_walk_2026-12-07/): on a CPU a map predicted with
--no-transforms-on-device held the same voxels as the default's but another digest, so each one's --continue
predicted the other's again, where the page says the option changes nothing there."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest
import torch

from accelerated_seg.data.synthetic import write_synthetic_dataset
from accelerated_seg.inference import predict_cases, predict_file
from conftest import made_once_for_the_test_processes, tiny_overrides  # tests/ is on sys.path

PAGE = (Path(__file__).resolve().parents[1] / "docs" / "inference.md").read_text(encoding="utf-8")


def _section(heading: str) -> str:
    return PAGE.split(f"\n### {heading}", 1)[1].split("\n### ", 1)[0]


def _one_line(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """Two tiny models trained a few steps on the same phantoms with other seeds (two "folds"), and two scans of
    another seed: their paths, made once for both test processes of `pytest -n 2`."""
    def make():
        from accelerated_seg.config import load_config
        from accelerated_seg.train import train

        root = tmp_path_factory.mktemp("inference_md_models")
        dataset = write_synthetic_dataset(root / "data", num_cases=4, num_validation=1, size_mm=(40.0, 40.0, 32.0),
                                          spacing_mm=2.0)
        for seed in (0, 1):
            train(load_config(None, tiny_overrides(dataset, root / f"fold{seed}", train__max_steps=2,
                                                   train__val_every=0, train__seed=seed)))
        write_synthetic_dataset(root / "test", num_cases=2, num_validation=0, seed=1, size_mm=(40.0, 40.0, 32.0),
                                spacing_mm=2.0)
        return {"fold0": str(root / "fold0" / "model"), "fold1": str(root / "fold1" / "model"),
                "scans": str(root / "test" / "imagesTr")}

    return {name: Path(path) for name, path in made_once_for_the_test_processes(
        tmp_path_factory, "inference_md_options_models", make).items()}


def test_the_tta_table_gives_the_passes_mirror_axes_runs():
    from accelerated_seg.predict_options import mirror_axes

    rows = re.findall(r"^\| (.+?) \| (\d+)", _section("Test-time augmentation (`--tta`)"), flags=re.M)
    modes = {"(none) / `--tta none`": "none", "`--tta axes`": "axes", "`--tta` / `--tta all`": "all"}
    assert [option for option, _ in rows] == list(modes)
    for option, passes in rows:
        assert len(mirror_axes(modes[option])) == int(passes), option


def test_the_python_blocks_three_calls_run_as_written(models, tmp_path, monkeypatch):
    block = re.search(r"^```python\n(.*?)^```", _section("Python"), flags=re.S | re.M)[1]
    assert block.count("predict_") >= 3 and '"output/demo/best_model"' in block
    shutil.copytree(models["fold0"], tmp_path / "output" / "demo" / "best_model")
    for k in range(5):  # the five folds: copies of the two, each its own member
        shutil.copytree(models[f"fold{k % 2}"], tmp_path / "runs" / f"fold{k}" / "best_model")
    shutil.copytree(models["scans"], tmp_path / "scans")
    shutil.copy2(models["scans"] / "case_000.nii.gz", tmp_path / "scan.nii.gz")
    monkeypatch.chdir(tmp_path)
    said = []
    exec(compile(block, "docs/inference.md", "exec"), {"__name__": "__main__", "print": said.append})
    assert said == [f"[{k + 1}/2] case_00{k}: wrote predictions/case_00{k}.nii.gz" for k in range(2)]  # the first
    # the third call's ensemble, without probabilities: the first call's are deleted ("Files written", above)
    assert sorted(path.name for path in (tmp_path / "predictions").iterdir()) == ["case_000.nii.gz", "case_001.nii.gz"]
    assert nib.load(tmp_path / "scan_seg.nii.gz").shape == nib.load(tmp_path / "scan.nii.gz").shape


def _table_of_refusals() -> dict[str, str]:
    rows = re.findall(r"^\| (.+?) \| (.+?) \|$", _section("Python"), flags=re.M)
    return {given: refusal for given, refusal in rows[1:]}  # after the header


def test_the_python_tables_refusals_say_what_it_quotes(models, tmp_path, monkeypatch):
    """Each row's call made as the row says, and each quoted piece of its refusal (between `...`) said."""
    from accelerated_seg.estimator import Segmentation

    model, scans = models["fold0"], models["scans"]
    monkeypatch.chdir(tmp_path)
    shutil.copy2(scans / "case_000.nii.gz", tmp_path / "scan.nii.gz")
    shutil.copytree(scans, tmp_path / "scans")
    two = ["scans/case_000.nii.gz", "scans/case_001.nii.gz"]
    calls = {
        "a folder as `predict_file`'s `output`": lambda: predict_file(model, "scan.nii.gz", "p2d/"),
        "several files for a one-channel model (or as `Segmentation.predict`'s `x`)":
            lambda: predict_file(model, two, "two.nii.gz"),
        "a folder as `inputs` (or `x`)": lambda: predict_file(model, "scans", "x.nii.gz"),
        "an array, a nibabel image or a tensor where a path is taken":
            lambda: predict_file(model, np.zeros((8, 8, 8)), "x.nii.gz"),
        "an output over an input": lambda: predict_file(model, "scan.nii.gz", "scan.nii.gz"),
        "an `output` without `.nii.gz` (or `.nii`)": lambda: predict_file(model, "scan.nii.gz", "seg.npy"),
        "a `probabilities_output` that is a folder, or no `.nii.gz` name":
            lambda: predict_file(model, "scan.nii.gz", "scan_seg.nii.gz", probabilities_output="probs/"),
        "one file as `predict_cases`' output for several cases": lambda: predict_cases(model, ["scans/"], "o.nii.gz"),
    }
    table = _table_of_refusals()
    assert list(table) == list(calls)
    for given, call in calls.items():
        with pytest.raises(Exception) as refused:
            call()
        said = _one_line(str(refused.value))
        # the row's first quotation: its refusal, of a model whose channel the page names MRI0 (the phantoms' MRI)
        first = re.search(r"`([^`]+)`", table[given])[1].replace("(MRI0)", "(MRI)")
        for piece in filter(None, (piece.strip() for piece in first.split("..."))):
            assert piece in said, (given, piece, said)
    with pytest.raises(Exception, match="output's path too, so the probabilities would be written over the label"):
        predict_file(model, "scan.nii.gz", "p3.nii.gz", probabilities_output="p3.nii.gz")
    with pytest.raises(Exception, match="x gives 2 files") as refused:  # its own argument named
        Segmentation.load(model).predict(two)
    assert "predict_cases" in str(refused.value)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["scan.nii.gz", "scans"]  # nothing written


def test_the_continue_digest_takes_the_options_the_page_lists_and_leaves_out_the_others():
    from accelerated_seg.inference_cases import prediction_settings
    from accelerated_seg.predict_options import PredictOptions

    section = _section("Going on after a stop (`--continue`)")
    bullet = re.search(r"^- (`--overlap`.*?)\n- ", section, flags=re.S | re.M)[1]
    taken, left_out = (re.findall(r"`--([a-z-]+)`", part) for part in _one_line(bullet).split(" (", 1))
    assert taken == ["overlap", "tta", "precision", "transforms-on-device", "keep-largest"]
    assert left_out == ["sw-batch-size", "aggregate-on-cpu", "sequential", "transforms-on-device"]  # last: a CPU's
    default, changed = PredictOptions(), {"overlap": 0.25, "tta": "all", "precision": "bf16",
                                          "transforms_on_device": False, "sw_batch_size": 1, "aggregate_on_cpu": True}
    for option, value in changed.items():
        other = PredictOptions(**{option: value})
        for device, counted in ((torch.device("cuda"), taken), (torch.device("cpu"), taken[:3] + taken[4:])):
            assert (prediction_settings(other, [], device) != prediction_settings(default, [], device)) == (
                option.replace("_", "-") in counted), (option, device)
    assert prediction_settings(default, [1]) != prediction_settings(default, [])  # --keep-largest
    assert "sequential" not in prediction_settings(default, [])  # predict_cases' own argument, not an option


def _continued(model, inputs, output, **options) -> tuple[str, list[str]]:
    said = []
    predict_cases(model, inputs, output, progress=said.append, continue_prediction=True, **options)
    return said[0], [line.split("] ")[1].split(":")[0] for line in said if line.startswith("[")]


def test_continue_passes_over_a_copy_kept_with_cp_p_and_predicts_another_models_and_a_plain_copys_again(
        models, tmp_path):
    out, kept, plain = tmp_path / "predictions", tmp_path / "kept", tmp_path / "plain"
    predict_cases(models["fold0"], [models["scans"]], out)
    shutil.copytree(models["scans"], kept)  # copy2, as cp -p and rsync -a copy: the times kept
    shutil.copytree(models["scans"], plain, copy_function=shutil.copyfile)  # as cp copies: written now
    quoted = re.search(r"^    (continuing: .*)$", PAGE, flags=re.M)[1]
    line, predicted = _continued(models["fold0"], [kept], out, sw_batch_size=1, aggregate_on_cpu=True,
                                 sequential=True)
    assert line == re.sub(r"\d+ of \d+", "2 of 2", quoted.replace("; 4 to predict", "; 0 to predict"))
    assert predicted == []
    assert _continued(models["fold0"], [plain], out)[1] == ["case_000", "case_001"]
    assert _continued(models["fold1"], [plain], out)[1] == ["case_000", "case_001"]  # a case written by another model


def test_on_a_cpu_the_transforms_option_changes_no_byte_and_continue_passes_over_either_ones_maps(models, tmp_path):
    """The page: on a CPU the option changes nothing, and the two roads write the same bytes. The voxels were the
    same, but the header's digest recorded the option as given, so --continue predicted either one's maps again."""
    road = {on_device: tmp_path / f"on_device_{on_device}" for on_device in (True, False)}
    for on_device, out in road.items():
        predict_cases(models["fold0"], [models["scans"]], out, probabilities=True, transforms_on_device=on_device)
    for name in ("case_000.nii.gz", "case_000_probs.nii.gz", "case_001.nii.gz"):
        assert (road[True] / name).read_bytes() == (road[False] / name).read_bytes(), name
    for on_device, out in road.items():
        assert _continued(models["fold0"], [models["scans"]], out, probabilities=True,
                          transforms_on_device=not on_device)[1] == []


def test_the_ensembles_coarsest_median_is_the_pages_example():
    from accelerated_seg.ensemble import _cases_median

    example = re.search(r"\(`(\[[^`]*\])` and `(\[[^`]*\])` give (\d+) x (\d+) x (\d+)\)",
                        _one_line(_section("Ensembles (`--model` more than once)")))
    members = [(None, {"cases_median_spacing": eval(example[k])}) for k in (1, 2)]  # noqa: S307 - the page's lists
    assert _cases_median(members) == [float(example[k]) for k in (3, 4, 5)]
