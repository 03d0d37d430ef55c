"""docs/data.md's examples run as written: its Decathlon and nnU-Net dataset.json blocks, its CSV block and its
from_pairs block, each on tiny 16^3 cases written where the block names them, read by `accelerated-seg check` (or
the block's own code) and what they print held to what the page says. Nothing ran them before the
hundred-and-twenty-fourth session's helper h133, whose walk (benchmarks/results/second_new_user_walk_2026-12-07/)
found the Decathlon block's `"validation": []` a split of no validation case, which training refuses, and the page
silent on it beside the block."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from accelerated_seg.cli import main

PAGE = (Path(__file__).resolve().parents[1] / "docs" / "data.md").read_text(encoding="utf-8")


def _block(after: str, language: str = "") -> str:
    """The first fenced block of ``language`` after the heading ``after``."""
    section = PAGE.split(after, 1)[1]
    return re.search(rf"```{language}\n(.*?)```", section, re.S).group(1)


def _nifti(path: Path, label: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    array = np.zeros((16, 16, 16), np.uint8) if label else np.random.default_rng(0).normal(size=(16, 16, 16))
    if label:
        array[4:10, 4:10, 4:10] = 1
    nib.save(nib.Nifti1Image(array.astype(np.uint8 if label else np.float32), np.eye(4)), str(path))


def test_the_decathlon_block_checks_as_a_split_of_no_validation_case_and_the_page_says_training_refuses_it(
        tmp_path, capsys):
    declared = json.loads(_block("### Medical Segmentation Decathlon", "json"))
    (tmp_path / "dataset.json").write_text(json.dumps(declared))
    for entry in declared["training"]:
        _nifti(tmp_path / entry["image"])
        _nifti(tmp_path / entry["label"], label=True)
    assert main(["check", str(tmp_path)]) == 0
    said = capsys.readouterr().out
    assert ("channels: 0 MRI; classes: 0 background, 1 tumour; split given (dataset.json 'validation'): 1 training, "
            "0 validation\n") in said
    beside = " ".join(PAGE.split("### Medical Segmentation Decathlon", 1)[1].split("```", 4)[4].split())
    assert beside.startswith("- `\"validation\": []`, as above, is a split the dataset gives with no validation case")
    quoted = re.search(r"\(`check`: `([^`]*)`\)", beside).group(1)  # the line check says of the block, as quoted
    assert f"; {quoted}\n" in said
    assert "training on it stops before any work unless `train.val_every=0`" in beside
    refusal = re.search(r"unless `train.val_every=0` \(`([^`]*) \.\.\.`\)", beside).group(1)
    config = tmp_path / "run.yaml"
    config.write_text(f"data:\n  dataset: {tmp_path / 'dataset.json'}\n  patch_size: [16, 16, 16]\n"
                      f"train:\n  output_dir: {tmp_path / 'run'}\n  val_every: 100\n")
    with pytest.raises(SystemExit, match="^2$"):  # train ends on the first refusal, as a launched rank does
        main(["train", "--config", str(config)])
    assert f"error: {refusal}" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_the_nnunet_block_checks_with_its_channels_and_classes(tmp_path, capsys):
    declared = json.loads(_block("### nnU-Net v2 raw dataset", "json"))
    for case in ("case_a", "case_b"):  # numTraining 2
        for channel in declared["channel_names"]:
            _nifti(tmp_path / "imagesTr" / f"{case}_{int(channel):04d}{declared['file_ending']}")
        _nifti(tmp_path / "labelsTr" / f"{case}{declared['file_ending']}", label=True)
    (tmp_path / "dataset.json").write_text(json.dumps(declared))
    assert main(["check", str(tmp_path)]) == 0
    assert "channels: 0 T1, 1 T2; classes: 0 background, 1 tumor; split fraction 0.2 (seed 0): 1 training, " \
           "1 validation\n2 case(s), 0 error(s), 0 warning(s)\n" in capsys.readouterr().out


def test_the_csv_block_checks_its_split_column_and_passes_over_the_test_row(tmp_path, capsys):
    text = _block("### CSV")
    (tmp_path / "cases.csv").write_text(text)
    for row in text.splitlines()[1:]:
        image_0, image_1, label = row.split(",")[:3]
        _nifti(tmp_path / image_0)
        _nifti(tmp_path / image_1)
        if label:
            _nifti(tmp_path / label, label=True)
    assert main(["check", str(tmp_path / "cases.csv"), "--labels", "{0: background, 1: liver}"]) == 0
    assert "channels: 0, 1 (none named); classes: 0 background, 1 liver; split given (CSV 'split' column): 1 " \
           "training, 1 validation\n2 case(s), 0 error(s), 0 warning(s)\n" in capsys.readouterr().out


def test_the_pairs_block_runs_as_written_under_its_root(tmp_path):
    code = _block("### Pairs (Python)", "python")
    assert '"/data/study"' in code
    for case in "abc":
        for channel in ("t1", "t2"):
            _nifti(tmp_path / f"{case}_{channel}.nii.gz")
        _nifti(tmp_path / f"{case}_seg.nii.gz", label=True)
    names: dict = {}
    exec(code.replace('"/data/study"', repr(str(tmp_path))), names)
    manifest = names["manifest"]
    assert (len(manifest.training), len(manifest.validation), manifest.labels) == (2, 1, {0: "background",
                                                                                          1: "tumour"})
    assert manifest.training[0].images == (tmp_path / "a_t1.nii.gz", tmp_path / "a_t2.nii.gz")
    assert manifest.source_format == "pairs" and manifest.source_file is None
