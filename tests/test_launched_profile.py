"""launched_profile.py: the accelerate config file a rank's launcher read, from the launcher's command line, and
silence wherever that cannot be told. A real launch refusing a typo: tests/test_distributed.py, and a
one-process one below."""

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from accelerated_seg import launched_profile
from accelerated_seg.launched_profile import launch_arguments, launched_config_file, profile_keys_error


@pytest.mark.parametrize("command, arguments", [
    (["/v/bin/python", "/v/bin/accelerate", "launch", "--config_file", "f.yaml", "train.py"],
     ["--config_file", "f.yaml", "train.py"]),
    (["python", "-u", "-m", "accelerate.commands.launch", "train.py"], ["train.py"]),
    (["/v/bin/python3", "/v/bin/accelerate-launch", "--cpu", "train.py"], ["--cpu", "train.py"]),
    (["python", "-m", "accelerate.commands.accelerate_cli", "launch", "train.py"], ["train.py"]),
    # not an accelerate launch: torchrun run directly, pytest, a script given `accelerate launch` as arguments
    (["python", "-m", "torch.distributed.run", "--nproc_per_node", "2", "train.py"], None),
    (["python", "-m", "pytest", "-x"], None),
    (["python", "mine.py", "accelerate", "launch", "train.py"], None),
    (["python", "-W", "ignore", "/v/bin/accelerate", "launch", "train.py"], None),  # a value of its own: unknown
    (["python"], None),
])
def test_the_launch_is_told_by_the_program_its_interpreter_runs(command, arguments):
    assert launch_arguments(command) == arguments


class _Launcher:
    """What psutil.Process answers of a launcher with this command line, folder and start time."""

    def __init__(self, command, folder, started):
        self.command, self.folder, self.started = command, folder, started

    def __call__(self, pid):
        return self

    def cmdline(self):
        return self.command

    def cwd(self):
        return str(self.folder)

    def create_time(self):
        return self.started


def _launched_by(monkeypatch, arguments, folder, started=None):
    command = ["/v/bin/python", "/v/bin/accelerate", "launch", *arguments]
    monkeypatch.setattr(psutil, "Process", _Launcher(command, folder, time.time() if started is None else started))


def test_the_config_file_is_the_one_the_launchers_command_line_names_from_its_folder(tmp_path, monkeypatch):
    (tmp_path / "mine.yaml").write_text("distributed_type: FSDP\n")
    _launched_by(monkeypatch, ["--config_file", "mine.yaml", "train.py", "--lr", "1"], tmp_path)
    assert launched_config_file() == tmp_path / "mine.yaml"
    _launched_by(monkeypatch, ["--config_file=mine.yaml", "train.py"], tmp_path)
    assert launched_config_file() == tmp_path / "mine.yaml"


def test_without_a_config_file_it_is_accelerates_default_unless_the_launch_runs_on_the_cpu(tmp_path, monkeypatch):
    import accelerate.commands.config

    default = tmp_path / "default_config.yaml"
    default.write_text("distributed_type: FSDP\n")
    monkeypatch.setattr(accelerate.commands.config, "default_config_file", str(default))
    # the training script's own --config_file is no launch option
    _launched_by(monkeypatch, ["train.py", "--config_file", "mine.yaml"], tmp_path)
    assert launched_config_file() == default
    _launched_by(monkeypatch, ["--cpu", "train.py"], tmp_path)
    assert launched_config_file() is None  # the launch reads no default config with --cpu


def test_a_file_changed_after_the_launcher_started_or_a_command_line_not_accelerates_is_not_taken(tmp_path,
                                                                                                monkeypatch):
    (tmp_path / "mine.yaml").write_text("distributed_type: FSDP\n")
    _launched_by(monkeypatch, ["--config_file", "mine.yaml", "train.py"], tmp_path, started=time.time() - 60)
    assert launched_config_file() is None
    _launched_by(monkeypatch, ["--config_fil", "mine.yaml", "train.py"], tmp_path)  # accelerate's parser refuses
    assert launched_config_file() is None


def test_a_typo_in_the_launched_fsdp_config_is_named_and_nothing_said_where_the_launch_cannot_be_told(tmp_path,
                                                                                                   monkeypatch):
    monkeypatch.setenv("ACCELERATE_USE_FSDP", "true")
    # this test's own parent is no accelerate launch
    assert launch_arguments(psutil.Process(os.getppid()).cmdline()) is None and profile_keys_error() is None
    profile = tmp_path / "mine.yaml"
    profile.write_text("distributed_type: FSDP\nfsdp_config: {fsdp_version: 2, fsdp_state_dict_typ: FULL_STATE_DICT}\n")
    monkeypatch.setattr(launched_profile, "launched_config_file", lambda: profile)
    assert profile_keys_error().startswith(f"{profile}: the accelerate config's fsdp_config has fsdp_state_dict_typ "
                                           f"(did you mean fsdp_state_dict_type?), which accelerate launch does not")
    monkeypatch.setenv("ACCELERATE_USE_FSDP", "false")  # a DDP launch of the same profile (--multi_gpu) uses none
    assert profile_keys_error() is None


def test_a_typo_in_the_launched_dynamo_or_mpirun_config_is_named_in_any_launch(tmp_path, monkeypatch):
    """Every launcher exports dynamo_config's options and the simple one starts mpirun where mpirun_hostfile is set:
    a typo in either was dropped without a word, under DDP as under FSDP."""
    monkeypatch.setenv("ACCELERATE_USE_FSDP", "false")
    profile = tmp_path / "mine.yaml"
    monkeypatch.setattr(launched_profile, "launched_config_file", lambda: profile)
    profile.write_text("distributed_type: MULTI_GPU\ndynamo_config: {dynamo_backend: INDUCTOR, use_fullgraf: true}\n")
    assert profile_keys_error().startswith(f"{profile}: the accelerate config's dynamo_config has use_fullgraf (did "
                                           f"you mean use_fullgraph?), which accelerate launch does not know")
    profile.write_text("distributed_type: MULTI_CPU\nnum_processes: 2\nmpirun_config: {mpirun_hostfle: hosts}\n")
    assert "'s mpirun_config has mpirun_hostfle (did you mean mpirun_hostfile?)" in profile_keys_error()
    profile.write_text("distributed_type: MULTI_GPU\nfp8_config: {backend: TE, fp8_format: HYBRID}\n"
                       "dynamo_config: {dynamo_backend: INDUCTOR, mode: max-autotune}\n")
    assert profile_keys_error() is None


@pytest.mark.parametrize("option, profile_line, asked_by", [
    ("fp8", "mixed_precision: bf16", "accelerate launch's --mixed_precision fp8"),
    (None, "mixed_precision: fp8", "the accelerate config {profile}'s mixed_precision: 'fp8'"),
    (None, None, "ACCELERATE_MIXED_PRECISION=fp8, as the launch exports it")])  # the profile cannot be told
def test_fp8_is_refused_naming_the_setting_that_asked_for_it_as_it_was_written(tmp_path, monkeypatch, option,
                                                                              profile_line, asked_by):
    """The refusal said "the launch asks for mixed_precision fp8" of every one (until the hundredth session), where
    the others quote the profile's key: value as its file writes it and the launcher's option as it is given."""
    from accelerated_seg.strategy import construction_error

    profile = tmp_path / "mine.yaml"
    if profile_line:
        profile.write_text(f"distributed_type: MULTI_GPU\n{profile_line}\n")
    monkeypatch.setenv("ACCELERATE_MIXED_PRECISION", "fp8")
    monkeypatch.setattr(launched_profile, "launched_mixed_precision_option", lambda: option)
    monkeypatch.setattr(launched_profile, "launched_config_file", lambda: profile if profile_line else None)
    assert construction_error().startswith(f"the launch asks for fp8 ({asked_by.format(profile=profile)}), which "
                                           f"accelerated_seg does not train with: ")


@pytest.mark.parametrize("sections", [
    "fp8_config: {backend: TE, fp8_formt: HYBRID}", "fp8_config: {backend: TE, amax_history_length: 16}",
    "megatron_lm_config: {megatron_lm_tp_degre: 2}", "parallelism_config: {parallelism_config_tp_sise: 2}"])
def test_training_refuses_a_typo_in_the_launched_fp8_megatron_or_parallelism_config_as_plan_does(
        tmp_path, monkeypatch, sections):
    """plan --accelerate-config refused these sections' keys that accelerate launch drops, and training's ranks
    read none of them, so a launch of the profile plan refused trained (until the ninety-sixth session)."""
    from accelerated_seg.config import ConfigError
    from accelerated_seg.plan_profile import read_launch_profile

    monkeypatch.setenv("ACCELERATE_USE_FSDP", "false")
    profile = tmp_path / "mine.yaml"
    profile.write_text(f"distributed_type: MULTI_GPU\nmixed_precision: bf16\n{sections}\n")
    monkeypatch.setattr(launched_profile, "launched_config_file", lambda: profile)
    with pytest.raises(ConfigError) as planned:
        read_launch_profile(profile)
    assert profile_keys_error() == f"{planned.value}; `accelerated-seg plan --accelerate-config` checks a profile"


def test_accelerates_launch_parser_is_built_once_for_the_launchers_command_line_and_the_known_keys(tmp_path,
                                                                                                   monkeypatch):
    """Building it takes about 10 ms, on every rank: reading the launcher's command line and naming a profile's
    unknown keys share the one built."""
    import accelerate.commands.launch

    from accelerated_seg.strategy import unknown_section_keys

    built = []
    parser = accelerate.commands.launch.launch_command_parser
    monkeypatch.setattr(accelerate.commands.launch, "launch_command_parser", lambda: built.append(1) or parser())
    launched_profile.launch_parser.cache_clear()  # as in a rank's process: none built yet
    _launched_by(monkeypatch, ["--config_file", "mine.yaml", "train.py"], tmp_path)
    (tmp_path / "mine.yaml").write_text("distributed_type: NO\n")
    assert launched_config_file() == tmp_path / "mine.yaml"
    assert unknown_section_keys("dynamo_config", ["use_fullgraf"]) and unknown_section_keys("fsdp_config", ["versoin"])
    assert len(built) == 1


_ON_THE_CPU = "use_cpu: true\nmixed_precision: 'no'\n"


def _launch_one_process(folder: Path, profile_text: str, rank_script: str, settings: str = _ON_THE_CPU,
                        options: tuple[str, ...] = ()) -> list[str]:
    """The lines the one rank of ``accelerate launch --config_file mine.yaml`` (and ``options``) on the CPU prints
    running ``rank_script``, from ``folder``, where mine.yaml is written with ``profile_text`` after its launch
    ``settings``."""
    (folder / "mine.yaml").write_text("compute_environment: LOCAL_MACHINE\nnum_processes: 1\n" + settings
                                      + profile_text)
    (folder / "rank.py").write_text(rank_script)
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", "accelerate.commands.launch", "--config_file", "mine.yaml", *options,
                           "rank.py"], cwd=folder, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.splitlines()


@pytest.mark.distributed  # a real accelerate launch
def test_a_one_process_launch_names_a_typo_in_its_profiles_dynamo_config(tmp_path):
    """The simple launcher's one process, with no torchrun between, finds the launch and the profile it read
    (``--config_file`` from the launcher's folder); the launch dropped the typo without a word."""
    printed = _launch_one_process(
        tmp_path, "distributed_type: 'NO'\ndynamo_config: {dynamo_backend: 'NO', dynamo_use_fullgraf: true}\n",
        "from accelerated_seg.strategy import construction_error\nprint(construction_error())\n")
    assert printed[-1] == (
        f"{tmp_path / 'mine.yaml'}: the accelerate config's dynamo_config has dynamo_use_fullgraf (did you mean "
        f"dynamo_use_fullgraph?), which accelerate launch does not know and would ignore: correct or remove it "
        f"(`accelerate config` writes the keys it knows); `accelerated-seg plan --accelerate-config` checks a profile")


@pytest.mark.distributed  # a real accelerate launch
def test_a_one_process_launch_names_a_typo_in_its_profiles_parallelism_config_as_plan_does(tmp_path):
    """The launch copies parallelism_config's keys onto its options, as dynamo_config's, and a non-empty section
    switches its parallelism config on; training read none of it, and trained the profile plan refused."""
    printed = _launch_one_process(
        tmp_path, "distributed_type: 'NO'\nparallelism_config: {parallelism_config_tp_sise: 2}\n", _RANK_AND_PLAN_ONLY)
    training, planned = printed[-2:]
    assert training == (f"{tmp_path / 'mine.yaml'}: the accelerate config's parallelism_config has "
                        f"parallelism_config_tp_sise (did you mean parallelism_config_tp_size?), which accelerate "
                        f"launch does not know and would ignore: correct or remove it (`accelerate config` writes the "
                        f"keys it knows); `accelerated-seg plan --accelerate-config` checks a profile")
    assert training.split(": ", 1)[1] == f"{planned.split(': ', 1)[1]}; `accelerated-seg plan --accelerate-config` " \
                                         f"checks a profile"


# A rank that prints training's construction_error and plan's reading of the profile it was launched with.
_RANK_AND_PLAN_ONLY = ("from accelerated_seg.config import ConfigError\nfrom accelerated_seg.plan_profile import "
                       "read_launch_profile\nfrom accelerated_seg.strategy import construction_error\n"
                       "print(construction_error())\ntry:\n    print(read_launch_profile('mine.yaml').describe())\n"
                       "except ConfigError as error:\n    print(error)\n")


# Profiles whose older keys accelerate rewrites as it reads them (BaseConfig.process_config), with what plan and
# training both say of each: the ranks read the raw YAML, and refused the first for a typo in a section the launch
# never read (it compiles nothing either way), and named the third's typo, not that the launch read none of its
# dynamo_config; plan said nothing of the first three.
_REWRITTEN = [
    ("distributed_type: MULTI_GPU\ndynamo_backend: 'NO'\ndynamo_config: {dynamo_backend: 'NO', use_fullgraf: true}\n",
     None),
    ("distributed_type: MULTI_GPU\ndynamo_backend: 'NO'\ndynamo_config: {dynamo_backend: 'NO'}\n", None),
    ("distributed_type: MULTI_GPU\ndynamo_backend: 'NO'\ndynamo_config: {dynamo_backend: INDUCTOR, use_fullgraf: "
     "true}\n", "the accelerate config has a top-level dynamo_backend (an older accelerate's key), which accelerate "
                 "launch reads in place of the dynamo_config beside it, so dynamo_config {'dynamo_backend': "
                 "'INDUCTOR', 'use_fullgraf': True} is ignored and the run compiles as not at all"),
    ("distributed_type: MULTI_GPU\nfp16: true\ndynamo_backend: INDUCTOR\n", None),
    ("distributed_type: MULTI_GPU\ndynamo_backend: INDUCTOR\ndynamo_config: {dynamo_backend: INDUCTOR, mode: "
     "max-autotune}\n", "the accelerate config has a top-level dynamo_backend (an older accelerate's key), which "
                        "accelerate launch reads in place of the dynamo_config beside it"),
    ("distributed_type: MULTI_GPU\ndynamo_config: {dynamo_backend: INDUCTOR, use_fullgraf: true}\n",
     "the accelerate config's dynamo_config has use_fullgraf (did you mean use_fullgraph?)"),
]


@pytest.mark.parametrize("text, said", _REWRITTEN)
def test_training_reads_the_launched_profile_as_plan_does(tmp_path, monkeypatch, text, said):
    from accelerated_seg.config import ConfigError
    from accelerated_seg.plan_profile import read_launch_profile

    monkeypatch.setenv("ACCELERATE_USE_FSDP", "false")
    profile = tmp_path / "mine.yaml"
    profile.write_text(text)
    monkeypatch.setattr(launched_profile, "launched_config_file", lambda: profile)
    training = profile_keys_error()
    try:
        read_launch_profile(profile)
        planned = None
    except ConfigError as error:
        planned = str(error)
    if said is None:
        assert (training, planned) == (None, None)
    else:  # the same message, training's pointing to plan
        assert planned.startswith(f"{profile}: {said}") and training == (
            f"{planned}; `accelerated-seg plan --accelerate-config` checks a profile")


def test_a_json_profile_is_read_as_json_as_the_launch_reads_it(tmp_path, monkeypatch):
    """A .json profile indented with tabs launches (accelerate reads it with json.load) and is no YAML: the ranks
    said nothing of its typo."""
    monkeypatch.setenv("ACCELERATE_USE_FSDP", "false")
    profile = tmp_path / "mine.json"
    profile.write_text('{\n\t"distributed_type": "MULTI_GPU",\n\t"dynamo_config": {"use_fullgraf": true}\n}\n')
    monkeypatch.setattr(launched_profile, "launched_config_file", lambda: profile)
    assert profile_keys_error().startswith(f"{profile}: the accelerate config's dynamo_config has use_fullgraf")


# A rank that prints its dynamo backend and mode as launched, training's construction_error and plan's reading of
# the same file.
_RANK_AND_PLAN = ("import os\nfrom accelerated_seg.config import ConfigError\nfrom accelerated_seg.plan_profile import "
                  "read_launch_profile\nfrom accelerated_seg.strategy import construction_error\n"
                  "print(os.environ['ACCELERATE_DYNAMO_BACKEND'], os.environ['ACCELERATE_DYNAMO_MODE'])\n"
                  "print(construction_error())\ntry:\n    print(read_launch_profile('mine.yaml').describe())\n"
                  "except ConfigError as error:\n    print(error)\n")


@pytest.mark.distributed  # real accelerate launches
def test_a_one_process_launch_and_plan_agree_on_a_profile_whose_older_dynamo_backend_accelerate_rewrites(tmp_path):
    """A top-level dynamo_backend replaces dynamo_config as the launch reads the profile: with 'NO' the launch
    compiled nothing, and training named dynamo_config's typo, not that the launch read none of the section, and plan
    passed it; with INDUCTOR it compiled in mode default, not the max-autotune asked for, and neither said so."""
    replaced = ("the accelerate config has a top-level dynamo_backend (an older accelerate's key), which accelerate "
                "launch reads in place of the dynamo_config beside it, so dynamo_config ")
    for older, section, launched, compiled in (
            ("'NO'", "{dynamo_backend: INDUCTOR, dynamo_use_fullgraf: true}", "NO default",
             "{'dynamo_backend': 'INDUCTOR', 'dynamo_use_fullgraf': True} is ignored and the run compiles as not at "
             "all"),
            ("INDUCTOR", "{dynamo_backend: INDUCTOR, dynamo_mode: max-autotune}", "INDUCTOR default",
             "{'dynamo_backend': 'INDUCTOR', 'dynamo_mode': 'max-autotune'} is ignored and the run compiles as "
             "{'dynamo_backend': 'INDUCTOR'}")):
        profile = f"distributed_type: 'NO'\ndynamo_backend: {older}\ndynamo_config: {section}\n"
        backend, training, planned = _launch_one_process(tmp_path, profile, _RANK_AND_PLAN)[-3:]
        assert backend == launched
        assert planned.startswith(f"mine.yaml: {replaced}{compiled}: move dynamo_backend into dynamo_config")
        assert training.startswith(f"{tmp_path / 'mine.yaml'}: {replaced}{compiled}: move dynamo_backend into")


def test_a_deepspeed_launch_names_its_profiles_own_errors_before_its_jsons_and_the_profile_with_the_json(
        tmp_path, monkeypatch):
    """As plan does: a rank read the json that deepspeed_config_file names first, so a typo in the profile's
    dynamo_config beside a missing json was refused for the json alone, which did not say which profile named it."""
    from accelerated_seg.strategy import construction_error

    for name, value in {"ACCELERATE_USE_DEEPSPEED": "true", "ACCELERATE_USE_FSDP": "false",
                        "ACCELERATE_MIXED_PRECISION": "no", "ACCELERATE_CONFIG_DS_FIELDS": "deepspeed_config_file",
                        "ACCELERATE_DEEPSPEED_CONFIG_FILE": "/nowhere/ds.json"}.items():
        monkeypatch.setenv(name, value)
    profile = tmp_path / "mine.yaml"
    monkeypatch.setattr(launched_profile, "launched_config_file", lambda: profile)
    profile.write_text("distributed_type: DEEPSPEED\ndeepspeed_config: {deepspeed_config_file: /nowhere/ds.json}\n"
                       "dynamo_config: {dynamo_backend: INDUCTOR, use_fullgraf: true}\n")
    assert construction_error().startswith(f"{profile}: the accelerate config's dynamo_config has use_fullgraf")
    profile.write_text("distributed_type: DEEPSPEED\ndeepspeed_config: {deepspeed_config_file: /nowhere/ds.json}\n")
    assert construction_error().startswith(f"{profile}: the accelerate config's deepspeed_config_file /nowhere/ds.json "
                                           f"cannot be read (FileNotFoundError")
    monkeypatch.setattr(launched_profile, "launched_config_file", lambda: None)  # not told: the json's error alone
    assert construction_error().startswith("the accelerate config's deepspeed_config_file /nowhere/ds.json cannot be")


@pytest.mark.parametrize("environment, json_text, said", [
    ({}, '{"bf16": {"enabled": true}}', "the DeepSpeed json {json} has no zero_optimization block, which accelerate "
                                        "needs"),
    ({}, '{"zero_optimization": {"stage": 4}}', "the DeepSpeed json {json} asks for zero_optimization.stage 4, and "
                                                "ZeRO has stages 0 to 3"),
    ({"ACCELERATE_CONFIG_DS_FIELDS": "deepspeed_config_file,zero_stage"}, '{"zero_optimization": {"stage": 2}}',
     "the accelerate config names a DeepSpeed json ({json}) and also sets zero_stage beside it, which accelerate "
     "refuses"),
    ({"ACCELERATE_DEEPSPEED_CONFIG_FILE": "none", "ACCELERATE_DEEPSPEED_ZERO_STAGE": "4"}, None,
     "the accelerate config asks for DeepSpeed zero_stage 4, and ZeRO has stages 0 to 3"),
])
def test_a_deepspeed_launchs_json_content_errors_name_the_profile_with_the_json(tmp_path, monkeypatch, environment,
                                                                                json_text, said):
    """Until the ninety-fifth session a rank named the profile only with a json it could not read: a json without
    zero_optimization, or with a stage outside 0 to 3, was named alone, as were the profile's own fields beside it."""
    from accelerated_seg.strategy import deepspeed_launch_error

    json_file = tmp_path / "ds.json"
    if json_text is not None:
        json_file.write_text(json_text)
    for name, value in {"ACCELERATE_USE_DEEPSPEED": "true", "ACCELERATE_CONFIG_DS_FIELDS": "deepspeed_config_file",
                        "ACCELERATE_DEEPSPEED_CONFIG_FILE": str(json_file), **environment}.items():
        monkeypatch.setenv(name, value)
    profile = tmp_path / "mine.yaml"
    monkeypatch.setattr(launched_profile, "launched_config_file", lambda: profile)
    assert deepspeed_launch_error().startswith(f"{profile}: {said.format(json=json_file)}")
    monkeypatch.setattr(launched_profile, "launched_config_file", lambda: None)  # not told: the json's alone
    assert deepspeed_launch_error().startswith(said.format(json=json_file))


# DeepSpeed jsons beside which a profile sets a top-level mixed_precision: a bf16 block, "auto" ones, none.
_JSONS = ['{"zero_optimization": {"stage": 2}, "bf16": {"enabled": true}}',
          '{"zero_optimization": {"stage": 2}, "bf16": {"enabled": "auto"}, "fp16": {"enabled": "auto"}}',
          '{"zero_optimization": {"stage": 2}}']


# A profile's top-level precision: its lines, the launch's mixed_precision, the message's setting, the keys to remove.
_TOPS = [("mixed_precision: bf16", "bf16", "mixed_precision: 'bf16'", "mixed_precision"),
         ("mixed_precision: 'no'", "no", "mixed_precision: 'no'", "mixed_precision"),
         # an older accelerate's fp16, read as fp16; any value of truth: quoted as the file has it
         ("fp16: true", "fp16", "fp16: true (read as mixed_precision: 'fp16')", "fp16"),
         ("fp16: 'yes'", "fp16", "fp16: 'yes' (read as mixed_precision: 'fp16')", "fp16"),
         # beside mixed_precision, an fp16 of truth is read once mixed_precision is removed; one of none is not
         ("mixed_precision: bf16\nfp16: true", "bf16", "mixed_precision: 'bf16' and fp16: true",
          "mixed_precision and fp16"),
         ("mixed_precision: bf16\nfp16: false", "bf16", "mixed_precision: 'bf16'", "mixed_precision")]


@pytest.mark.parametrize("json_text", _JSONS)
@pytest.mark.parametrize("top, named, setting, removed", _TOPS)
@pytest.mark.parametrize("option", [None, "bf16"])  # no json here refuses bf16 as asked
def test_a_top_level_mixed_precision_beside_a_deepspeed_json_is_refused_by_plan_and_training_alike(
        tmp_path, monkeypatch, json_text, top, named, setting, removed, option):
    """accelerate refuses it, whatever the json holds, where the launch has no --mixed_precision (its
    _deepspeed_config_checks: a ValueError in every rank), and ignores it where it has one. plan passed it and took
    its precision where the json had no bf16/fp16 block, training refused it in words for the deepspeed_config
    section ("Remove them from the accelerate config"), and said nothing where --mixed_precision was given (until
    the ninety-sixth session). An older fp16: 'yes' was quoted as fp16: true, and mixed_precision: bf16 as
    mixed_precision 'bf16', without the colon the file writes, and beside mixed_precision an fp16: true was
    refused in turn once mixed_precision was removed (until the ninety-ninth session): the keys named, and they
    alone, are removed in one round."""
    from accelerated_seg.config import ConfigError
    from accelerated_seg.plan_profile import read_launch_profile
    from accelerated_seg.strategy import construction_error

    json_file, profile = tmp_path / "ds.json", tmp_path / "mine.yaml"
    json_file.write_text(json_text)
    profile.write_text(f"distributed_type: DEEPSPEED\nnum_processes: 2\n{top}\n"
                       f"deepspeed_config: {{deepspeed_config_file: {json_file}}}\n")
    # what accelerate launch exports: the profile's precision, named among the fields, unless --mixed_precision
    fields = "deepspeed_config_file" + ",mixed_precision" * (not option)
    for name, value in {"ACCELERATE_USE_DEEPSPEED": "true", "ACCELERATE_USE_FSDP": "false",
                        "ACCELERATE_DEEPSPEED_CONFIG_FILE": str(json_file), "ACCELERATE_CONFIG_DS_FIELDS": fields,
                        "ACCELERATE_MIXED_PRECISION": option or named}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(launched_profile, "launched_config_file", lambda: profile)
    # the remedy names the keys in the file: fp16 was told "Remove mixed_precision"
    said = (f"the accelerate config names a DeepSpeed json ({json_file}) and also sets {setting} at "
            f"its top, which accelerate refuses beside a json (or ignores, where accelerate launch is given "
            f"--mixed_precision): the json's bf16/fp16 blocks decide the precision. Remove {removed} from the "
            f"accelerate config")
    with pytest.raises(ConfigError) as planned:
        read_launch_profile(profile)
    assert str(planned.value).startswith(f"{profile}: {said}") and construction_error() == str(planned.value)
    monkeypatch.setattr(launched_profile, "launched_config_file", lambda: None)  # not told: what the launch exports
    untold = said.replace(f"sets {setting}", f"sets mixed_precision: '{named}'").replace(f"Remove {removed} ",
                                                                                        "Remove mixed_precision ")
    assert construction_error() == (untold + str(planned.value).split(said)[1] if not option else None)
    # without the keys it names, the json decides: plan reads its precision, and training says nothing
    monkeypatch.setattr(launched_profile, "launched_config_file", lambda: profile)
    monkeypatch.setenv("ACCELERATE_CONFIG_DS_FIELDS", "deepspeed_config_file")
    monkeypatch.setenv("ACCELERATE_MIXED_PRECISION", "no")  # as the launch exports it without one
    left = "".join(f"{line}\n" for line in top.splitlines() if line.split(":")[0] not in removed.split(" and "))
    profile.write_text(f"distributed_type: DEEPSPEED\nnum_processes: 2\n{left}"
                       f"deepspeed_config: {{deepspeed_config_file: {json_file}}}\n")
    assert construction_error() is None
    assert read_launch_profile(profile).precision == ("bf16" if '"enabled": true' in json_text else "fp32")


@pytest.mark.parametrize("top, setting", [("mixed_precision: bf16", "mixed_precision: 'bf16'"),
                                          ("fp16: 1", "fp16: 1 (read as mixed_precision: 'fp16')")])
def test_plan_and_a_rank_read_the_profile_once_to_refuse_its_mixed_precision_beside_a_json(tmp_path, monkeypatch,
                                                                                            top, setting):
    """The key the message names was found by reading and parsing the file again, after plan and the rank had read
    it (until the ninety-ninth session); the value is quoted as the file holds it (fp16: 1, not true)."""
    from accelerated_seg import accelerate_profile
    from accelerated_seg.config import ConfigError
    from accelerated_seg.plan_profile import read_launch_profile
    from accelerated_seg.strategy import deepspeed_launch_error

    json_file, profile = tmp_path / "ds.json", tmp_path / "mine.yaml"
    json_file.write_text(_JSONS[2])
    profile.write_text(f"distributed_type: DEEPSPEED\n{top}\ndeepspeed_config: {{deepspeed_config_file: {json_file}}}\n")
    for name, value in {"ACCELERATE_USE_DEEPSPEED": "true", "ACCELERATE_DEEPSPEED_CONFIG_FILE": str(json_file),
                        "ACCELERATE_CONFIG_DS_FIELDS": "deepspeed_config_file,mixed_precision"}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(launched_profile, "launched_config_file", lambda: profile)
    reads = []
    read = accelerate_profile._read_mapping
    monkeypatch.setattr(accelerate_profile, "_read_mapping", lambda *args: reads.append(args) or read(*args))
    with pytest.raises(ConfigError, match=f"sets {re.escape(setting)} .* Remove {top.split(':')[0]} from"):
        read_launch_profile(profile)
    assert len(reads) == 1
    assert f"sets {setting} " in deepspeed_launch_error() and len(reads) == 2


@pytest.mark.distributed  # real accelerate launches of DeepSpeed, one process on the CPU
def test_a_one_process_deepspeed_launch_and_plan_agree_on_a_mixed_precision_beside_its_json(tmp_path):
    """Launched without --mixed_precision, accelerate refused the profile in every rank with its own ValueError at
    the Accelerator, which training named as a deepspeed_config field and plan passed; with it, the profile's was
    ignored without a word."""
    (tmp_path / "ds.json").write_text(_JSONS[1])
    profile = "distributed_type: DEEPSPEED\ndeepspeed_config: {deepspeed_config_file: ds.json}\n"
    said = ("the accelerate config names a DeepSpeed json (ds.json) and also sets mixed_precision: 'bf16' at its top, "
            "which accelerate refuses beside a json")
    for options in ((), ("--mixed_precision", "fp16")):
        training, planned = _launch_one_process(tmp_path, profile, _RANK_AND_PLAN_ONLY, "mixed_precision: bf16\n",
                                                options)[-2:]
        assert planned.startswith(f"mine.yaml: {said}") and training.startswith(f"{tmp_path / 'mine.yaml'}: {said}")
        assert training.split(": ", 1)[1] == planned.split(": ", 1)[1]


def _deepspeed_launch_of(tmp_path, monkeypatch, json_text: str, asked: str) -> tuple[Path, Path]:
    """A DeepSpeed launch's environment (ACCELERATE_MIXED_PRECISION ``asked``) of the profile mine.yaml naming the
    json ds.json (``json_text``), both in ``tmp_path``."""
    json_file, profile = tmp_path / "ds.json", tmp_path / "mine.yaml"
    json_file.write_text(json_text)
    profile.write_text(f"distributed_type: DEEPSPEED\ndeepspeed_config: {{deepspeed_config_file: {json_file}}}\n")
    for name, value in {"ACCELERATE_USE_DEEPSPEED": "true", "ACCELERATE_USE_FSDP": "false",
                        "ACCELERATE_DEEPSPEED_CONFIG_FILE": str(json_file), "ACCELERATE_MIXED_PRECISION": asked,
                        "ACCELERATE_CONFIG_DS_FIELDS": "deepspeed_config_file"}.items():
        monkeypatch.setenv(name, value)
    return json_file, profile


@pytest.mark.parametrize("asked, json_text, said", [
    ("fp16", _JSONS[0], "the launch (accelerate launch's --mixed_precision, or the precision given to the run) asks "
                        "for mixed precision fp16, and bf16.enabled is true in the DeepSpeed json {json}, which "
                        "accelerate refuses beside it: to train fp16, write \"bf16\": {{\"enabled\": false}} in "
                        "{json}; to train bf16, ask for bf16 in its place"),
    # the json's own field, not a mixed_precision 'fp16' of the launch's (until the ninety-seventh session)
    ("bf16", '{"zero_optimization": {"stage": 2}, "fp16": {"enabled": "True"}}', "fp16.enabled is true in the "
                                                                                 "DeepSpeed json {json}, which "
                                                                                 "accelerate refuses"),
    ("bf16", _JSONS[0], None), ("fp16", _JSONS[1], None), ("no", _JSONS[0], None), ("fp16", _JSONS[2], None)])
def test_a_precision_asked_against_the_deepspeed_jsons_block_is_one_error_naming_the_json(
        tmp_path, monkeypatch, asked, json_text, said):
    """accelerate launch --mixed_precision fp16 beside a json that switches bf16 on stopped every rank with
    accelerate's ValueError as the Accelerator was built ("`--mixed_precision` arg cannot be set to `fp16` when
    `bf16` is set in the DeepSpeed config file"); plan cannot tell it, as it does not see the launch's options."""
    from accelerated_seg.strategy import construction_error

    json_file, profile = _deepspeed_launch_of(tmp_path, monkeypatch, json_text, asked)
    monkeypatch.setattr(launched_profile, "launched_config_file", lambda: profile)
    monkeypatch.setattr(launched_profile, "launched_mixed_precision_option", lambda: None)  # not told how it was asked
    error = construction_error()
    assert error is None if said is None else error.startswith(f"{profile}: ") and said.format(json=json_file) in error


def test_mixed_precision_no_given_beside_a_json_that_switches_bf16_on_is_refused_naming_the_option(
        tmp_path, monkeypatch):
    """accelerate launch --mixed_precision no beside a json of "bf16": {"enabled": true} trained bf16 without a word,
    its strategy line's "mixed precision bf16" the only trace (a probe of the ninety-seventh session, accelerate
    1.16): its DeepSpeed state takes the precision from the json. Without the option the json decides, as asked."""
    from accelerated_seg.strategy import construction_error

    json_file, profile = _deepspeed_launch_of(tmp_path, monkeypatch, _JSONS[0], "no")
    (tmp_path / "mine.yaml").write_text(profile.read_text())
    _launched_by(monkeypatch, ["--config_file", "mine.yaml", "--mixed_precision", "no", "train.py"], tmp_path)
    assert construction_error() == (
        f"{profile}: accelerate launch's --mixed_precision no asks for no mixed precision, and bf16.enabled is true in "
        f"the DeepSpeed json {json_file}, so accelerate would train bf16 all the same, without a word: to train fp32, "
        f"write \"bf16\": {{\"enabled\": false}} in {json_file}; to train bf16, give accelerate launch's "
        f"--mixed_precision bf16 in its place")
    _launched_by(monkeypatch, ["--config_file", "mine.yaml", "train.py"], tmp_path)  # "no" by the launch's default
    assert construction_error() is None
    json_file.write_text(_JSONS[1])  # "auto": "no" trains fp32, as asked
    _launched_by(monkeypatch, ["--config_file", "mine.yaml", "--mixed_precision", "no", "train.py"], tmp_path)
    assert construction_error() is None


@pytest.mark.parametrize("asked, json_text, field", [
    ("bf16", '{"zero_optimization": {"stage": 2}, "bf16": {"enabled": false}}', "bf16.enabled is false"),
    ("fp16", '{"zero_optimization": {"stage": 2}, "fp16": {"enabled": 0}}', "fp16.enabled is false"),
    ("bf16", '{"zero_optimization": {"stage": 2}, "bf16": {}}', "bf16.enabled is not set (DeepSpeed's default: "
                                                                 "false)")])
def test_a_precision_given_beside_a_json_that_switches_its_block_off_is_refused_naming_the_option(
        tmp_path, monkeypatch, asked, json_text, field):
    """accelerate launch --mixed_precision bf16 beside a json of "bf16": {"enabled": false} trained fp32 without a
    word, its strategy line's "mixed precision no" the only trace (found by benchmark train in the ninety-seventh
    session): accelerate fills the json's block only where it is missing or "auto", and DeepSpeed's enabled is false
    where the block leaves it out. Where nobody asked (the launch's "no" by default) nothing is refused."""
    from accelerated_seg.strategy import construction_error

    json_file, profile = _deepspeed_launch_of(tmp_path, monkeypatch, json_text, asked)
    _launched_by(monkeypatch, ["--config_file", "mine.yaml", "--mixed_precision", asked, "train.py"], tmp_path)
    assert construction_error() == (
        f"{profile}: accelerate launch's --mixed_precision {asked} asks for mixed precision {asked}, and {field} in "
        f"the DeepSpeed json {json_file}, so accelerate would train fp32 all the same, without a word: to train "
        f"{asked}, write \"{asked}\": {{\"enabled\": \"auto\"}} in {json_file} (\"auto\" takes the precision "
        f"asked); to train fp32, give accelerate launch's --mixed_precision no in its place")
    monkeypatch.setenv("ACCELERATE_MIXED_PRECISION", "no")
    _launched_by(monkeypatch, ["--config_file", "mine.yaml", "train.py"], tmp_path)  # "no" by the launch's default
    assert construction_error() is None


def test_the_estimators_precision_beside_a_json_that_switches_its_block_off_is_refused_naming_it(
        tmp_path, monkeypatch):
    """Segmentation(precision='bf16') beside a json of "bf16": {"enabled": false} trained fp32 without a word."""
    from accelerated_seg.strategy import construction_error, next_accelerator_in

    json_file, profile = _deepspeed_launch_of(
        tmp_path, monkeypatch, '{"zero_optimization": {"stage": 2}, "bf16": {"enabled": false}}', "no")
    monkeypatch.setattr(launched_profile, "launched_config_file", lambda: profile)
    monkeypatch.setattr(launched_profile, "launched_mixed_precision_option", lambda: None)  # a notebook's processes
    with next_accelerator_in("bf16", given_as="Segmentation(precision='bf16')"):
        assert construction_error().startswith(
            f"{profile}: Segmentation(precision='bf16') asks for mixed precision bf16, and bf16.enabled is false in "
            f"the DeepSpeed json {json_file}, so accelerate would train fp32")
    for precision in ("fp32", "fp16"):  # fp32 as the json says; fp16 fills no block of bf16's
        with next_accelerator_in(precision, given_as=f"Segmentation(precision={precision!r})"):
            assert construction_error() is None


@pytest.mark.distributed  # real accelerate launches of DeepSpeed, one process on the CPU
def test_a_one_process_deepspeed_launch_given_mixed_precision_no_beside_a_bf16_json_is_refused(tmp_path):
    """What the launch really exports and its command line: ACCELERATE_MIXED_PRECISION is "no" with the option and
    without it, and only the launcher's command line tells them apart. Run through training, the first trained bf16
    with the strategy line "mixed precision bf16", exit 0 (a probe of the ninety-seventh session)."""
    pytest.importorskip("deepspeed", reason="the test extra installs DeepSpeed")
    (tmp_path / "ds.json").write_text(_JSONS[0])
    profile = "distributed_type: DEEPSPEED\ndeepspeed_config: {deepspeed_config_file: ds.json}\n"
    rank = "from accelerated_seg.strategy import construction_error\nprint(construction_error())\n"
    refused = _launch_one_process(tmp_path, profile, rank, "", ("--mixed_precision", "no"))[-1]
    assert refused.startswith(f"{tmp_path / 'mine.yaml'}: accelerate launch's --mixed_precision no asks for no mixed "
                              f"precision, and bf16.enabled is true in the DeepSpeed json ds.json"), refused
    assert _launch_one_process(tmp_path, profile, rank, "")[-1] == "None"  # the json decides


def test_the_estimators_precision_is_named_as_its_own_argument_beside_a_deepspeed_json(tmp_path, monkeypatch):
    """Segmentation(precision=...) sets the run's precision (strategy.next_accelerator_in): a refusal named it as
    the launch's --mixed_precision, which the user did not give."""
    from accelerated_seg.strategy import construction_error, next_accelerator_in

    json_file, profile = _deepspeed_launch_of(tmp_path, monkeypatch, _JSONS[0], "no")
    monkeypatch.setattr(launched_profile, "launched_config_file", lambda: profile)
    monkeypatch.setattr(launched_profile, "launched_mixed_precision_option", lambda: None)  # a notebook's processes
    for precision, said in (("fp32", "Segmentation(precision='fp32') asks for no mixed precision, and bf16.enabled is "
                                     "true in the DeepSpeed json"),
                            ("fp16", "Segmentation(precision='fp16') asks for mixed precision fp16, and bf16.enabled "
                                     "is true in the DeepSpeed json")):
        with next_accelerator_in(precision, given_as=f"Segmentation(precision={precision!r})"):
            assert construction_error().startswith(f"{profile}: {said} {json_file}")
    with next_accelerator_in("bf16", given_as="Segmentation(precision='bf16')"):
        assert construction_error() is None


@pytest.mark.distributed  # a real accelerate launch
def test_a_one_process_launch_refuses_a_tensor_parallel_size_from_what_the_launch_exports_as_plan_does(tmp_path):
    """The launch exports a non-empty parallelism_config's sizes to its ranks, which read none of them."""
    training, planned = _launch_one_process(
        tmp_path, "distributed_type: 'NO'\nparallelism_config: {parallelism_config_tp_size: 2}\n",
        _RANK_AND_PLAN_ONLY)[-2:]
    assert training == planned.replace("mine.yaml", str(tmp_path / "mine.yaml"), 1)
    assert "parallelism_config asks for parallelism_config_tp_size 2 (tensor parallelism)" in training


@pytest.mark.parametrize("distributed_type", ["MULTI_GPU", "FSDP\nfsdp_config: {fsdp_version: 2}"])
def test_a_tensor_or_context_parallel_size_is_refused_by_plan_and_training_alike(tmp_path, monkeypatch,
                                                                                  distributed_type):
    """A non-empty parallelism_config switches accelerate's parallelism config on (ACCELERATE_USE_PARALLELISM_CONFIG,
    each size as PARALLELISM_CONFIG_*), and plan and training passed tensor and context parallel sizes the loop does
    not run (until the ninety-seventh session); sizes of 1 change nothing and pass."""
    from accelerated_seg.config import ConfigError
    from accelerated_seg.plan_profile import read_launch_profile
    from accelerated_seg.strategy import construction_error

    profile = tmp_path / "mine.yaml"
    monkeypatch.setattr(launched_profile, "launched_config_file", lambda: profile)
    monkeypatch.setenv("ACCELERATE_USE_FSDP", "false")  # the FSDP checks of a GPU machine are not these
    sizes = {"dp_replicate_size": 1, "dp_shard_size": 2, "tp_size": 2, "cp_size": 4, "sp_size": 1}
    for name, value in {"ACCELERATE_USE_PARALLELISM_CONFIG": "true", **{f"PARALLELISM_CONFIG_{key.upper()}": str(size)
                                                                       for key, size in sizes.items()}}.items():
        monkeypatch.setenv(name, value)
    section = ", ".join(f"parallelism_config_{key}: {size}" for key, size in sizes.items())
    profile.write_text(f"distributed_type: {distributed_type}\nmixed_precision: bf16\nparallelism_config: "
                       f"{{{section}}}\n")
    with pytest.raises(ConfigError) as planned:
        read_launch_profile(profile)
    said = ("the accelerate config's parallelism_config asks for parallelism_config_tp_size 2, "
            "parallelism_config_cp_size 4 (tensor and context parallelism), which this package's training loop does "
            "not run: it shards a network by FSDP or DeepSpeed alone")
    assert str(planned.value).startswith(f"{profile}: {said}")
    assert construction_error() == str(planned.value)
    for key in ("TP", "CP"):
        monkeypatch.setenv(f"PARALLELISM_CONFIG_{key}_SIZE", "1")
    profile.write_text(profile.read_text().replace(": 2, parallelism_config_cp_size: 4", ": 1, "
                                                                                       "parallelism_config_cp_size: 1"))
    assert construction_error() is None and read_launch_profile(profile).processes == 1


def test_a_megatron_launch_is_refused_by_training_in_plans_words(tmp_path, monkeypatch):
    """plan refused distributed_type MEGATRON_LM as one this package does not launch; its launch stopped every rank
    with accelerate's ImportError (Megatron-LM not installed) as the Accelerator was built (until the ninety-sixth
    session). A typo in its megatron_lm_config is said first, by both."""
    from accelerated_seg.config import ConfigError
    from accelerated_seg.plan_profile import read_launch_profile
    from accelerated_seg.strategy import construction_error

    for name, value in {"ACCELERATE_USE_MEGATRON_LM": "true", "ACCELERATE_USE_FSDP": "false",
                        "ACCELERATE_USE_DEEPSPEED": "false", "ACCELERATE_MIXED_PRECISION": "bf16"}.items():
        monkeypatch.setenv(name, value)
    profile = tmp_path / "mine.yaml"
    monkeypatch.setattr(launched_profile, "launched_config_file", lambda: profile)
    for section, said in (("megatron_lm_config: {megatron_lm_tp_degre: 2}\n", "the accelerate config's "
                           "megatron_lm_config has megatron_lm_tp_degre (did you mean megatron_lm_tp_degree?)"),
                          ("megatron_lm_config: {megatron_lm_tp_degree: 2}\n", "distributed_type: 'MEGATRON_LM' is not "
                           "one this package launches (NO, MULTI_CPU, MULTI_GPU, FSDP or DEEPSPEED)")):
        profile.write_text(f"distributed_type: MEGATRON_LM\nmixed_precision: bf16\n{section}")
        with pytest.raises(ConfigError) as planned:
            read_launch_profile(profile)
        assert str(planned.value).startswith(f"{profile}: {said}")
        assert construction_error().startswith(str(planned.value))
    monkeypatch.setattr(launched_profile, "launched_config_file", lambda: None)  # not told: the launch's own words
    # MULTI_CPU in the list, which plan and the ranks take (it was left out until review r129)
    assert construction_error() == "distributed_type: 'MEGATRON_LM' is not one this package launches (NO, MULTI_CPU, " \
                                   "MULTI_GPU, FSDP or DEEPSPEED)"


@pytest.mark.parametrize("entry, written", [('"bf16": true', '"bf16": {"enabled": true}'),
                                            ('"fp16": "auto"', '"fp16": {"enabled": "auto"}'),
                                            ('"fp16": false', '"fp16": {"enabled": false}'),
                                            ('"bf16": null', '"bf16": {"enabled": true}')])
def test_a_deepspeed_jsons_precision_entry_that_is_no_block_is_one_error_naming_the_json_key_and_form(
        tmp_path, monkeypatch, entry, written):
    """DeepSpeed reads a bf16/fp16 entry as a block of settings (its DeepSpeedBF16Config(**entry): a TypeError) and
    accelerate reads its "enabled" (an AttributeError as the Accelerator is built); the checks of the precision met
    it first and died alike: training, the estimator's fit and plan (until the ninety-eighth session)."""
    from accelerated_seg.config import ConfigError
    from accelerated_seg.plan_profile import read_launch_profile
    from accelerated_seg.strategy import construction_error, precision_against_the_launched_json

    json_file, profile = _deepspeed_launch_of(tmp_path, monkeypatch,
                                              '{"zero_optimization": {"stage": 2}, ' + entry + '}', "fp16")
    monkeypatch.setattr(launched_profile, "launched_config_file", lambda: profile)
    monkeypatch.setattr(launched_profile, "launched_mixed_precision_option", lambda: None)
    said = (f"the DeepSpeed json {json_file} has {entry}, and DeepSpeed takes a block of settings there, not a "
            f"value: write {written}")
    assert construction_error().startswith(f"{profile}: {said}")
    for precision in ("fp32", "bf16", "fp16"):  # the estimator's fit and benchmark train, before any launch
        assert precision_against_the_launched_json(precision, "Segmentation(precision='{precision}')"
                                                   ).startswith(said)
    with pytest.raises(ConfigError) as planned:
        read_launch_profile(profile)
    assert str(planned.value).startswith(f"{profile}: {said}")


@pytest.mark.parametrize("torchrun", [["/v/bin/python", "/v/bin/torchrun", "--nproc_per_node", "2", "train.py"],
                                      ["python", "-m", "torch.distributed.run", "--nproc_per_node", "2", "train.py"]])
@pytest.mark.parametrize("asked, json_text", [
    ("no", _JSONS[0]), ("bf16", '{"zero_optimization": {"stage": 2}, "bf16": {"enabled": false}}'),
    ("fp16", _JSONS[0])])
def test_torchrun_run_directly_refuses_a_precision_against_the_json_as_accelerate_launch_does(
        tmp_path, monkeypatch, torchrun, asked, json_text):
    """torchrun exports no ACCELERATE_MIXED_PRECISION of its own, so one in its ranks' environment was set for it:
    ACCELERATE_MIXED_PRECISION=no beside a json switching bf16 on trained bf16 without a word, and the other
    conflicts were said as asked by "accelerate launch's --mixed_precision", which nobody gave (until the ninety-eighth
    session). Refused as accelerate launch --mixed_precision refuses them, the variable named."""
    from accelerated_seg.strategy import construction_error

    json_file, profile = _deepspeed_launch_of(tmp_path, monkeypatch, json_text, asked)
    _launched_by(monkeypatch, ["--config_file", "mine.yaml", "--mixed_precision", asked, "train.py"], tmp_path)
    launched = construction_error().split(": ", 1)[1]  # after the profile, which torchrun does not name
    monkeypatch.setattr(psutil, "Process", _Launcher(torchrun, tmp_path, time.time()))
    assert construction_error() == re.sub(r"accelerate launch's --mixed_precision (\w+)",
                                          r"ACCELERATE_MIXED_PRECISION=\1 (set for torchrun, run without accelerate "
                                          r"launch)", launched)


@pytest.mark.distributed  # a real torchrun launch, one process on the CPU
def test_a_one_process_torchrun_launch_refuses_mixed_precision_no_set_for_it_beside_a_bf16_json(tmp_path):
    """The rank's parent is torchrun's agent (``python -m torch.distributed.run``), which exports no precision: the
    "no" in its environment was set for it, and trained bf16 without a word beside this json (until the ninety-eighth
    session)."""
    (tmp_path / "ds.json").write_text(_JSONS[0])
    (tmp_path / "rank.py").write_text("from accelerated_seg.strategy import construction_error\n"
                                      "print(construction_error())\n")
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]),
           "ACCELERATE_USE_DEEPSPEED": "true", "ACCELERATE_DEEPSPEED_CONFIG_FILE": "ds.json",
           "ACCELERATE_MIXED_PRECISION": "no"}
    done = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "1", "rank.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines()[-1].startswith(
        "ACCELERATE_MIXED_PRECISION=no (set for torchrun, run without accelerate launch) asks for no mixed precision, "
        "and bf16.enabled is true in the DeepSpeed json ds.json, so accelerate would train bf16"), done.stdout


@pytest.mark.parametrize("json_text, precision", [(_JSONS[0], "fp16"), (_JSONS[0], "fp32"),
                                                  ('{"zero_optimization": {"stage": 2}, "bf16": {"enabled": false}}',
                                                   "bf16")])
def test_plan_refuses_a_precision_its_profiles_deepspeed_json_contradicts_in_trainings_words(
        tmp_path, monkeypatch, capsys, json_text, precision):
    """plan --precision stands for the launch's --mixed_precision; beside a DeepSpeed json that contradicts it,
    training refuses the launch, and plan printed a table "for fp16, as --precision asks" (until the ninety-eighth
    session)."""
    from accelerated_seg.cli import main
    from accelerated_seg.strategy import MIXED_PRECISION, PRECISION_OF_MIXED, construction_error

    mixed = MIXED_PRECISION[precision]
    json_file, profile = _deepspeed_launch_of(tmp_path, monkeypatch, json_text, mixed)
    _launched_by(monkeypatch, ["--config_file", "mine.yaml", "--mixed_precision", mixed, "train.py"], tmp_path)
    trained = construction_error()
    assert main(["plan", "--model", "unet", "--patch", "32", "32", "32", "--accelerate-config", str(profile),
                 "--precision", precision]) == 2
    planned = capsys.readouterr().err.strip().splitlines()
    assert planned == ["error: " + re.sub(r"accelerate launch's --mixed_precision (\w+)",
                                          lambda asked: f"--precision {PRECISION_OF_MIXED[asked[1]]} (accelerate "
                                                        f"launch's --mixed_precision {asked[1]})", trained)]
    json_file.write_text(_JSONS[1])  # "auto": plan's --precision is the launch's
    assert main(["plan", "--model", "unet", "--patch", "32", "32", "32", "--accelerate-config", str(profile),
                 "--precision", precision]) == 0
