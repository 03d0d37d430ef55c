"""Validation during training: evaluate's metrics, each case once, equal forward calls when sharded."""

import contextlib
import json
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from accelerate.utils import DistributedType

import accelerated_seg.validation as validation_module
from accelerated_seg.evaluate import case_metrics
from accelerated_seg.inference import sliding_window_logits
from accelerated_seg.train import train
from accelerated_seg.validation import validate, validation_means


class _Table(list):
    """The columns of the cache table that VolumeDataset and validate read."""

    def __getitem__(self, key):
        return [row[key] for row in self] if isinstance(key, str) else list.__getitem__(self, key)


def _volumes(tmp_path, shapes):
    from accelerated_seg.data.loader import VolumeDataset

    rng = np.random.default_rng(0)
    rows = []
    for i, shape in enumerate(shapes):
        np.save(tmp_path / f"image{i}.npy", rng.normal(size=(1, *shape)).astype(np.float32))
        np.save(tmp_path / f"label{i}.npy", rng.integers(0, 3, size=shape).astype(np.uint8))
        rows.append({"image": str(tmp_path / f"image{i}.npy"), "label": str(tmp_path / f"label{i}.npy"),
                     "shape": list(shape), "spacing": [1.0, 1.0, 2.0]})
    return VolumeDataset(_Table(rows))


class _Rank:
    """The parts of an Accelerator that ``validate`` uses, for rank ``index`` of ``size``."""

    def __init__(self, index, size, sharded):
        self.process_index, self.num_processes, self.device = index, size, torch.device("cpu")
        self.distributed_type = DistributedType.FSDP if sharded else DistributedType.MULTI_CPU
        self.state = SimpleNamespace(deepspeed_plugin=None)

    def autocast(self):
        return contextlib.nullcontext()

    def unwrap_model(self, model):
        return model


class _CountingNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv = torch.nn.Conv3d(1, 3, 3, padding=1)
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return self.conv(x)


@pytest.mark.parametrize("sharded", [False, True])
def test_each_rank_scores_its_cases_once_and_sharded_ranks_call_forward_equally(tmp_path, monkeypatch, sharded):
    # Unequal volumes: rank 0 gets the big one, rank 1 the two small ones (balanced by voxels).
    val_set = _volumes(tmp_path, [(40, 40, 24), (16, 16, 16), (20, 16, 16)])
    gathered = []
    monkeypatch.setattr(validation_module, "gather_object", lambda mine: gathered.extend(mine) or list(mine))
    calls = []
    for rank in range(2):
        net = _CountingNet()
        validate(_Rank(rank, 2, sharded), net, val_set, (16, 16, 16), 3, sw_batch_size=2)
        calls.append(net.calls)
    assert sorted(i for i, _ in gathered) == [0, 1, 2]  # every case scored by exactly one rank
    if sharded:  # FSDP/ZeRO-3 gather shards in every forward: the idle rank must keep up
        assert calls[0] == calls[1]
    else:
        assert calls[0] != calls[1]

    # The scores are evaluate's case_metrics of the sliding-window prediction.
    net = _CountingNet()
    case = val_set[0]
    pred = sliding_window_logits(net, case["image"][None], (16, 16, 16), 2, 0.25).argmax(1)[0]
    expected = case_metrics(pred, case["label"][0], 3, (1.0, 1.0, 2.0), distances=False)
    (first,) = [values for i, values in gathered if i == 0]
    assert first == [[expected[1]["dice"], expected[2]["dice"]], [0.0, 0.0]]  # then: neither class in neither file


def test_validation_with_distances_logs_evaluates_metrics(tiny_config, tmp_path):
    out = tmp_path / "run"
    train(tiny_config(out, train__max_steps=2, train__val_every=2, train__val_distances="true"))
    (entry,) = json.loads((out / "metrics.json").read_text())["validation"]
    for name in ("ventricles", "lesion"):
        assert 0 <= entry[f"dice_{name}"] <= 1 and 0 <= entry[f"surface_dice_{name}"] <= 1
        assert entry[f"hd95_mm_{name}"] is None or entry[f"hd95_mm_{name}"] >= 0


def test_a_class_found_in_no_validation_case_is_logged_with_its_counts(tiny_config, tmp_path, monkeypatch, capsys):
    """Early in a run a network may predict background alone, so every foreground class's HD95 is inf
    (one side empty) in every case. That validation stopped the run with a TypeError (None formatted
    as a number) before metrics.json or best_model/ were written (eighty-third session's audit)."""
    from conftest import tensorboard_run

    monkeypatch.setattr(validation_module, "class_map",
                        lambda logits, dim: torch.zeros(logits.shape[:dim] + logits.shape[dim + 1:], dtype=torch.long))
    out = tmp_path / "run"
    train(tiny_config(out, train__max_steps=2, train__val_every=2, train__val_distances="true",
                      train__trackers="tensorboard"))
    (entry,) = json.loads((out / "metrics.json").read_text())["validation"]
    for name in ("ventricles", "lesion"):
        labelled = entry["cases"] - entry[f"n_both_empty_{name}"]
        assert labelled > 0 and entry[f"hd95_mm_n_inf_{name}"] == labelled
        assert entry[f"hd95_mm_{name}"] is None and entry[f"dice_{name}"] == 0
    assert (out / "best_model" / "model.safetensors").is_file()
    printed = capsys.readouterr().out
    assert "hd95_mm_lesion=n/a" in printed
    counts = entry["hd95_mm_n_inf_ventricles"]
    assert f"of {entry['cases']} case(s): ventricles: {counts} with one side empty (HD95 inf, not averaged)" in printed
    scalars = set(tensorboard_run(out / "train").PluginTagToContent("scalars"))
    assert {"val/dice_lesion", "val/surface_dice_lesion"} <= scalars and "val/hd95_mm_lesion" not in scalars


class _Oracle(torch.nn.Module):
    """Predicts the class its image holds at each voxel: validation then scores a prediction chosen by the test."""

    def forward(self, x):
        return 10.0 * torch.nn.functional.one_hot(x[:, 0].round().long(), 3).permute(0, 4, 1, 2, 3).float()


def test_validation_scores_on_the_cases_spacing_with_evaluates_conventions(tmp_path, monkeypatch):
    """A box predicted one slice too high on 0.7 x 0.7 x 5 mm voxels: HD95 5 mm, as evaluate measures it (the
    slice thickness, not one voxel); class 2 in neither file: Dice 1, HD95 0 mm, surface Dice 1, said both empty."""
    from accelerated_seg.data.loader import VolumeDataset

    label = np.zeros((12, 12, 8), np.uint8)
    label[2:10, 2:10, 2:5] = 1
    pred = np.zeros_like(label)
    pred[2:10, 2:10, 3:6] = 1
    np.save(tmp_path / "image.npy", pred[None].astype(np.float32))
    np.save(tmp_path / "label.npy", label)
    val_set = VolumeDataset(_Table([{"image": str(tmp_path / "image.npy"), "label": str(tmp_path / "label.npy"),
                                     "shape": list(label.shape), "spacing": [0.7, 0.7, 5.0]}]))
    monkeypatch.setattr(validation_module, "gather_object", list)
    scores = validate(_Rank(0, 1, False), _Oracle(), val_set, (12, 12, 8), 3, distances=True, tolerance_mm=1.0)
    expected = case_metrics(pred, label, 3, (0.7, 0.7, 5.0), tolerance_mm=1.0)
    assert scores["hd95_mm"].tolist() == [[5.0, 0.0]] and scores["dice"].tolist() == [[pytest.approx(2 / 3), 1.0]]
    assert scores["surface_dice"].tolist() == [[expected[1]["surface_dice"], 1.0]] and expected[1]["hd95_mm"] == 5.0
    assert scores["both_empty"].tolist() == [[False, True]]
    # one voxel along x is 0.7 mm as written, not MONAI's float32 0.699999988079071 (ninety-fourth session)
    np.save(tmp_path / "image.npy", np.roll(label, 1, axis=0)[None].astype(np.float32))
    along_x = validate(_Rank(0, 1, False), _Oracle(), val_set, (12, 12, 8), 3, distances=True, tolerance_mm=1.0)
    assert along_x["hd95_mm"].tolist() == [[0.7, 0.0]]


def test_validation_means_are_exact_and_leave_out_what_evaluate_leaves_out():
    """metrics.json's means: three cases of HD95 0.7 mm average 0.7 (numpy's sum read 0.6999999999999998); HD95 over
    the finite cases, None where there is none (a class missed in every case); surface Dice without the NaN of a
    case annotated in part."""
    inf, nan = float("inf"), float("nan")
    scores = {"dice": np.array([[0.7, 0.0], [0.7, 0.0], [0.7, 1.0]]),
              "hd95_mm": np.array([[0.7, inf], [0.7, inf], [nan, 0.0]]),
              "surface_dice": np.array([[0.1, 0.0], [0.2, 0.0], [nan, 1.0]])}
    mean, per_class = validation_means(scores, ["ball", "lesion"])
    assert mean == pytest.approx(3.1 / 6, rel=1e-15) and per_class == {
        "dice_ball": 0.7, "dice_lesion": pytest.approx(1 / 3, rel=1e-15), "hd95_mm_ball": 0.7, "hd95_mm_lesion": 0.0,
        "surface_dice_ball": 0.15, "surface_dice_lesion": pytest.approx(1 / 3, rel=1e-15)}
    assert validation_means({"dice": scores["dice"], "hd95_mm": np.full((3, 2), inf)}, ["ball", "lesion"])[1][
        "hd95_mm_lesion"] is None
