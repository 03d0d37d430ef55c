"""An accelerate config file read as ``accelerate launch`` reads it: the one reading that ``plan --accelerate-config``
(plan_profile) and each rank's check of the profile its launcher read (launched_profile) share.

    profile = read_profile("configs/accelerate/ddp.yaml", "--accelerate-config configs/accelerate/ddp.yaml")
    profile["mixed_precision"], profile["dynamo_config"]

The launch reads a ``.json`` file as JSON and any other as YAML, then rewrites an older accelerate's keys
(``BaseConfig.process_config``): ``fp16: true`` is mixed_precision fp16 where mixed_precision is missing, and a
top-level ``dynamo_backend`` replaces ``dynamo_config`` whole. Until the ninety-fifth session the ranks read the raw
YAML, so plan and training could disagree on one file: ``dynamo_backend: 'NO'`` beside a ``dynamo_config`` with a
typo was refused by training for a section the launch never read, and passed by plan.
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Any

import yaml

from .config import Config, ConfigError, yaml_problem, yaml_with_unique_keys
from .data.errors import DataError
from .hand_edited import KeyGivenTwice, given_twice, not_utf8, read_json_file, utf8_text

# The top-level sections of an experiment config, told apart from an accelerate config.
EXPERIMENT_SECTIONS = {section.name for section in fields(Config)}
#: The way to a whole accelerate config file, where one does not parse or was cut short.
_AGAIN = "copy it again or write one with `accelerate config`"


class UnreadableProfile(ConfigError):
    """The file is no accelerate config at all: missing, not JSON or YAML, not a mapping, no distributed_type.
    A rank whose launch read the file says nothing of these (the launch took it, so it has changed since)."""


def read_profile(path: str | Path, named: str | None = None) -> dict:
    """The accelerate config at ``path`` as the launch reads it, its older keys rewritten as accelerate does.

    ``named`` is how an UnreadableProfile names the file (plan's "--accelerate-config FILE"); the path by default.

    Raises:
        UnreadableProfile: the file cannot be read as an accelerate config.
        ConfigError: a top-level dynamo_backend beside a dynamo_config that it replaces, and so drops.
    """
    return read_profile_as_written(path, named)[1]


def read_profile_as_written(path: str | Path, named: str | None = None) -> tuple[dict, dict]:
    """(the accelerate config at ``path`` as its file holds it, as the launch reads it: :func:`read_profile`), from
    one reading of the file: a message quotes the file's own keys (:func:`mixed_precision_keys`), which the launch
    rewrites. Raises as :func:`read_profile`."""
    written = _read_mapping(path, named or str(path))
    from accelerate.commands.config.config_args import BaseConfig

    processed = BaseConfig.process_config(dict(written))
    given, read = written.get("dynamo_config"), processed.get("dynamo_config")
    if "dynamo_backend" in written and given and given != read and (_compiles(given) or _compiles(read)):
        raise ConfigError(f"{path}: the accelerate config has a top-level dynamo_backend (an older accelerate's key), "
                          f"which accelerate launch reads in place of the dynamo_config beside it, so dynamo_config "
                          f"{given} is ignored and the run compiles as {read or 'not at all'}: move dynamo_backend "
                          f"into dynamo_config, or remove one of them")
    return written, processed


def mixed_precision_keys(written: dict) -> list[str]:
    """The keys an accelerate config as its file holds it (``written``: :func:`read_profile_as_written`'s first)
    gives its precision with, as a remedy must name them: "fp16" for an older accelerate's ``fp16: true``, which the
    launch reads as mixed_precision fp16 where mixed_precision is missing, else "mixed_precision", and both where
    the file has mixed_precision and an fp16 of truth, which the launch reads once mixed_precision is removed. A
    profile of fp16 beside a DeepSpeed json was told to "Remove mixed_precision", a key its file does not have
    (ninety-eighth session). It took the file's path and read the file again, after its callers had read it, and
    named mixed_precision alone beside an fp16 of truth, which was refused in turn once it was removed (until the
    ninety-ninth session)."""
    older = bool(written.get("fp16"))  # any value of truth is fp16 to the launch (accelerate's process_config)
    return ["mixed_precision"] * ("mixed_precision" in written or not older) + ["fp16"] * older


def as_written(written: dict, key: str) -> str:
    """``key: value`` as the accelerate config's file (``written``) holds it, for a message: ``fp16: 'yes'`` of an
    older profile, which the launch reads as fp16 as it reads ``fp16: true`` (any value of truth), was quoted
    ``fp16: true`` until the ninety-ninth session."""
    value = written[key]
    return f"{key}: {str(value).lower() if isinstance(value, bool) else repr(value)}"  # YAML's true, 'yes' quoted


def precision_as_written(written: dict, mixed) -> str:
    """The setting the launch took the accelerate config's precision ``mixed`` from, ``key: value`` as its file
    (``written``) holds it, for a message: its mixed_precision (``mixed_precision: 'bf16'``), else an older
    accelerate's fp16 of truth (``fp16: true (read as mixed_precision: 'fp16')``)."""
    if mixed_precision_keys(written) == ["fp16"]:
        return f"{as_written(written, 'fp16')} (read as mixed_precision: {mixed!r})"
    return as_written(written, "mixed_precision") if "mixed_precision" in written else f"mixed_precision: {mixed!r}"


def _read_mapping(path: str | Path, named: str) -> dict:
    """The accelerate config at ``path`` as its file holds it, before accelerate rewrites its older keys; an
    UnreadableProfile naming it as ``named`` where it is no accelerate config, a ConfigError where a key is given
    twice (which the launch takes without a word, so a rank says it too).

    Read as hand-edited files are (``hand_edited``), each fault one line saying what to do, where the codec's or
    the parser's words were said until the hundred-and-twenty-third session: a .json profile as accelerate launch
    reads it again, with json.load (``hand_edited.read_json_file``: a byte-order mark refused, which json.load
    stops at); a YAML one's byte-order mark read past, as PyYAML reads it past for the launch too."""
    try:
        if str(path).endswith(".json"):  # as accelerate's load_config_from_file: a tab-indented .json is no YAML
            profile = read_json_file(Path(path), _AGAIN, named=named, reader="accelerate launch",
                                     bom_refused_by="accelerate launch")
        else:
            profile = _read_yaml(Path(path), named)
    except KeyGivenTwice as error:
        raise ConfigError(str(error)) from None
    except DataError as error:
        raise UnreadableProfile(str(error)) from None
    except OSError as error:
        raise UnreadableProfile(f"{named} cannot be read as an accelerate config file ({error.__class__.__name__}: "
                                f"{error})") from None
    if not isinstance(profile, dict):
        raise UnreadableProfile(f"{named} is not an accelerate config (a mapping such as configs/accelerate/ddp.yaml)")
    # `accelerate config` always writes distributed_type. Without this, any mapping (an experiment's
    # config given to the wrong option) was read as a one-process fp32 launch, and planned as one.
    if "distributed_type" not in profile:
        sections = sorted(set(profile) & EXPERIMENT_SECTIONS)
        why = (f"it has the experiment sections {', '.join(sections)}: give it as --config"
               if sections else "it has no distributed_type, which every accelerate config file has")
        raise UnreadableProfile(f"{named} is not an accelerate config ({why}; accelerate's own are in "
                                f"configs/accelerate/)")
    return profile


def _read_yaml(path: Path, named: str) -> Any:
    """A YAML profile's content, its faults each one line naming it as ``named`` (a DataError): not UTF-8 text
    (``hand_edited.not_utf8``, as --config's YAML is told), not YAML, and a key given twice (KeyGivenTwice), which
    the launch's ``yaml.safe_load`` reads as the last one without a word."""
    data = path.read_bytes()
    if fault := not_utf8(data):
        raise DataError(f"{named} {fault}")
    text = utf8_text(data)
    try:
        profile = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise DataError(f"{named} is not valid YAML: {_yaml_fault(text, error)}") from None
    try:  # read again as --config's YAML is (config.yaml_with_unique_keys), for a key given twice alone
        yaml_with_unique_keys(text)
    except yaml.YAMLError as error:
        raise KeyGivenTwice(given_twice(named, f"{error.problem} and at line {error.problem_mark.line + 1}",
                                        "accelerate launch")) from None
    return profile


def _yaml_fault(text: str, error: yaml.YAMLError) -> str:
    """PyYAML's ``error`` of ``text`` (``config.yaml_problem``: the problem, where, and a tab's remedy), with what
    to do: where the parser stopped at the end of the text, wanting more, the file was cut short (as
    ``hand_edited.json_fault`` tells a JSON file); elsewhere the fault is there."""
    said = yaml_problem(error)
    if "replace the tab" in said:
        return said
    mark = getattr(error, "problem_mark", None)
    if mark is not None and mark.index >= len(text.rstrip()):
        return f"{said}: the file ends there, wanting more, so it was cut short; {_AGAIN}"
    return f"{said}; mend it there (a hand edit?), or {_AGAIN}"


def _compiles(dynamo_config) -> bool:
    """Whether a dynamo_config compiles the network (a backend other than NO): where neither the section nor what
    the launch reads in its place does, nothing the section says is lost."""
    if not isinstance(dynamo_config, dict):
        return True  # not a section the launch could read: said as replaced
    backend = dynamo_config.get("dynamo_backend", dynamo_config.get("backend", "NO"))
    return str(backend).upper() != "NO"
