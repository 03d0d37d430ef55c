"""The runnable examples run (with few steps and small patches)."""

import importlib.util
import json
import os
import re
import shutil
import sys
from pathlib import Path

import pytest

from processes import run_bounded  # tests/ is on sys.path (rootdir-style test imports)

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _example(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _phantoms_as_the_example_writes_them(root: Path, folders: dict[str, tuple[int, int]]) -> Path:
    """``ensure_synthetic_dataset``'s phantoms under ``root``, as an example writes them into its --out
    ({folder: (cases, seed)}, no validation case): written once for the tests that run the example in
    this process, which copy them into their --out. The example finds them whole there and keeps them
    (holds_the_phantoms compares the writer's arguments: an example changed to write others writes its
    own), as on its second run into one --out; the tests under a launch still write their own."""
    from accelerated_seg.data.synthetic import ensure_synthetic_dataset

    for folder, (cases, seed) in folders.items():
        ensure_synthetic_dataset(root / folder, num_cases=cases, num_validation=0, seed=seed)
    return root


def _copy_phantoms(phantoms: Path, out: Path) -> None:
    for folder in phantoms.iterdir():
        shutil.copytree(folder, out / folder.name)


def test_estimator_example_fits_predicts_evaluates_saves_and_reloads(tmp_path):
    """Run again as it was, it rewrote the phantoms, then was refused in the estimator's keywords
    (fit(..., resume='latest'), Segmentation(..., overwrite=True)) until the ninety-third session."""
    from accelerated_seg.config import ConfigError

    # One step (two until the ninety-eighth session, which trained and validated twice): the example
    # validates every max(1, steps // 2) steps, so the one step is validated too.
    summary = _example("estimator").main(["--out", str(tmp_path), "--steps", "1", "--patch", "32"])
    assert summary["num_cases"] == 3
    assert (tmp_path / "saved_model" / "model.safetensors").is_file()
    phantoms = (tmp_path / "data" / "dataset.json").stat().st_mtime_ns
    with pytest.raises(ConfigError, match="holds the run of an earlier invocation") as refusal:
        _example("estimator").main(["--out", str(tmp_path), "--steps", "1", "--patch", "32"])
    assert "--overwrite" in str(refusal.value) and "another --out" in str(refusal.value), refusal.value
    assert "Segmentation(" not in str(refusal.value)
    assert (tmp_path / "data" / "dataset.json").stat().st_mtime_ns == phantoms


@pytest.mark.parametrize("options, refusal", [
    (["--steps", "0"], "--steps 0: give 1 or more optimizer steps"),
    (["--patch", "0"], "--patch 0: the U-Net halves the patch 4 times"),
    (["--patch", "12"], "--patch 12: the U-Net halves the patch 4 times, and its deepest stage needs more than "
                        "one voxel, so give a multiple of 16 from 32 up (32, 48, 64, ...)"),
    (["--patch", "16"], "--patch 16: the U-Net halves the patch 4 times"),
])
def test_estimator_example_refuses_its_options_before_writing_the_phantoms(tmp_path, options, refusal):
    """--steps 0 and a --patch the U-Net cannot train on were refused after the phantoms (about 6 s), in
    the estimator's keywords (steps, block_shape, "use (32, 32, 32)"), until the ninety-third session."""
    from accelerated_seg.config import ConfigError

    with pytest.raises(ConfigError, match=re.escape(refusal)) as refused:
        _example("estimator").main(["--out", str(tmp_path), "--steps", "2", "--patch", "32", *options])
    assert "block_shape" not in str(refused.value) and "steps must be" not in str(refused.value)
    assert not list(tmp_path.iterdir())


def _tiny_kfold(tmp_path) -> list[str]:
    # 4 phantoms over 2 folds, 1 held out: the fewest that still give each fold 2 of its own to validate
    # (6 and 2 until the hundred-and-eighth session: 3 more phantoms, and more cases to predict, each run)
    return ["--out", str(tmp_path), "--folds", "2", "--cases", "4", "--test-cases", "1",
            "--data.patch_size=[16,16,16]", "--data.spacing=[2.0,2.0,2.0]", "--data.num_workers=0",
            "--model.args={channels: [4, 8, 16], strides: [2, 2], num_res_units: 1}", "--train.max_steps=2",
            "--train.val_every=2", "--train.save_every=0", "--train.progress_bar=false", "--train.trackers=none"]


@pytest.fixture(scope="module")
def kfold_phantoms(tmp_path_factory):
    """_tiny_kfold's phantoms: its --cases for the folds (seed 0), its --test-cases held out (seed 1)."""
    return _phantoms_as_the_example_writes_them(tmp_path_factory.mktemp("kfold_phantoms"),
                                                {"data": (4, 0), "test": (1, 1)})


def test_kfold_example_trains_each_fold_on_its_own_split_and_scores_the_ensemble(tmp_path, kfold_phantoms):
    """Before, phantoms written with no validation case listed an empty "validation", a split that won
    over data.num_folds, and the first fold stopped: "the dataset has no validation cases". Trained on
    regions, the held-out cases are scored on them, as the folds validated (until the seventy-third
    session on the phantoms' classes, from the test set's dataset.json). Run again into the same --out, it
    was told to "train into another --train.output_dir", which it refuses, until the ninety-third session."""
    from accelerated_seg.config import ConfigError

    regions = ["--data.regions={findings: [1, 2], lesion: [2]}", "--data.region_order=[1, 2]"]
    _copy_phantoms(kfold_phantoms, tmp_path)
    dice = _example("kfold_ensemble").main([*_tiny_kfold(tmp_path), *regions])
    assert sorted(dice) == ["ensemble", "fold0", "fold1"] and all(0 <= d <= 1 for d in dice.values())
    scored = json.loads((tmp_path / "evaluation" / "ensemble" / "summary.json").read_text())["classes"]
    assert list(scored.values()) == ["findings", "lesion"]
    held_out = [json.loads((tmp_path / f"fold{k}" / "run_info.json").read_text())["split"]["validation"]
                for k in range(2)]
    assert held_out[0] and held_out[1] and not set(held_out[0]) & set(held_out[1])  # each fold its own share
    assert sorted(held_out[0] + held_out[1]) == [f"case_{i:03d}" for i in range(4)]
    assert len(list((tmp_path / "predictions" / "ensemble").glob("*.nii.gz"))) == 1
    assert (tmp_path / "cache").is_dir()  # the preprocessing cache under --out, not in ~/.cache
    # Run again as it was: told of the example's --out, not of --train.output_dir, which it refuses
    with pytest.raises(ConfigError, match="already holds a run") as refusal:
        _example("kfold_ensemble").main([*_tiny_kfold(tmp_path), *regions])
    assert "another --out" in str(refusal.value) and "--train.output_dir" not in str(refusal.value)


def test_kfold_example_continues_an_interrupted_run_and_ensembles_without_validation(tmp_path, kfold_phantoms):
    """Seventy-first session's probe: --train.resume=latest (what an interrupted fold says to run) failed
    at the first fold without a checkpoint; without validation the example printed "best validation
    mean Dice -1.0000 at step -1" and died on a best_model no fold had written; each run rewrote the
    phantoms, so the preprocessing cache was built again."""
    example = _example("kfold_ensemble")
    tiny = [a for a in _tiny_kfold(tmp_path) if not a.startswith("--train.val_every")] + ["--train.val_every=0"]
    _copy_phantoms(kfold_phantoms, tmp_path)
    copied = (tmp_path / "data" / "dataset.json").stat().st_mtime_ns
    assert sorted(example.main(tiny)) == ["ensemble", "fold0", "fold1"]
    assert (tmp_path / "predictions" / "ensemble").is_dir() and not (tmp_path / "fold0" / "best_model").exists()
    phantoms = (tmp_path / "data" / "dataset.json").stat().st_mtime_ns
    assert phantoms == copied  # the copied phantoms kept, not written again (the fixture's point)
    shutil.rmtree(tmp_path / "fold1" / "checkpoints")  # as if stopped in fold 1 before its first checkpoint
    more = [a.replace("--train.max_steps=2", "--train.max_steps=3") for a in tiny]
    assert sorted(example.main([*more, "--train.resume=latest"])) == ["ensemble", "fold0", "fold1"]
    steps = [json.loads((tmp_path / f"fold{k}" / "summary.json").read_text())["step"] for k in range(2)]
    assert steps == [3, 3] and (tmp_path / "data" / "dataset.json").stat().st_mtime_ns == phantoms


@pytest.mark.parametrize("override, refusal", [
    ("--train.output_dir=elsewhere", "each fold trains in a folder of its own under --out"),
    ("--train.resume=fold0/checkpoints/step_2", "each fold resumes from a checkpoint of its own"),
])
def test_kfold_example_refuses_settings_that_every_fold_cannot_share(tmp_path, override, refusal):
    from accelerated_seg.config import ConfigError

    with pytest.raises(ConfigError, match=refusal):
        _example("kfold_ensemble").main([*_tiny_kfold(tmp_path), override])
    assert not list(tmp_path.iterdir())  # refused before the phantoms were written


@pytest.mark.parametrize("options, refusal", [
    (["--folds", "0"], "--folds 0: k-fold cross-validation needs 2 or more folds"),
    (["--folds", "1"], "--folds 1: k-fold cross-validation needs 2 or more folds"),
    (["--folds", "3", "--cases", "2"], "--cases 2 is fewer than --folds 3"),
    (["--test-cases", "0"], "--test-cases 0: the ensemble is scored on held-out phantoms"),
    (["--config", "missing.yaml"], "config file missing.yaml does not exist"),
    (["--train.max_stepz=2"], "unknown setting 'train.max_stepz'"),
])
def test_kfold_example_refuses_counts_and_settings_before_writing_the_phantoms(tmp_path, options, refusal):
    """--folds 0 ended in an IndexError traceback after the phantoms; --folds 1, fewer cases than folds and
    --test-cases 0 were refused by train or the phantoms' writer in words that named data.num_folds, "use 0"
    (the IndexError) or "synth --cases", settings this example takes by other flags; a wrong --config or a
    mistyped override waited for 24 phantoms first (17 s; an audit of the examples)."""
    from accelerated_seg.config import ConfigError

    with pytest.raises(ConfigError, match=re.escape(refusal)):
        _example("kfold_ensemble").main([*_tiny_kfold(tmp_path), *options])
    assert not list(tmp_path.iterdir())


@pytest.fixture(scope="module")
def fit_your_own_phantoms(tmp_path_factory):
    """fit_your_own.py's 8 phantoms (seed 0), for the tests that need not watch it write them."""
    return _phantoms_as_the_example_writes_them(tmp_path_factory.mktemp("fit_your_own_phantoms"), {"data": (8, 0)})


def test_fit_your_own_example_trains_a_monai_pipeline_and_resumes(tmp_path, fit_your_own_phantoms):
    """Run again as it was, it was refused in fit's keywords (resume='latest', another checkpoint_dir,
    overwrite=True), after the phantoms, until the ninety-third session: now in the example's flags."""
    from accelerated_seg.config import ConfigError

    _copy_phantoms(fit_your_own_phantoms, tmp_path)
    copied = {path.name: path.stat().st_mtime_ns for path in (tmp_path / "data" / "imagesTr").iterdir()}
    first = _example("fit_your_own").main(["--out", str(tmp_path), "--epochs", "1", "--patch", "32"])
    assert first["step"] == 4 and Path(first["model"]).is_file()  # 8 cases x 1 batch each, 2 per step
    with pytest.raises(ConfigError, match="already holds a run") as refusal:
        _example("fit_your_own").main(["--out", str(tmp_path), "--epochs", "1", "--patch", "32"])
    assert all(way in str(refusal.value) for way in ("--resume=latest", "another --out", "--overwrite")), refusal.value
    assert "checkpoint_dir" not in str(refusal.value) and "overwrite=True" not in str(refusal.value)
    phantoms = {path.name: path.stat().st_mtime_ns for path in (tmp_path / "data" / "imagesTr").iterdir()}
    assert phantoms == copied  # the copied phantoms kept, not written again (the fixture's point)
    again = _example("fit_your_own").main(["--out", str(tmp_path), "--epochs", "2", "--patch", "32",
                                           "--resume", "latest"])
    assert again["step"] == 8
    # not written again (each run rewrote them until the ninety-third session)
    assert phantoms == {path.name: path.stat().st_mtime_ns for path in (tmp_path / "data" / "imagesTr").iterdir()}


@pytest.mark.parametrize("options, refusal", [
    (["--epochs", "0"], "--epochs 0: give 1 or more passes"),
    (["--patch", "0"], "--patch 0: SegResNet halves the patch 3 times"),
    (["--patch", "12"], "--patch 12: SegResNet halves the patch 3 times"),
    (["--resume", "latest"], "resume=latest but"),
])
def test_fit_your_own_example_refuses_its_options_before_writing_the_phantoms(tmp_path, options, refusal):
    """--patch 12 (or 0, the whole scan) trained until SegResNet's skip connection met tensors of two
    sizes, a RuntimeError traceback; --epochs 0 and a --resume latest with nothing to resume were refused
    after the phantoms, in fit's keywords (max_epochs, "drop resume"; an audit of the examples)."""
    from accelerated_seg.config import ConfigError

    with pytest.raises(ConfigError, match=re.escape(refusal)):
        _example("fit_your_own").main(["--out", str(tmp_path), "--epochs", "1", "--patch", "32", *options])
    assert not list(tmp_path.iterdir())


@pytest.mark.distributed
def test_kfold_example_under_two_processes_trains_one_fold_after_another(tmp_path):
    """Two runs in one launched process: accelerate's end_training destroyed the process group, and
    the second fold stopped in its first collective ("Default process group has not been
    initialized"); a run now keeps the group for the next one (preparation.end_run)."""
    from test_distributed import ROOT, _free_port

    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1",
           "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "2", "--mixed_precision", "no",
           "--main_process_port", str(_free_port()), "--multi_gpu", "--num_machines", "1", "--dynamo_backend", "no",
           str(EXAMPLES / "kfold_ensemble.py"), *_tiny_kfold(tmp_path)]
    proc = run_bounded(cmd, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.count("DDP (MULTI_CPU) on 2 process(es)") == 2  # each fold, said by the main process
    assert "fold 1: best validation mean Dice" in proc.stdout and "ensemble: mean Dice" in proc.stdout
    assert json.loads((tmp_path / "evaluation" / "dice.json").read_text()).keys() == {"fold0", "fold1", "ensemble"}


@pytest.mark.distributed
@pytest.mark.parametrize("strategy", ["ddp", "fsdp2"])
def test_fit_your_own_example_under_two_processes(tmp_path, strategy, request):
    """2-process DDP, and the shipped fsdp2.yaml really sharded (benchmarks/fsdp_on_cpu.py): the
    user's own SegResNet, optimizer and loader through fit(). Under FSDP2 this failed in prepare
    until wrapping.fsdp2_valid_units_only (SegResNet's down_layers is an nn.ModuleList). The DDP
    launch writes the phantoms (its main process, the other waiting); FSDP2's starts from copies."""
    from test_distributed import ROOT, _free_port

    if strategy == "fsdp2":
        _copy_phantoms(request.getfixturevalue("fit_your_own_phantoms"), tmp_path)

    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1",
           "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    launch = [sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "2", "--mixed_precision", "no",
              "--main_process_port", str(_free_port())]
    if strategy == "ddp":
        launch += ["--multi_gpu", "--num_machines", "1", "--dynamo_backend", "no"]
    else:  # fit_your_own's SegResNet: its down_layers (1.1 M parameters) is above fsdp2.yaml's 1 M
        launch += ["--config_file", str(ROOT / "configs" / "accelerate" / "fsdp2.yaml"),
                   str(ROOT / "benchmarks" / "fsdp_on_cpu.py")]
    cmd = [*launch, str(EXAMPLES / "fit_your_own.py"), "--out", str(tmp_path), "--epochs", "1", "--patch", "32"]
    proc = run_bounded(cmd, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    # 8 cases over 2 ranks: 4 batches per rank, 2 per optimizer step; printed by the main process only.
    assert proc.stdout.count("optimizer steps") == 1 and "2 optimizer steps" in proc.stdout
    expected = {"ddp": "DDP (MULTI_CPU) on 2 process(es)", "fsdp2": "FSDP (FSDP) on 2 process(es)"}[strategy]
    assert expected in proc.stdout
    assert "Setting accelerator to CPU" not in proc.stdout + proc.stderr  # deepspeed's, at unwrap_model
    assert (tmp_path / "run" / "model" / "model.safetensors").is_file()


@pytest.mark.distributed
def test_estimator_example_under_two_processes(tmp_path):
    """The estimator end to end under accelerate launch, as its docstring offers: every rank wrote the
    phantoms (FileNotFoundError of the other's '.phantoms_being_written'), and every rank rebuilt
    evaluate's folders, deleting one another's cases, until the sixty-ninth session."""
    from test_distributed import ROOT, _free_port

    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1",
           "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "2", "--mixed_precision", "no",
           "--main_process_port", str(_free_port()), "--multi_gpu", "--num_machines", "1", "--dynamo_backend", "no",
           str(EXAMPLES / "estimator.py"), "--out", str(tmp_path), "--steps", "1", "--patch", "32"]
    proc = run_bounded(cmd, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "DDP (MULTI_CPU) on 2 process(es)" in proc.stdout
    # printed once, by the main process: the evaluation of the 3 validation cases, and the reload
    assert proc.stdout.count("evaluation: mean Dice") == 1 and "over 3 case(s)" in proc.stdout
    assert proc.stdout.count("reloaded: same prediction") == 1
    summary = json.loads((tmp_path / "evaluation" / "summary.json").read_text())
    assert summary["num_cases"] == 3
    assert sorted(p.name for p in (tmp_path / "evaluation" / "predictions").glob("*.nii.gz")) == [
        f"case_{i:03d}.nii.gz" for i in (9, 10, 11)]


def test_the_kits19_experiment_reads_a_kits19_folder_through_its_own_csv_recipe(tmp_path):
    """configs/kits19_mlperf.yaml: its CSV recipe (the shell line in its header) lists a KiTS19-style
    folder, the config reads it with its labels, CT window and spacing, and its network trains on its
    128³ patches (checked on the meta device: a CPU step at 128³ belongs in a benchmark)."""
    import subprocess

    import nibabel as nib
    import numpy as np

    from accelerated_seg.config import load_config
    from accelerated_seg.data.checks import check_manifest
    from accelerated_seg.data.prepare import load_manifest, preprocess_settings
    from accelerated_seg.models import check_trainable, model_spec

    experiment = EXAMPLES.parent / "configs" / "kits19_mlperf.yaml"
    (recipe,) = [line.lstrip("# ") for line in experiment.read_text().splitlines() if line.endswith("> cases.csv")]
    kits = tmp_path / "data" / "kits19"
    rng = np.random.default_rng(0)
    affine = np.diag([0.8, 0.8, 2.5, 1.0])
    for case in range(5):  # KiTS19's layout; case 4 has no segmentation, as the challenge's test cases
        folder = kits / f"case_{case:05d}"
        folder.mkdir(parents=True)
        hu = rng.normal(40, 30, (48, 48, 16)).astype(np.float32)
        hu[:8] = -1000.0  # air
        label = np.zeros(hu.shape, np.uint8)
        label[20:30, 20:30, 4:12], label[23:27, 23:27, 6:10] = 1, 2  # kidney with a tumour inside
        nib.save(nib.Nifti1Image(hu, affine), folder / "imaging.nii.gz")
        if case < 4:
            nib.save(nib.Nifti1Image(label, affine), folder / "segmentation.nii.gz")
    subprocess.run(["bash", "-c", recipe], cwd=tmp_path, check=True)
    assert (kits / "cases.csv").read_text().splitlines()[0] == "image,label"

    cfg = load_config(experiment, [f"--data.dataset={kits / 'cases.csv'}", f"--train.output_dir={tmp_path / 'run'}"])
    manifest = load_manifest(cfg.data, cfg.train.output_dir)
    assert len(manifest.training) + len(manifest.validation) == 4
    assert manifest.labels == {0: "background", 1: "kidney", 2: "tumor"}
    assert check_manifest(manifest, max_voxels=cfg.data.max_voxels).errors == []
    settings = preprocess_settings(cfg.data, manifest)
    assert (settings.spacing, settings.normalization, settings.ct_window) == ((1.2, 1.2, 1.6), "ct", (-79.0, 304.0))
    spec = model_spec(cfg.model.name, manifest.num_channels, manifest.num_classes, cfg.data.patch_size, cfg.model.args)
    check_trainable(spec, cfg.data.patch_size, cfg.train.batch_size)


@pytest.mark.parametrize("command, status", [("check", 1), ("train", 2)])
def test_the_kits19_experiment_without_its_data_says_in_one_line_what_to_get_and_where(tmp_path, command, status):
    """Without KiTS19 on the machine, check and train said "data/kits19/cases.csv: CSV not found; check the
    data path", nothing of the data it wants, which the config's header describes (an audit of the
    shipped configs); train said it after 5-9 s of imports and its strategy lines."""
    experiment = EXAMPLES.parent / "configs" / "kits19_mlperf.yaml"
    output = [f"--train.output_dir={tmp_path / 'run'}"] if command == "train" else []
    done = run_bounded([sys.executable, "-m", "accelerated_seg", command, "--config", str(experiment), *output],
                       cwd=tmp_path, timeout=120)
    assert done.returncode == status, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"error: {tmp_path / 'data' / 'kits19' / 'cases.csv'}: CSV not found"), line
    assert f"(data.dataset, read from the working folder {tmp_path})" in line, line
    assert "github.com/neheller/kits19" in line and line.endswith("> cases.csv"), line
    assert "strategy:" not in done.stdout and not (tmp_path / "run").exists()


def test_every_examples_help_shows_its_usage_and_says_what_each_option_is_for():
    """--help of examples/train.py ended "The strategy comes from the accelerate config, never from this
    file:" with nothing after the colon, and neither it nor kfold_ensemble.py said that they take
    --section.key=value overrides; estimator.py's --out, --patch and --multi-gpu, fit_your_own.py's
    --out, --epochs and --patch and kfold_ensemble.py's --folds said nothing (an audit of the examples).
    One process answers them all (tests/scripts_help.py says why)."""
    scripts = [EXAMPLES / f"{name}.py" for name in ("train", "estimator", "fit_your_own", "kfold_ensemble")]
    done = run_bounded([sys.executable, str(Path(__file__).with_name("scripts_help.py")), *map(str, scripts)],
                       cwd=EXAMPLES.parent, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    for script, answer in json.loads(done.stdout).items():
        assert answer["exit"] == 0, answer["error"]
        lines = answer["stdout"].splitlines()
        assert "accelerate launch" in answer["stdout"] or "python examples/" in answer["stdout"], script
        for i, line in enumerate(lines[:lines.index("options:")]):  # a colon followed by what it announces
            if line.endswith(":"):
                assert any(later.startswith("    ") for later in lines[i + 1:lines.index("options:")]), line
        # a docstring's "\" had joined two lines of a command into one with a run of spaces
        assert "         --" not in "\n".join(lines[:lines.index("options:")]), script
        options = lines[next(i for i, line in enumerate(lines) if line.startswith("options:")) + 1:]
        for i, line in enumerate(options):  # "  --out OUT" alone, the next line another option: no help
            if line.startswith("  -") and "  " not in line.strip():
                assert i + 1 < len(options) and options[i + 1].startswith(" " * 8), f"{script}: {line}"
    for name in ("train", "kfold_ensemble"):
        assert "--section.key=value" in json.loads(done.stdout)[str(EXAMPLES / f"{name}.py")]["stdout"], name
    # where each writes: train.py named a PNG report but not its folder, nor the run's; kfold_ensemble.py's
    # --out left out its evaluation (dice.json) and test phantoms (ninety-third session)
    said = {name: " ".join(json.loads(done.stdout)[str(EXAMPLES / f"{name}.py")]["stdout"].split())
            for name in ("train", "kfold_ensemble")}
    assert "train.output_dir" in said["train"] and "report.png" in said["train"], said["train"]
    assert all(folder in said["kfold_ensemble"] for folder in ("test/", "evaluation/", "dice.json")), said



@pytest.mark.distributed
@pytest.mark.parametrize("example, tiny", [
    ("estimator", ["--steps", "2", "--patch", "32"]), ("fit_your_own", ["--epochs", "1", "--patch", "32"]),
    ("kfold_ensemble", ["--folds", "2", "--cases", "6", "--test-cases", "2", "--train.max_steps=2"])])
def test_the_examples_under_a_gpu_launch_without_gpus_refuse_before_writing(tmp_path, example, tiny):
    """`accelerate launch --config_file configs/accelerate/ddp.yaml examples/estimator.py` (as its
    docstring offers; fit_your_own.py and kfold_ensemble.py likewise) on a machine without GPUs and
    without ACCELERATE_USE_CPU gave 2 lone processes that both wrote the phantoms, and one died of the
    other's (FileNotFoundError: .phantoms_being_written): a traceback, where examples/train.py says in
    one line which launch works (an audit of the examples)."""
    import torch

    from test_distributed import ROOT, _free_port

    if torch.cuda.is_available():
        pytest.skip("with GPUs the launch joins its processes")
    env = {key: value for key, value in os.environ.items() if key != "ACCELERATE_USE_CPU"}
    env.update(OMP_NUM_THREADS="1", PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    cmd = [sys.executable, "-m", "accelerate.commands.launch", "--config_file",
           str(ROOT / "configs" / "accelerate" / "ddp.yaml"), "--main_process_port", str(_free_port()),
           str(EXAMPLES / f"{example}.py"), "--out", str(tmp_path / "out"), *tiny]
    proc = run_bounded(cmd, env=env, timeout=300)
    assert proc.returncode != 0 and "FileNotFoundError" not in proc.stderr, proc.stderr[-3000:]
    refusal = "error: 2 processes were launched but accelerate joined 1"
    assert refusal in proc.stderr and "ACCELERATE_USE_CPU=true" in proc.stderr, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr.split("ChildFailedError")[0].split(refusal)[0], proc.stderr[-3000:]
    assert not (tmp_path / "out").exists()


def test_estimator_example_offers_and_takes_resume_latest_for_a_stopped_run(tmp_path):
    """A stopped run of examples/estimator.py (a job's SIGTERM, Ctrl-C) could not be resumed by the script: run
    again, it was refused with --overwrite (which deletes it) or another --out as the only ways (review r121 of
    h141's walk). Now the refusal offers --resume latest where the run holds a checkpoint, and --resume latest with
    none to continue from is refused, both before the phantoms."""
    from accelerated_seg.config import ConfigError

    with pytest.raises(ConfigError, match="holds no checkpoint to continue from") as refused:
        _example("estimator").main(["--out", str(tmp_path), "--steps", "2", "--patch", "32", "--resume", "latest"])
    assert "resume='latest'" not in str(refused.value)
    (tmp_path / "run" / "checkpoints" / "step_2").mkdir(parents=True)
    with pytest.raises(ConfigError, match="holds the run of an earlier invocation") as refused:
        _example("estimator").main(["--out", str(tmp_path), "--steps", "2", "--patch", "32"])
    assert "give --resume latest to continue it, --overwrite to replace it" in str(refused.value), refused.value
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]  # no phantoms written
    (tmp_path / "run" / "model").mkdir()  # a run ended whole: its export of step 2; continued only for more --steps
    (tmp_path / "run" / "model" / "model.safetensors").write_bytes(b"")
    (tmp_path / "run" / "model" / "config.json").write_text(json.dumps({"model": {}, "step": 2}))
    with pytest.raises(ConfigError, match="holds the run of an earlier invocation") as refused:
        _example("estimator").main(["--out", str(tmp_path), "--steps", "2", "--patch", "32"])
    assert "give --resume latest and more --steps to train it further, --overwrite" in str(refused.value), refused.value
    # resumed for more steps since and stopped after step 3, its end's export still there: --resume goes on with it
    # (until the hundred-and-twenty-eighth session it was taken for a run that ended, --resume unsaid)
    (tmp_path / "run" / "checkpoints" / "step_3").mkdir()
    with pytest.raises(ConfigError, match="holds the run of an earlier invocation") as refused:
        _example("estimator").main(["--out", str(tmp_path), "--steps", "4", "--patch", "32"])
    assert "give --resume latest to continue it, --overwrite to replace it" in str(refused.value), refused.value
