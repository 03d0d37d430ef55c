"""The remedies of a precision that a DeepSpeed json's bf16/fp16 blocks contradict, followed as written and checked
against accelerate's own reading of the blocks (DeepSpeedPlugin.set_mixed_precision): each way out the message gives
must train the precision it promises, in both directions."""

import copy
import json
import re

import pytest

from accelerated_seg.strategy import mixed_precision_beside_a_json_problem, precision_against_the_json_problem

_FILE = "ds.json"
_LAUNCH_OPTION = "accelerate launch's --mixed_precision {mixed}"


def _trains(config: dict, asked: str) -> str:
    """What accelerate trains beside ``config`` for a launch asking for ``asked``: "no", "bf16", "fp16", or
    "refused" (its ValueError)."""
    from accelerate.utils import DeepSpeedPlugin

    plugin = DeepSpeedPlugin(hf_ds_config={"zero_optimization": {"stage": 2}, **copy.deepcopy(config)})
    try:
        plugin.set_mixed_precision(asked)
    except ValueError:
        return "refused"
    on = [name for name in ("bf16", "fp16") if str(plugin.deepspeed_config[name].get("enabled")).lower() == "true"]
    return on[0] if len(on) == 1 else "no" if not on else "refused"


def _written(remedy: str, config: dict) -> dict:
    """``config`` with the blocks ``remedy`` says to write ("bf16": {"enabled": false} ...) written."""
    edited = copy.deepcopy(config)
    for name, block in re.findall(r'"(bf16|fp16)": (\{[^{}]*\})', remedy):
        edited.setdefault(name, {}).update(json.loads(block))
    return edited


_WORDS = {"no": "fp32", "bf16": "bf16", "fp16": "fp16"}


@pytest.mark.parametrize("config, asked", [
    ({"bf16": {"enabled": True}}, "fp16"),
    ({"bf16": {"enabled": True}, "fp16": {"enabled": False}}, "fp16"),  # two blocks to change
    ({"bf16": {"enabled": "true"}, "fp16": {"enabled": 0}}, "fp16"),  # "False" is refused: true to accelerate
    ({"bf16": {"enabled": True}}, "no"),
    ({"bf16": {"enabled": True}, "fp16": {"enabled": "auto"}}, "no"),
    ({"fp16": {"enabled": True}}, "bf16"),
    ({"fp16": {"enabled": True}, "bf16": {"enabled": False}}, "bf16"),
    ({"bf16": {"enabled": False}}, "bf16"),
    ({"fp16": {}}, "fp16"),
])
def test_each_way_out_of_a_precision_the_jsons_blocks_contradict_trains_what_it_promises(config, asked):
    """Until the ninety-eighth session the remedy named one block: fp16 asked beside "bf16": true and "fp16": false was
    told to set bf16 to "auto", which trains fp32; and "ask for bf16" did not say where."""
    assert _trains(config, asked) != asked  # a conflict indeed, as accelerate reads it
    problem = precision_against_the_json_problem(_FILE, config, asked, _LAUNCH_OPTION)
    to_train_asked = re.search(f"to train {_WORDS[asked]}, write (.*?) in {_FILE}", problem)
    assert to_train_asked, problem
    assert _trains(_written(to_train_asked.group(1), config), asked) == asked, problem
    # the other way: the launch's setting given what the json trains as it is
    instead = re.search(r"to train (\w+), give accelerate launch's --mixed_precision (\w+) in its place$", problem)
    assert instead, problem
    trained, option = instead.groups()
    assert _WORDS[option] == trained and _trains(config, option) == option, problem


@pytest.mark.parametrize("config", [{"bf16": {"enabled": True}}, {"fp16": {"enabled": True}},
                                    {"bf16": {"enabled": "auto"}, "fp16": {"enabled": "auto"}}, {},
                                    {"bf16": {"enabled": False}}, {"bf16": {"enabled": True}, "fp16": {}}])
@pytest.mark.parametrize("mixed", ["no", "bf16", "fp16"])
def test_a_profiles_mixed_precision_beside_a_json_is_told_what_the_json_must_hold_to_train_it(config, mixed):
    """The profile's top-level mixed_precision is refused beside a json whatever it holds; the remedy showed
    "bf16": {"enabled": true} to each, fp16 and 'no' alike (until the ninety-eighth session). Once removed, the launch
    asks for "no" (its default), and the json's blocks decide: what the remedy says to write must train the profile's
    precision."""
    problem = mixed_precision_beside_a_json_problem(_FILE, mixed, config)
    assert "Remove mixed_precision from the accelerate config" in problem
    if problem.endswith(f"the json trains {_WORDS[mixed]} as it is"):
        assert _trains(config, "no") == mixed
        return
    written = re.search(f"to train {_WORDS[mixed]} write (.*?) in {_FILE}", problem)
    assert written, problem
    assert _trains(_written(written.group(1), config), "no") == mixed, problem


@pytest.mark.parametrize("enabled", [1, "yes", "on", "1", "True", "t", "y"])
def test_an_enabled_deepspeed_reads_as_on_is_read_as_on(enabled):
    """DeepSpeed (pydantic's bool) and accelerate's AcceleratorState (truthiness) both train bf16 with these; our
    checks counted only true/"true" and let an fp16 launch beside them pass to DeepSpeed's AssertionError."""
    from accelerated_seg.deepspeed_precision_blocks import precision_block_problem, switched_on

    config = {"bf16": {"enabled": enabled}}
    assert switched_on(config, "bf16") and precision_block_problem("ds.json", config) is None
    assert precision_against_the_json_problem("ds.json", config, "fp16") is not None


@pytest.mark.parametrize("enabled", ["false", "no", "off", "0", "n", None, 2, "enabled"])
def test_an_enabled_deepspeed_and_accelerate_read_apart_is_refused_naming_what_to_write(enabled):
    """"false", "no"... DeepSpeed reads as off, while accelerate's AcceleratorState.mixed_precision (truthiness) says
    bf16; null, 2 or a word DeepSpeed refuses (a ValidationError in every rank)."""
    from accelerated_seg.deepspeed_precision_blocks import precision_block_problem

    problem = precision_block_problem("ds.json", {"bf16": {"enabled": enabled}})
    assert problem and "ds.json" in problem and "bf16.enabled" in problem and json.dumps(enabled) in problem
    assert "write" in problem and ("false" in problem.split("write")[1])


def test_deepspeeds_older_bfloat16_key_is_refused_naming_bf16():
    """DeepSpeed reads "bfloat16" where "bf16" is absent, but accelerate writes "bf16": {"enabled": false} where the
    block is missing, so a launch trains fp32 while the json says bf16."""
    from accelerated_seg.deepspeed_precision_blocks import precision_block_problem

    problem = precision_block_problem("ds.json", {"bfloat16": {"enabled": True}})
    assert problem and "ds.json" in problem and '"bfloat16"' in problem and 'write "bf16"' in problem
    assert precision_against_the_json_problem("ds.json", {"bfloat16": {"enabled": True}}, "no") == problem
