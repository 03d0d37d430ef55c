import dataclasses
import json
import re
from pathlib import Path

import pytest
import yaml

from accelerated_seg.config import Config, ConfigError, dump_config, load_config


def test_defaults_and_yaml_and_dotted_overrides(tmp_path):
    path = tmp_path / "exp.yaml"
    path.write_text("optim: {lr: 0.01}\ndata: {patch_size: [32, 32, 16]}\nmodel: {name: segresnet}\n")
    cfg = load_config(path, ["--optim.lr=3e-4", "train.max_steps=7", "--data.spacing=[1.0,1.0,2.5]",
                             "--model.args={init_filters: 8}"])
    assert cfg.optim.lr == pytest.approx(3e-4)  # the override wins over the file
    assert cfg.train.max_steps == 7
    assert cfg.data.patch_size == (32, 32, 16)
    assert cfg.data.spacing == (1.0, 1.0, 2.5)
    assert cfg.model.name == "segresnet" and cfg.model.args == {"init_filters": 8}
    assert cfg.train.batch_size is None  # Optional default kept


@pytest.mark.parametrize("override, key", [
    ("--optim.lrr=1", "optim.lrr"),
    ("--trian.max_steps=1", "trian"),
    ("--data.synthetic.cases=3", "data.synthetic.cases"),
])
def test_unknown_key_is_an_error_naming_it(override, key):
    with pytest.raises(ConfigError, match=f"unknown setting '{key}'|unknown setting {key}"):
        load_config(None, [override])


@pytest.mark.parametrize("override, key", [
    ("--train.max_steps=ten", "train.max_steps"),
    ("--data.patch_size=[16,16]", "data.patch_size"),
    ("--data.augment=maybe", "data.augment must be one of none, light, standard, heavy"),
    ("--data.augment_on=tpu", "data.augment_on"),
    ("--optim=3", "optim"),
])
def test_wrong_type_is_an_error_naming_the_setting(override, key):
    with pytest.raises(ConfigError, match=key):
        load_config(None, [override])


def test_an_older_configs_boolean_augment_is_read_as_the_profile_it_became(tmp_path):
    """data.augment was a boolean before the profiles; light is exactly its true (refused until the
    seventy-third session as "must be one of ...")."""
    older = tmp_path / "older.yaml"
    older.write_text("data:\n  augment: true\n")
    assert load_config(older).data.augment == "light"
    assert load_config(None, ["--data.augment=false"]).data.augment == "none"
    with pytest.raises(ConfigError, match="data.augment must be one of"):  # YAML's 1 is no former value
        load_config(None, ["--data.augment=1"])


@pytest.mark.parametrize("override, message", [
    ("--train.log_every=0", "train.log_every must be >= 1, got 0"),  # divided by zero after the first step
    ("--train.max_steps=-3", "train.max_steps must be >= 1, got -3"),  # exported an untrained model
    ("--train.keep_last=0", "train.keep_last must be >= 1"),
    ("--data.samples_per_volume=0", "data.samples_per_volume must be >= 1"),
    ("--optim.lr=-0.001", "optim.lr must be >= 0"),  # 0 is allowed: frozen weights (tests use it)
    ("--optim.warmup_steps=-1", "optim.warmup_steps must be >= 0"),
    ("--train.sw_overlap=1.0", "train.sw_overlap must be >= 0.0 and < 1.0"),
    ("--data.foreground_fraction=1.5", "data.foreground_fraction must be >= 0.0 and <= 1.0"),
    ("--data.patch_size=[64,0,64]", "data.patch_size must be 3 edges >= 1 voxel"),
    ("--data.spacing=[1.0,0,1.0]", "data.spacing must be 3 sizes > 0 mm"),
    ("--data.ct_window=[500,-500]", "data.ct_window must be \\[low, high\\], finite, with low < high"),
    ("--data.ct_window=[-.inf,1000]", "data.ct_window must be \\[low, high\\], finite"),
    # NaN passed the `< lowest` checks: optim.lr=nan was a traceback from torch's AdamW, and
    # optim.lr=.inf trained until the loss was non-finite for five steps in a row
    ("--optim.lr=nan", "optim.lr must be a finite number >= 0, got nan"),
    ("--optim.lr=.inf", "optim.lr must be a finite number >= 0, got inf"),
    ("--optim.weight_decay=.nan", "optim.weight_decay must be a finite number >= 0, got nan"),
    ("--optim.max_grad_norm=.nan", "optim.max_grad_norm must be a finite number >= 0"),
    ("--train.val_tolerance_mm=.nan", "train.val_tolerance_mm must be a finite number >= 0"),
    ("--data.spacing=[1.0,.inf,1.0]", "data.spacing must be 3 sizes > 0 mm"),
    ("--data.synthetic.num_validation=24",
     "data.synthetic.num_validation \\(24\\) must be below data.synthetic.num_cases"),
    ("--train.ddp.bucket_cap_mb=0", "train.ddp.bucket_cap_mb must be >= 1"),
    ("--train.seed=-1", "train.seed must be >= 0 and < 2\\*\\*32"),  # np.random.seed raised inside set_seed
    ("--data.split_seed=4294967296", "data.split_seed must be >= 0 and < 2\\*\\*32"),
])
def test_a_number_out_of_range_is_one_error_naming_the_setting(override, message):
    with pytest.raises(ConfigError, match=f"setting {message}"):
        load_config(None, [override])


def test_a_config_built_in_python_is_checked_when_training_starts(tmp_path):
    from accelerated_seg.train import train

    cfg = Config()
    cfg.train.log_every, cfg.train.output_dir = 0, str(tmp_path / "run")
    with pytest.raises(ConfigError, match="train.log_every must be >= 1"):
        train(cfg)
    assert not (tmp_path / "run").exists()
    cfg.train.log_every, cfg.data.patch_size = 1, (16, 16)  # the estimator's block_shape=(16, 16)
    with pytest.raises(ConfigError, match="data.patch_size must be a list of 3 values"):
        train(cfg)


@pytest.mark.parametrize("section, name, value, message", [
    # Types, choices and lengths are checked as for a YAML file: before, "CT" was z-scored without a
    # word, augment_on="GPU" ran on the CPU and a 2-value spacing was padded by MONAI.
    ("data", "normalization", "CT", "data.normalization must be one of auto, zscore, ct; got 'CT'"),
    ("data", "augment_on", "GPU", "data.augment_on must be one of auto, cpu, gpu"),
    ("data", "spacing", (1.0, 2.0), "data.spacing must be a list of 3 values"),
    ("data", "spacing", 1.0, "data.spacing must be a list of 3 values"),
    ("data", "region_order", 3, "data.region_order must be a list, got 3"),
    ("data", "region_order", [1, "x"], "data.region_order must be int, got 'x'"),
    ("train", "max_steps", 2.5, "train.max_steps must be int"),
    ("data", "num_folds", 1, "data.num_folds=1: use 0 to split by data.validation_fraction, or 2 or more"),
    ("data", "fold", 5, "data.fold=5 is out of range for data.num_folds=5; use 0..4"),
])
def test_a_config_built_in_python_is_checked_like_a_yaml_file(section, name, value, message, tmp_path):
    import dataclasses

    from accelerated_seg.config import check_values

    cfg = Config()
    if name == "fold":
        cfg.data.num_folds = 5
    setattr(getattr(cfg, section), name, value)
    with pytest.raises(ValueError, match=message):  # ConfigError; DataError for the split's own checks
        check_values(cfg)
    # What Python hands over where YAML gives plain values is accepted and made plain (numpy numbers
    # and arrays, Paths, args=None), since the run writes its config as YAML and JSON.
    import numpy as np
    from pathlib import Path

    fine = Config()
    fine.data = dataclasses.replace(fine.data, patch_size=tuple(np.array([32, 32, 16])), cache_dir=Path("cache"),
                                    spacing=np.array([1.5, 1.0, 2.0], np.float32))
    fine.train.output_dir, fine.model.args = Path("runs") / "a", None
    checked = check_values(fine)
    assert checked.data.patch_size == (32, 32, 16) and all(type(edge) is int for edge in checked.data.patch_size)
    assert checked.data.spacing == (1.5, 1.0, 2.0) and type(checked.data.spacing[0]) is float
    assert (checked.data.cache_dir, checked.train.output_dir, checked.model.args) == ("cache", "runs/a", {})
    # YAML writes it and reads it back as it was (a Path or a numpy number could not be written), its
    # relative paths made absolute.
    (tmp_path / "run.yaml").write_text(dump_config(checked), encoding="utf-8")
    read = load_config(tmp_path / "run.yaml")
    assert (read.data.cache_dir, read.train.output_dir) == (str(Path("cache").absolute()),
                                                            str(Path("runs/a").absolute()))
    read.data.cache_dir, read.train.output_dir = checked.data.cache_dir, checked.train.output_dir
    assert read == checked


def test_unknown_key_in_yaml_file(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("train: {max_step: 3}\n")
    with pytest.raises(ConfigError, match=f"^{re.escape(str(path))}: unknown setting 'train.max_step'"):
        load_config(path)  # the file is named: a dataset.json given as --config read like a typo


@pytest.mark.parametrize("text, problem", [
    ("data:\n  patch_size: [48, 48\n", "expected ',' or ']', but got '<stream end>' at line 3, column 1"),
    # an editor's tab: the character alone was named until the hundred-and-fourth session
    ("train:\n\tmax_steps: 3\n", "found character '\\\\t' that cannot start any token at line 2, column 1; YAML "
                                 "takes no tab there \\(it indents with spaces\\): replace the tab with spaces"),
    # PyYAML keeps the last of two equal keys: the second max_steps silently won (twenty-ninth session)
    ("train:\n  max_steps: 10\n  batch_size: 2\n  max_steps: 100\n",
     "key 'max_steps' given twice \\(first at line 2\\) at line 4, column 3"),
    ("data: {}\ntrain: {}\ndata:\n  patch_size: [32, 32, 32]\n",
     "key 'data' given twice \\(first at line 1\\) at line 3, column 1"),
])
def test_a_yaml_syntax_error_is_one_error_naming_the_file_and_line(tmp_path, text, problem):
    path = tmp_path / "broken.yaml"  # PyYAML's traceback before the twenty-sixth session
    path.write_text(text)
    with pytest.raises(ConfigError, match=f"^{re.escape(str(path))} is not valid YAML: {problem}$"):
        load_config(path)
    with pytest.raises(ConfigError, match=r"^override '--train.max_steps=\[1': the value is not valid YAML: "):
        load_config(None, ["--train.max_steps=[1"])


def test_class_names_listed_for_data_labels_are_shown_as_the_mapping_they_mean():
    """nnU-Net's and MONAI's habit, the classes named in order: "must be a mapping, got [...]" alone until the
    hundred-and-fourth session."""
    with pytest.raises(ConfigError, match=re.escape("setting data.labels must be a mapping, got ['background', "
                                                    "'liver']; as a mapping of label value to class name, the "
                                                    "list's names in order are {0: background, 1: liver}")):
        load_config(None, ["--data.labels=[background, liver]"])
    with pytest.raises(ConfigError, match=r"^setting data.labels must be a mapping, got 2$"):
        load_config(None, ["--data.labels=2"])

def test_a_merged_key_may_be_overridden_and_an_override_value_may_not_repeat_a_key(tmp_path):
    path = tmp_path / "anchors.yaml"  # YAML's merge: the keys it brings in are defaults to override
    path.write_text("train:\n  <<: {max_steps: 10, log_every: 5}\n  max_steps: 100\n")
    cfg = load_config(path)
    assert (cfg.train.max_steps, cfg.train.log_every) == (100, 5)
    with pytest.raises(ConfigError, match=r"the value is not valid YAML: key 'channels' given twice"):
        load_config(None, ["--model.args={channels: [4, 8], channels: [8, 16]}"])


def test_a_key_joined_to_its_value_by_a_colon_without_a_space_is_one_error_saying_where_the_space_goes(tmp_path):
    """YAML reads {0:background} as {"0:background": null}: the labels were refused only when the dataset
    was read, as keys that are no label values, without a word of the colon (ninety-second session)."""
    with pytest.raises(ConfigError, match=re.escape(
            "override '--data.labels={0:background, 1: liver}': '0:background' reads as one key with no value, "
            "since YAML ends a key only at a colon followed by a space: put a space after the colon, "
            "{0: background, 1: liver}")):
        load_config(None, ["--data.labels={0:background, 1: liver}"])
    with pytest.raises(ConfigError, match=re.escape("'init_filters:8' reads as one key with no value")):
        load_config(None, ["--model.args={init_filters:8}"])  # any mapping of ours, as deep as it lies
    path = tmp_path / "experiment.yaml"
    path.write_text("data:\n  labels: {0: background, left kidney:2}\n")
    with pytest.raises(ConfigError, match="^" + re.escape(
            f"{path}: 'left kidney:2' reads as one key with no value, since YAML ends a key only at a colon "
            f"followed by a space: put a space after the colon, {{0: background, left kidney: 2}}") + "$"):
        load_config(path)
    assert load_config(None, ["--data.labels={0: background, 1: liver}"]).data.labels == {0: "background",
                                                                                        1: "liver"}


def test_a_config_file_that_is_not_utf8_is_one_error_naming_it_and_one_with_a_byte_order_mark_is_read(tmp_path):
    """An editor's "Unicode" was UnicodeDecodeError's traceback, then "not UTF-8 text (byte 0xff at position 0)",
    which named no encoding, until the hundred-and-twenty-second session; a byte-order mark ("UTF-8 with BOM") is
    read past, as in an export's config.json (hand_edited.py)."""
    path = tmp_path / "utf16.yaml"
    path.write_bytes("train: {max_steps: 3}\n".encode("utf-16"))
    with pytest.raises(ConfigError, match=rf'^{re.escape(str(path))} is saved as UTF-16 \(a Windows editor\'s '
                                          rf'"Unicode"\), not UTF-8: save it again as UTF-8$'):
        load_config(path)
    path.write_bytes("train: {max_steps: 3}\n".encode("latin-1") + b"# caf\xe9\n")
    with pytest.raises(ConfigError, match=rf"^{re.escape(str(path))} is not UTF-8 text \(byte 0xe9 on line 2: saved "
                                          rf"as Latin-1 or Windows-1252\?\): save it again as UTF-8$"):
        load_config(path)
    path.write_bytes(b"\xef\xbb\xbf" + "# an experiment\ntrain: {max_steps: 3}\n".encode())
    assert load_config(path).train.max_steps == 3


def test_override_without_value_and_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="--section.key=value"):
        load_config(None, ["--optim.lr"])
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "nope.yaml")
    with pytest.raises(ConfigError, match="is a folder; give the experiment's YAML file"):  # "does not exist" before
        load_config(tmp_path)


def test_overrides_may_be_written_as_argparse_options_and_a_bare_config_file_is_named():
    """`--train.max_steps 3` (as every argparse tool takes an option) and a config file given without
    --config were both "must look like --section.key=value" before the twenty-seventh session."""
    cfg = load_config(None, ["--train.max_steps", "3", "--optim.lr=2e-3", "--data.patch_size", "[32, 32, 32]",
                             "--optim.weight_decay", "0"])
    assert (cfg.train.max_steps, cfg.optim.lr) == (3, 2e-3)
    assert (cfg.data.patch_size, cfg.optim.weight_decay) == ((32, 32, 32), 0)
    with pytest.raises(ConfigError, match="setting optim.lr must be >= 0"):
        load_config(None, ["--optim.lr", "-1"])  # a negative value is the option's, not a flag
    with pytest.raises(ConfigError, match=r"'configs/demo.yaml' looks like a config file; give it as --config "
                                          r"configs/demo.yaml"):
        load_config(None, ["configs/demo.yaml"])
    with pytest.raises(ConfigError, match="must look like --section.key=value"):
        load_config(None, ["--train.max_steps", "--optim.lr=1e-3"])  # no value before the next option
    # several values, as plan's --patch takes them: "override '32' must look like ..." named no setting
    with pytest.raises(ConfigError, match=r"--data.patch_size takes one value, got 32 32 32: give a list as one "
                                          r"YAML value, --data.patch_size=\[32,32,32\]"):
        load_config(None, ["--data.patch_size", "32", "32", "32", "--train.max_steps=2"])


@pytest.mark.parametrize("argv, message", [
    (["--model.args={channels:", "[4,8]}"], r"--model.args's value was split by the shell at its spaces \({channels: "
                                             r"\| \[4,8\]}\): quote it, --model.args='{channels: \[4,8\]}'"),
    (["--data.patch_size", "[32,", "32,", "32]"], r"--data.patch_size's value was split by the shell at its spaces "
                                                  r".*--data.patch_size='\[32, 32, 32\]'"),
    (["--train.output_dir=out/my", "run", "--train.max_steps=2"], r"--train.output_dir=out/my is followed by run, "
                                                                  r"which is no setting: .*--train.output_dir='out/my "
                                                                  r"run'"),
    # the same path after a space: it was told to be given as the list --train.output_dir=[out/my,run]
    (["--train.output_dir", "out/my", "run", "--train.max_steps=2"], r"--train.output_dir takes one value, got "
                                                                     r"out/my run: .*quote it, "
                                                                     r"--train.output_dir='out/my run'$"),
    (["--data.patch_size", "32", "32", "32"], r"give a list as one YAML value, --data.patch_size=\[32,32,32\]"),
    (["--train.trackers", "tensorboard", "wandb"], r"give a list as one YAML value, "
                                                    r"--train.trackers=\[tensorboard,wandb\]"),
])
def test_a_value_the_shell_split_at_its_spaces_is_named_with_the_quoting_that_keeps_it_whole(argv, message):
    """An unquoted `--model.args={channels: [4, 8]}` was "not valid YAML ... at line 1, column 11", and given
    with a space after the key, "give a list as one YAML value, --model.args=[{channels:,[4,8]}]"; an unquoted
    path with a space, "override 'run' must look like --section.key=value"."""
    with pytest.raises(ConfigError, match=message):
        load_config(None, argv)


@pytest.mark.parametrize("section, name", [
    ("train", "output_dir"), ("train", "resume"), ("train", "init_from"), ("data", "cache_dir"), ("data", "dataset"),
])
def test_an_empty_path_is_one_error_naming_the_setting(tmp_path, monkeypatch, section, name):
    """An empty train.output_dir wrote the run into the working directory, and an empty resume,
    init_from or cache_dir was quietly taken for "not given" (before the twenty-ninth session)."""
    from accelerated_seg.config import check_values
    from accelerated_seg.train import train

    monkeypatch.chdir(tmp_path)
    path = tmp_path / "experiment.yaml"
    path.write_text(f"{section}:\n  {name}: ''\n")
    with pytest.raises(ConfigError, match=f"setting {section}.{name} is an empty path ''"):
        load_config(path)
    # On the command line too, as an unset "$OUT" leaves it: "must be str, got None" before (sixty-eighth session)
    with pytest.raises(ConfigError, match=f"setting {section}.{name} is an empty path ''"):
        load_config(None, [f"--{section}.{name}="])
    cfg = Config()
    setattr(getattr(cfg, section), name, "  ")
    with pytest.raises(ConfigError, match=f"setting {section}.{name} is an empty path"):
        check_values(cfg)
    with pytest.raises(ConfigError, match=f"setting {section}.{name} is an empty path"):
        train(cfg)
    assert list(tmp_path.iterdir()) == [path]  # nothing written where the job started


@pytest.mark.parametrize("section, name", [
    ("train", "output_dir"), ("train", "resume"), ("train", "init_from"), ("data", "cache_dir"), ("data", "dataset"),
])
def test_a_path_from_the_home_folder_is_read_as_a_shell_reads_it(tmp_path, monkeypatch, section, name):
    """Neither YAML nor a shell after "--key=" expands ~: a run wrote a folder named "~" in the working
    folder, and init_from refused an export that exists (seventy-third session)."""
    from accelerated_seg.config import check_values

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    expected = str(tmp_path / "home" / "runs" / "a")
    for cfg in (load_config(None, [f"--{section}.{name}=~/runs/a"]), check_values(Config(**{
            section: dataclasses.replace(getattr(Config(), section), **{name: "~/runs/a"})}))):
        assert getattr(getattr(cfg, section), name) == expected


def test_an_override_fills_a_section_the_file_leaves_empty(tmp_path):
    """`train:` with all its keys commented out is null in YAML; an override into it said "'train' is a
    value, not a section" before the twenty-ninth session."""
    path = tmp_path / "experiment.yaml"
    path.write_text("data:\n  patch_size: [32, 32, 32]\ntrain:\n  # max_steps: 100\n")
    cfg = load_config(path, ["--train.max_steps=7", "--train.ddp.static_graph=true"])
    assert (cfg.train.max_steps, cfg.train.ddp.static_graph, cfg.data.patch_size) == (7, True, (32, 32, 32))
    path.write_text("train: 5\n")
    with pytest.raises(ConfigError, match="setting train must be a mapping, got 5"):
        load_config(path, ["--train.max_steps=7"])


@pytest.mark.parametrize("text", ["", "\n\n", "# data:\n#   dataset: mine.json\n", "---\n"])
def test_a_config_file_without_settings_is_refused(tmp_path, text):
    """An empty or all-commented file (a truncated copy, the wrong file) trained the demo's phantoms
    into ./output with the default 300 steps, without a word (seventy-first session's probe)."""
    path = tmp_path / "experiment.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=r"config file .*experiment.yaml holds no settings \(it is empty, or only "
                                          r"comments\)"):
        load_config(path)


def test_an_accelerate_config_given_as_the_experiment_config_is_named_as_one():
    """`plan --config configs/accelerate/ddp.yaml` (or train's) said "unknown setting 'compute_environment'; valid
    keys under the top level are: data, model, optim, train", not which file the option takes."""
    path = Path(__file__).parents[1] / "configs" / "accelerate" / "ddp.yaml"
    with pytest.raises(ConfigError, match=r"ddp.yaml is an accelerate config file \(it sets accelerate's "
                                          r"distributed_type\), not an experiment config .* accelerate launch takes "
                                          r"it as --config_file, and plan as --accelerate-config$"):
        load_config(path)


def test_dump_round_trips(tmp_path):
    cfg = load_config(None, ["--data.patch_size=[32,32,32]", "--optim.lr_scaling=sqrt",
                             f"--train.output_dir={tmp_path / 'run'}"])
    path = tmp_path / "saved.yaml"
    path.write_text(dump_config(cfg))
    assert load_config(path) == cfg
    assert isinstance(Config().data.patch_size, tuple)


def test_the_saved_config_writes_paths_as_they_read(tmp_path):
    """config.yaml escaped every non-ASCII letter ("w\\xE9 ird \\u65E5\\u672C"): it read back right,
    but not to a person comparing runs (seventy-fifth session's probe)."""
    cfg = load_config(None, [f"--data.dataset={tmp_path}/wé ird 日本/dataset.json",
                             f"--train.output_dir={tmp_path}/é"])
    text = dump_config(cfg)
    assert f"dataset: {tmp_path}/wé ird 日本/dataset.json" in text and f"output_dir: {tmp_path}/é" in text
    path = tmp_path / "saved.yaml"
    path.write_bytes(text.encode("utf-8"))
    assert load_config(path) == cfg


def test_the_saved_config_names_relative_paths_absolute_and_compares_older_ones_so(tmp_path, monkeypatch):
    """A run's config.yaml kept its paths as typed: read from another folder (``cache --config``, as the
    run's note says; a rerun), its data.dataset and data.cache_dir named another dataset and cache."""
    from accelerated_seg.config import settings_changed

    monkeypatch.chdir(tmp_path)
    typed = ["--data.dataset=data/Task04/dataset.json", "--data.cache_dir=cache", "--train.output_dir=runs/a",
             "--train.init_from=../runs/pretrained/model", "--train.resume=runs/a/checkpoints/step_4"]
    saved = yaml.safe_load(dump_config(load_config(None, typed)))
    assert (saved["data"]["dataset"], saved["data"]["cache_dir"], saved["train"]["output_dir"],
            saved["train"]["init_from"], saved["train"]["resume"]) == (
        f"{tmp_path}/data/Task04/dataset.json", f"{tmp_path}/cache", f"{tmp_path}/runs/a",
        f"{tmp_path.parent}/runs/pretrained/model", f"{tmp_path}/runs/a/checkpoints/step_4")
    # the words that name no path and absolute paths stay as typed
    kept = yaml.safe_load(dump_config(load_config(None, ["--train.resume=latest", "--train.output_dir=/scratch/run"])))
    assert (kept["data"]["dataset"], kept["data"]["cache_dir"], kept["train"]["output_dir"],
            kept["train"]["resume"], kept["train"]["init_from"]) == ("synthetic", None, "/scratch/run", "latest", None)
    # A checkpoint's config.yaml written with relative paths is no other setting than the same paths now
    older = tmp_path / "older.yaml"
    older.write_text(yaml.safe_dump(load_config(None, typed).to_dict()))
    assert settings_changed(older, dump_config(load_config(None, typed))) == {}


def test_a_checkpoint_whose_project_moved_compares_its_paths_as_moved(tmp_path):
    """Its config.yaml names each path absolute, so a resume in the moved (copied, renamed, mounted
    elsewhere) project listed the dataset, the cache and the run itself as changed settings."""
    from accelerated_seg.resume_config_changes import check_resume_settings, run_folder_moved

    def written_in(project: Path, run: Path | None = None, dataset: Path | None = None, **extra) -> list[str]:
        return [f"--data.dataset={dataset or project / 'data' / 'dataset.json'}", f"--data.cache_dir={project}/cache",
                f"--train.output_dir={run or project / 'output' / 'demo'}", f"--train.init_from={tmp_path}/pretrained",
                *[f"--{key.replace('__', '.')}={value}" for key, value in extra.items()]]

    def changed(checkpoint: Path, *now) -> dict:
        return check_resume_settings(checkpoint, dump_config(load_config(None, written_in(*now))))

    was, now = tmp_path / "home" / "me" / "project", tmp_path / "scratch" / "me" / "project"
    checkpoint = now / "output" / "demo" / "checkpoints" / "step_4"
    checkpoint.mkdir(parents=True)
    (checkpoint / "config.yaml").write_text(dump_config(load_config(None, written_in(was))))
    assert run_folder_moved(checkpoint) == (was / "output" / "demo", now / "output" / "demo")
    assert changed(checkpoint, now) == {}
    assert list(check_resume_settings(checkpoint, dump_config(load_config(None, written_in(now, optim__lr=0.5))))) \
        == ["optim.lr"]
    # a path that stayed where it was is no change, one moved elsewhere is, named as it was saved
    stayed = tmp_path / "home" / "me" / "shared" / "dataset.json"
    (checkpoint / "config.yaml").write_text(dump_config(load_config(None, written_in(was, dataset=stayed))))
    assert changed(checkpoint, now, None, stayed) == {}
    assert changed(checkpoint, now, None, now / "other" / "dataset.json") == {
        "data.dataset": (str(stayed), str(now / "other" / "dataset.json"))}
    # a renamed run folder: only that
    (checkpoint / "config.yaml").write_text(dump_config(load_config(None, written_in(now))))
    renamed = now / "output" / "demo-2" / "checkpoints" / "step_4"
    (now / "output" / "demo").rename(renamed.parent.parent)
    assert run_folder_moved(renamed) == (now / "output" / "demo", now / "output" / "demo-2")
    assert changed(renamed, now, renamed.parent.parent) == {}
    # not moved: where it was written; reached through a link to it, its paths compare as reached so
    (renamed / "config.yaml").write_text(dump_config(load_config(None, written_in(now, renamed.parent.parent))))
    assert run_folder_moved(renamed) is None
    (tmp_path / "link").symlink_to(now)
    assert changed(tmp_path / "link" / "output" / "demo-2" / "checkpoints" / "step_4", tmp_path / "link",
                   tmp_path / "link" / "output" / "demo-2") == {}
    # another run's checkpoint resumed into a new run folder (that folder is a change, not a move), or
    # an older config naming it relative
    assert changed(renamed, now, tmp_path / "new") == {
        "train.output_dir": (str(renamed.parent.parent), str(tmp_path / "new"))}
    (renamed / "config.yaml").write_text(yaml.safe_dump({"train": {"output_dir": "output/demo"}}))
    assert run_folder_moved(renamed) is None


def test_run_info_names_a_resumed_checkpoint_by_its_absolute_path(tmp_path, monkeypatch):
    """config.yaml and summary.json name the run's folders absolute; run_info.json's resumes named the checkpoint
    as the resuming command was given it, relative to the folder that command ran in (a MONAI user's
    ``--resume runs/spleen/checkpoints/step_10``, ninety-fourth session), which says nothing to a reader elsewhere.
    The earlier resumes are kept as recorded."""
    from accelerated_seg.resume_config_changes import resumes_of_the_course
    run = tmp_path / "runs" / "spleen"
    (run / "checkpoints" / "step_10").mkdir(parents=True)
    earlier = {"checkpoint": "written/before", "step": 4, "settings_changed": {}}
    (run / "run_info.json").write_text(json.dumps({"resumes": [earlier]}))
    monkeypatch.chdir(tmp_path)
    assert resumes_of_the_course(Path("runs/spleen/checkpoints/step_10"), 10, {"optim.lr": (1e-4, 2e-4)}) == [
        earlier, {"checkpoint": str(run / "checkpoints" / "step_10"), "step": 10,
                  "settings_changed": {"optim.lr": [1e-4, 2e-4]}}]


def test_trackers_may_be_a_list_of_names_as_accelerates_log_with(tmp_path):
    """`trackers: [tensorboard]` was refused as "must be str"; a list of names is the comma-separated string."""
    path = tmp_path / "run.yaml"
    path.write_text("train:\n  trackers: [tensorboard, wandb]\n")
    assert load_config(path).train.trackers == "tensorboard,wandb"
    assert load_config(path, ["--train.trackers=[]"]).train.trackers == "none"
    assert load_config(None, ["--train.trackers=tensorboard"]).train.trackers == "tensorboard"
    from accelerated_seg.estimator import Segmentation

    assert Segmentation("unet", trackers=("tensorboard",)).train_settings["trackers"] == ("tensorboard",)
    for off in ("null", "false", "off", "no"):  # "must be str, got None" before the seventy-third session
        assert load_config(None, [f"--train.trackers={off}"]).train.trackers == "none"
    for wrong in ("[1, 2]", "true", "{a: 1}"):
        with pytest.raises(ConfigError, match="setting train.trackers must be tracker names, comma separated or a "
                                              "list of them, or none; got "):
            load_config(None, [f"--train.trackers={wrong}"])
    with pytest.raises(ConfigError, match="train.output_dir must be str"):  # only named lists are joined
        load_config(None, ["--train.output_dir=[a, b]"])


def test_a_setting_newer_than_the_checkpoint_compares_as_its_default(tmp_path):
    # A checkpoint written before train.channels_last_norm existed: its config.yaml has no such key.
    # Resumed as written, nothing differs; a value other than the default is listed against it.
    from accelerated_seg.config import settings_changed

    written = yaml.safe_load(dump_config(Config()))
    del written["train"]["channels_last_norm"]
    saved = tmp_path / "config.yaml"
    saved.write_text(yaml.safe_dump(written, sort_keys=False))
    assert settings_changed(saved, dump_config(Config())) == {}
    changed = Config()
    changed.train.channels_last, changed.train.channels_last_norm = True, True
    assert settings_changed(saved, dump_config(changed)) == {"train.channels_last": (False, True),
                                                             "train.channels_last_norm": (False, True)}


def test_another_network_on_the_command_line_starts_from_its_own_defaults(tmp_path):
    """The README's `--model.name=segresnet` over demo.yaml failed on the U-Net's channels and strides
    the file gives (sixty-seventh session): the file's model.args are its network's."""
    path = tmp_path / "exp.yaml"
    path.write_text("model:\n  name: unet\n  args: {channels: [8, 16, 32], strides: [2, 2]}\n")
    assert load_config(path, ["--model.name=segresnet"]).model.args == {}
    assert load_config(path, ["--model.name=unet"]).model.args == {"channels": [8, 16, 32], "strides": [2, 2]}
    given = load_config(path, ["--model.name=segresnet", "--model.args={init_filters: 8}"])
    assert (given.model.name, given.model.args) == ("segresnet", {"init_filters": 8})
    # ... and takes the arguments given for it by their dotted names alone: the file's U-Net channels
    # were kept beside them, and SegResNet refused them (eighty-fourth session's probe)
    assert load_config(path, ["--model.name=dynunet", "--model.args.filters=[8, 16]"]).model.args == {
        "filters": [8, 16]}
    assert load_config(path, ["--model.name=unet", "--model.args.num_res_units=1"]).model.args == {
        "channels": [8, 16, 32], "strides": [2, 2], "num_res_units": 1}
    # a file without a name is the default network's (unet)
    path.write_text("model:\n  args: {channels: [8, 16, 32], strides: [2, 2]}\n")
    assert load_config(path, ["--model.name=unet"]).model.args == {"channels": [8, 16, 32], "strides": [2, 2]}
    assert load_config(path, ["--model.name=dynunet"]).model.args == {}
    # the README's command, as written
    root = Path(__file__).resolve().parents[1]
    cfg = load_config(root / "configs" / "demo.yaml", ["--optim.lr=3e-4", "--data.patch_size=[64,64,64]",
                                                       "--model.name=segresnet"])
    assert (cfg.model.name, cfg.model.args) == ("segresnet", {})


def test_a_value_out_of_range_in_the_file_is_named_with_the_file(tmp_path):
    """A wrong type was named with its file and a value out of range was not (a probe of the
    seventy-third session); one given on the command line is the command line's."""
    path = tmp_path / "experiment.yaml"
    path.write_text("optim:\n  lr: .inf\n")
    with pytest.raises(ConfigError, match=rf"^{re.escape(str(path))}: setting optim.lr must be a finite number"):
        load_config(path)
    path.write_text("optim:\n  lr: 0.001\n")
    with pytest.raises(ConfigError, match=r"^setting optim.lr must be >= 0"):
        load_config(path, ["--optim.lr=-1"])


@pytest.mark.parametrize("override, hint", [
    ("--train.lr=0.1", "unknown setting 'train.lr' (it is optim.lr); valid keys under train are: "),
    ("--train.max_step=3", "unknown setting 'train.max_step' (did you mean 'train.max_steps'?); "),
    ("--optimizer.lr=0.1", "unknown setting 'optimizer' (did you mean 'optim'?); valid keys under the top level"),
    ("--data.synth.seed=1", "unknown setting 'data.synth' (did you mean 'data.synthetic'?); "),
    ("--data.seed=1", "unknown setting 'data.seed' (it is data.synthetic.seed or train.seed); "),
    ("--train.zzz=1", "unknown setting 'train.zzz'; valid keys under train are: "),
    # a mapping that is a setting's value, misspelt: searched among the sections alone, it got no hint
    ("--model.arg={channels: [4]}", "unknown setting 'model.arg' (did you mean 'model.args'?); "),
    ("--data.lables={1: liver}", "unknown setting 'data.lables' (did you mean 'data.labels'?); "),
    # other tools' names, none close in spelling to ours: the list of valid keys alone (eighty-fourth session)
    ("--train.epochs=1", "unknown setting 'train.epochs' (it is train.max_steps here: training is counted in "
                         "optimizer steps); "),
    ("--train.mixed_precision=bf16", "unknown setting 'train.mixed_precision' (precision is the launch's, not the "
                                     "experiment's: accelerate launch --mixed_precision bf16, or mixed_precision "
                                     "in the accelerate config file); "),
    ("--train.gradient_accumulation_steps=2", "(it is train.grad_accum_steps here); "),
    ("--conifg=exp.yaml", "unknown setting 'conifg' (the experiment file is given as --config FILE); "),
    # MONAI's tutorials' names, and a name of another section before a close spelling in this one: data.batch_size
    # was "did you mean 'data.patch_size'?", optim.name "it is model.name" (hundred-and-fourth session's probe)
    ("--data.roi_size=[8,8,8]", "unknown setting 'data.roi_size' (it is data.patch_size here); "),
    ("--data.pixdim=[1,1,1]", "(it is data.spacing here, the voxel size in mm every case is resampled to); "),
    ("--train.val_interval=2", "(it is train.val_every here, counted in optimizer steps); "),
    ("--model.out_channels=3", "(the classes are the dataset's own, and the network's outputs follow them: "
                               "dataset.json's 'labels', or data.labels for a CSV ({0: background, 1: liver})); "),
    ("--data.num_classes=3", "(the classes are the dataset's own"),
    ("--model.in_channels=1", "(the input channels are the dataset's: dataset.json's 'modality' or "),
    ("--train.amp=true", "(precision is the launch's, not the experiment's: accelerate launch --mixed_precision"),
    ("--train.gpus=2", "(the devices are the launch's: accelerate launch --num_processes N (one process a GPU)"),
    ("--data.batch_size=2", "unknown setting 'data.batch_size' (it is train.batch_size); "),
    ("--optim.name=sgd", "unknown setting 'optim.name' (the optimizer is optim.optimizer); "),
    ("--train.compile=true", "setting train.compile must be a mapping, got True (to switch it on or off: "
                             "train.compile.enabled=true)"),
])
def test_an_unknown_setting_says_where_it_may_be(override, hint):
    """A misspelled key or one under the wrong section was answered with the section's thirty valid
    keys alone, leaving the user to find optim.lr among them (seventy-fifth session's probe)."""
    with pytest.raises(ConfigError) as refused:
        load_config(None, [override])
    assert hint in str(refused.value)


def test_misspelled_network_and_loss_arguments_get_the_closest_name(tmp_path):
    from accelerated_seg.losses import segmentation_loss
    from accelerated_seg.models import check_arg_names

    with pytest.raises(ConfigError, match=r"model.args.num_res_unit is not an argument of "
                                          r"monai.networks.nets.UNet \(did you mean 'num_res_units'\?\)"):
        check_arg_names("unet", {"num_res_unit": 1})
    with pytest.raises(ConfigError, match=r"\(train.loss=dice_ce\) \(did you mean 'smooth_nr'\?\); it takes "):
        segmentation_loss("dice_ce", {"smooth_n": 1.0})


@pytest.mark.parametrize("name, args, refused", [
    ("unet", {"channels": 8}, "channels must be a list of whole numbers (monai.networks.nets.UNet's channels), got 8"),
    ("unet", {"num_res_units": 2.0}, "num_res_units must be a whole number"),
    ("unet", {"kernel_size": "3"}, "kernel_size must be a whole number or a list of whole numbers"),
    ("dynunet", {"strides": [1, [2, 2, "2"]]},
     "strides must be a list of whole numbers or of lists of them, one per axis (monai.networks.nets.DynUNet's"),
    ("unetr", {"img_size": [64, 64, 64.0]}, "img_size must be a whole number or a list of whole numbers"),
    ("swinunetr", {"feature_size": True}, "feature_size must be a whole number"),
    # judged by their whole-number annotations only: what MONAI takes beyond its annotations is let through
    ("unet", {"channels": (8, 16), "strides": [2], "kernel_size": 3, "dropout": "DROPOUT"}, None),
    ("dynunet", {"filters": None, "strides": [1, [2, 2, 1], 2]}, None),
    ("unet", {"strides": [[2, 2, 1], [2, 2, 2]]}, None),  # one per axis, beyond its annotation's Sequence[int]
    ("segresnet", {"blocks_down": [1, 2], "blocks_up": [1]}, None),
])
def test_a_network_argument_not_of_its_kind_is_named(name, args, refused):
    """MONAI checks few argument types: channels: 8 failed in its constructor on "object of type 'int' has
    no len()", channels: [8, "x"] on "not all arguments converted during string formatting"."""
    from accelerated_seg.models import check_arg_names

    if refused is None:
        check_arg_names(name, args)
        return
    with pytest.raises(ConfigError, match=re.escape("model.args." + refused)):
        check_arg_names(name, args)


def test_accelerate_tracker_names_kept_here_are_accelerates_own():
    """The list a misspelt tracker is refused by before accelerate is imported (config.ACCELERATE_TRACKERS) is
    accelerate's, which would otherwise drift from it unseen: a new tracker refused, or a dropped one taken."""
    from importlib.metadata import version

    from accelerate.utils import LoggerType

    from accelerated_seg.config import ACCELERATE_TRACKERS, ACCELERATE_TRACKERS_OF, _newer_accelerate

    accelerates = tuple(LoggerType.list())
    said = (f"accelerate {version('accelerate')} knows {accelerates}; config.ACCELERATE_TRACKERS, read from "
            f"accelerate {'.'.join(map(str, ACCELERATE_TRACKERS_OF))}, is {ACCELERATE_TRACKERS}: read it (and "
            f"ACCELERATE_TRACKERS_OF) again from this release")
    if _newer_accelerate() and set(ACCELERATE_TRACKERS) < set(accelerates):  # an added name is the Accelerator's
        pytest.skip(said)  # to check (review r116): no run is refused, but a typo of it is told late again
    assert ACCELERATE_TRACKERS == accelerates, said


def test_a_tracker_of_a_newer_accelerate_is_left_to_it_and_the_accelerator_checks_by_accelerates_own(monkeypatch):
    """config.ACCELERATE_TRACKERS is accelerate 1.16's: a tracker a newer accelerate adds was refused with the
    settings, a right run refused, and the Accelerator checked by that list too, an older accelerate lacking one
    saying its bare ValueError, until review r116."""
    import importlib.metadata

    from accelerate.utils import LoggerType

    from accelerated_seg import config, preparation

    monkeypatch.setattr(importlib.metadata, "version", lambda name: "1.17.0")
    assert load_config(None, ["--train.trackers=tensorboard,newtracker"]).train.trackers == "tensorboard,newtracker"
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "1.16.0")
    with pytest.raises(ConfigError, match=r"got 'newtracker'$"):
        load_config(None, ["--train.trackers=tensorboard,newtracker"])
    monkeypatch.setattr(config, "ACCELERATE_TRACKERS", (*config.ACCELERATE_TRACKERS, "gone"))
    assert config.tracker_names("gone") == ["gone"]  # taken here, as an older accelerate's lacking it would be
    with pytest.raises(ConfigError, match=r"^train\.trackers must be none, .*: all, .*; got 'gone'$"):
        preparation._trackers("gone")
    assert preparation._trackers(LoggerType.list()[1]) == [LoggerType.list()[1]]


def test_two_misspelt_trackers_are_each_offered_their_closest():
    """The first alone was offered, as if the second were right, until review r116."""
    with pytest.raises(ConfigError, match=r"got 'tensorbord', 'wanb' \(did you mean 'tensorboard' for 'tensorbord', "
                                          r"'wandb' for 'wanb'\?\)$"):
        load_config(None, ["--train.trackers=tensorbord,wanb"])


@pytest.mark.parametrize("given", ["--train.trackers=tensorbord", "--train.trackers=[wandb, tensorbord]",
                                   "--train.trackers=wandb,tensorbord", "--train.trackers=TensorBoard"])
def test_a_misspelt_tracker_is_refused_with_the_settings_by_name_with_the_closest(given):
    """A tracker name accelerate does not know was refused by the Accelerator only, after torch, MONAI and accelerate
    were imported (8 s) and after the earlier-run check, until the hundred-and-twenty-fourth session (helper h132);
    now with every other setting, the closest known name offered as for a misspelt setting."""
    refused = "'TensorBoard'" if "TensorBoard" in given else "'tensorbord'"
    with pytest.raises(ConfigError, match=r"^setting train\.trackers must be none, or tracker names accelerate "
                                          r"knows, comma separated or a list: all, aim, tensorboard, .*; got "
                                          + refused + r" \(did you mean 'tensorboard'\?\)$"):
        load_config(None, [given])


def test_a_config_files_misspelt_tracker_is_named_with_the_file(tmp_path):
    path = tmp_path / "experiment.yaml"
    path.write_text("train:\n  trackers: [tensorboard, wanb]\n")
    with pytest.raises(ConfigError, match=rf"^{re.escape(str(path))}: setting train\.trackers must be none, .*; "
                                          r"got 'wanb' \(did you mean 'wandb'\?\)$"):
        load_config(path)
    assert load_config(path, ["--train.trackers=none"]).train.trackers == "none"  # overridden: the file's is gone


def test_a_misspelt_tracker_is_refused_before_torch_and_accelerate_are_imported_and_before_the_earlier_run(
        tmp_path):
    """The command line's refusal, as `accelerated-seg train --train.trackers=tensorbord` meets it in a folder an
    earlier run used: the typo first, in the process that has imported neither torch nor accelerate."""
    used = tmp_path / "run"
    used.mkdir()
    for name in ("run_info.json", "summary.json"):  # a finished run's (run_folder.earlier_run)
        (used / name).write_text("{}")
    status, said = refused_in_a_fresh_process(["train", "--train.trackers=tensorbord", f"--train.output_dir={used}"])
    assert status == "2 []", said
    assert "did you mean 'tensorboard'?" in said and "earlier run" not in said


def refused_in_a_fresh_process(arguments: list[str]) -> tuple[str, str]:
    """``accelerated-seg <arguments>`` refused in a process of its own: its exit status and which of torch, accelerate
    and MONAI it had imported by then ("2 []" for a refusal before them all), and all it printed."""
    import subprocess
    import sys

    probe = ("import sys\nfrom accelerated_seg.cli import main\ntry:\n"
             f"    main({arguments!r})\n"
             "except SystemExit as refused:\n"
             "    print(refused.code, sorted({'torch', 'accelerate', 'monai'} & sys.modules.keys()))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    return (done.stdout.splitlines() or [""])[-1], done.stdout + done.stderr


def test_accelerates_logger_types_are_taken_as_their_names_and_a_tracker_object_is_told_why_not():
    """accelerate's log_with takes LoggerType.TENSORBOARD, which the estimator refused as "must be str" (a list it
    takes) and fit as not "tracker names", until review r116; a GeneralTracker of one's own is still refused, now
    saying why: a run's trackers are named, as its config.yaml keeps them."""
    from accelerate.tracking import GeneralTracker
    from accelerate.utils import LoggerType

    from accelerated_seg.config import tracker_names
    from accelerated_seg.estimator import Segmentation
    from accelerated_seg.preparation import _trackers

    assert tracker_names(LoggerType.TENSORBOARD) == ["tensorboard"]
    assert _trackers([LoggerType.TENSORBOARD, "wandb"], "fit's trackers") == ["tensorboard", "wandb"]
    Segmentation("unet", trackers=[LoggerType.TENSORBOARD, "wandb"])
    Segmentation("unet", trackers=LoggerType.WANDB)

    class Mine(GeneralTracker):
        name, requires_logging_directory, tracker = "mine", False, None

        def store_init_configuration(self, values):
            pass

        def log(self, values, step, **kwargs):
            pass

    for given in (Mine(), [Mine()]):
        with pytest.raises(ConfigError, match=r"^Segmentation: trackers must be tracker names, .*; a tracker object "
                                              r"of your own \(accelerate's GeneralTracker\) is not taken: a run's "
                                              r"trackers are named, as its config\.yaml keeps them$"):
            Segmentation("unet", trackers=given)
        with pytest.raises(ConfigError, match=r"^fit's trackers must be tracker names, .*; a tracker object of your "
                                              r"own \(accelerate's GeneralTracker\) is not taken"):
            _trackers(given, "fit's trackers")


@pytest.mark.parametrize("given, said", [
    ("--data.patch_size=16", "setting data.patch_size must be a list of 3 values, got 16; [16, 16, 16] for the same "
                             "on every axis"),
    ("--data.spacing=1.5", "setting data.spacing must be a list of 3 values, got 1.5; [1.5, 1.5, 1.5] for the same "
                           "on every axis"),
    ("--data.spacing=[1.5, 1.5]", "setting data.spacing must be a list of 3 values, got [1.5, 1.5]"),
    ("--data.spacing=-1", "setting data.spacing must be a list of 3 values, got -1"),
    ("--data.ct_window=400", "setting data.ct_window must be a list of 2 values, got 400"),
    # the review r131: the number as given ({:g} offered 0.742188, a spacing of another scan), and no list the setting
    # refuses in turn (a patch edge of 16.5: "must be int")
    ("--data.spacing=0.7421875", "setting data.spacing must be a list of 3 values, got 0.7421875; [0.7421875, "
                                 "0.7421875, 0.7421875] for the same on every axis"),
    ("--data.patch_size=16.5", "setting data.patch_size must be a list of 3 values, got 16.5"),
    ("--data.patch_size=16.0", "setting data.patch_size must be a list of 3 values, got 16.0; [16, 16, 16] for the "
                               "same on every axis"),
])
def test_one_number_for_a_setting_of_three_is_told_the_list_it_means(given, said):
    """A patch edge or voxel size given as one number, as MONAI's roi_size=96 and plan --patch take one, was told
    "must be a list of 3 values, got 16" alone (the eleventh new user's walk): the list meant is offered where one
    number can be the same on every axis, and nothing is where it cannot (two values, a size below 0, a window)."""
    with pytest.raises(ConfigError, match=f"^{re.escape(said)}$"):
        load_config(None, [given])
