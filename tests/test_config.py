import pytest

from accelerated_seg.config import Config, ConfigError, config_from_dict, dump_config, load_config


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


def test_unknown_key_in_yaml_file(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("train: {max_step: 3}\n")
    with pytest.raises(ConfigError, match="train.max_step"):
        load_config(path)


def test_override_without_value_and_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="--section.key=value"):
        load_config(None, ["--optim.lr"])
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "nope.yaml")


def test_dump_round_trips(tmp_path):
    cfg = load_config(None, ["--data.patch_size=[32,32,32]", "--optim.lr_scaling=sqrt"])
    path = tmp_path / "saved.yaml"
    path.write_text(dump_config(cfg))
    assert load_config(path) == cfg
    assert config_from_dict(cfg.to_dict()) == cfg
    assert isinstance(Config().data.patch_size, tuple)
