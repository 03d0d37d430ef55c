"""Settings given a value that the others leave without effect are said, in training and in check."""

from accelerated_seg.config import load_config
from accelerated_seg.train import train
from accelerated_seg.unused_settings import unused_settings_warnings


def said_of(overrides: list[str], normalization: str | None = None) -> list[str]:
    """The settings each warning names (what precedes "=")."""
    warnings = unused_settings_warnings(load_config(None, overrides), normalization)
    return [warning.removeprefix("warning: ").split("=")[0] for warning in warnings]


def test_the_defaults_and_settings_in_use_are_not_said():
    assert said_of([]) == []
    assert said_of(["--optim.optimizer=sgd", "--optim.momentum=0.9", "--optim.nesterov=false"]) == []
    assert said_of(["--optim.schedule=poly", "--optim.poly_exponent=1.0"]) == []
    assert said_of(["--optim.lr_scaling=linear", "--optim.base_batch_size=8"]) == []
    assert said_of(["--data.synthetic.num_cases=8", "--data.synthetic.seed=3"]) == []  # the dataset is synthetic
    assert said_of(["--data.normalization=ct", "--data.ct_window=[-100, 300]"], "ct") == []
    assert said_of(["--data.ct_window=[-100, 300]"]) == []  # auto, before the dataset says which it is
    assert said_of(["--train.compile.enabled=true", "--train.compile.backend=aot_eager"]) == []
    assert said_of(["--train.val_distances=true", "--train.val_tolerance_mm=2.0"]) == []
    assert said_of(["--data.augment=standard", "--data.augment_on=cpu"]) == []
    # sparse labels: a centre that finds no annotated voxel falls back to a labelled one, drawn by class
    sparse = unused_settings_warnings(load_config(None, ["--data.class_balanced=true", "--data.foreground_fraction=0"]),
                                      sparse_labels=True)
    assert sparse == []


def test_a_setting_the_others_leave_without_effect_is_said_with_the_one_that_does():
    assert said_of(["--optim.momentum=0.9", "--optim.nesterov=false"]) == ["optim.momentum", "optim.nesterov"]
    assert said_of(["--optim.poly_exponent=1.0"]) == ["optim.poly_exponent"]
    assert said_of(["--optim.base_batch_size=8"]) == ["optim.base_batch_size"]
    assert said_of(["--data.dataset=cases.csv", "--data.synthetic.num_cases=8"]) == ["data.synthetic.num_cases"]
    assert said_of(["--data.normalization=zscore", "--data.ct_window=[-100, 300]"]) == ["data.ct_window"]
    assert said_of(["--data.ct_window=[-100, 300]"], "zscore") == ["data.ct_window"]  # auto resolved
    assert said_of(["--data.class_balanced=true", "--data.foreground_fraction=0"]) == ["data.class_balanced"]
    assert said_of(["--data.augment=none", "--data.augment_on=cpu"]) == ["data.augment_on"]
    assert said_of(["--train.compile.backend=aot_eager", "--train.compile.mode=max-autotune"]) == [
        "train.compile.backend", "train.compile.mode"]
    assert said_of(["--train.val_every=0", "--train.sw_overlap=0.5", "--train.val_distances=true"]) == [
        "train.sw_overlap", "train.val_distances"]
    assert said_of(["--train.val_tolerance_mm=2.0"]) == ["train.val_tolerance_mm"]
    warning, = unused_settings_warnings(load_config(None, ["--optim.momentum=0.9"]))
    assert warning == ("warning: optim.momentum=0.9 has no effect in this run: optim.optimizer is adamw, whose "
                       "moments are its own (betas); set optim.optimizer: sgd to train with momentum, or leave it out")
    warning, = unused_settings_warnings(load_config(None, ["--data.ct_window=[-100, 300]"]), "zscore")
    assert warning == ("warning: data.ct_window=[-100.0, 300.0] has no effect in this run: the images are z-scored "
                       "(data.normalization: auto, from the channels' names); the window clips Hounsfield units "
                       "under data.normalization: ct")


def test_training_says_the_settings_it_does_not_use(tiny_config, tmp_path, capsys):
    """An SGD momentum left behind by a switch to AdamW, and a CT window over the phantoms (MRI-like,
    so auto z-scores them), were taken without a word (eighty-fourth session's review)."""
    train(tiny_config(tmp_path / "run", train__max_steps=1, train__val_every=0, train__sw_batch_size=4,
                      optim__momentum=0.9, data__ct_window="[-100, 300]"))
    said = capsys.readouterr().out
    assert "warning: optim.momentum=0.9 has no effect in this run: optim.optimizer is adamw" in said
    assert "warning: data.ct_window=[-100.0, 300.0] has no effect in this run: the images are z-scored " \
           "(data.normalization: auto" in said
    # what the run resolves itself is not the user's: data.augment_on auto, placed on this device, was
    # said to have no effect under data.augment none, on every estimator fit (the session's review)
    train(tiny_config(tmp_path / "plain", train__max_steps=1, train__val_every=0, train__sw_batch_size=4,
                      data__augment="none"))
    assert "has no effect" not in capsys.readouterr().out


def test_check_says_the_experiments_settings_it_would_not_use(tmp_path, capsys):
    from accelerated_seg.cli import main
    from accelerated_seg.data.synthetic import write_synthetic_dataset

    dataset = write_synthetic_dataset(tmp_path / "data", num_cases=3, num_validation=1, size_mm=(24.0, 24.0, 16.0),
                                      spacing_mm=2.0)
    config = tmp_path / "experiment.yaml"
    config.write_text(f"data:\n  dataset: {dataset}\n  ct_window: [-100, 300]\n  synthetic: {{seed: 3}}\n")
    assert main(["check", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert "warning: data.ct_window=[-100.0, 300.0] has no effect in this run: the images are z-scored" in out
    assert f"warning: data.synthetic.seed=3 has no effect in this run: it shapes the embedded phantoms, and " \
           f"data.dataset is {dataset}" in out
    assert "3 case(s), 0 error(s), 3 warning(s)" in out  # the third: the 64^3 patch on 12 x 12 x 8 voxels
    # the embedded phantoms, not written yet: what the config alone shows
    config.write_text(f"data:\n  dataset: synthetic\noptim:\n  poly_exponent: 2.0\ntrain:\n  output_dir: {tmp_path}\n")
    assert main(["check", "--config", str(config)]) == 0
    assert "warning: optim.poly_exponent=2.0 has no effect in this run: optim.schedule is cosine" in \
           capsys.readouterr().out
