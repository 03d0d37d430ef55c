"""The accelerate config file that the ``accelerate launch`` which started this rank read, found from the
launcher's command line, for what that launch drops without a word and exports nothing of: a key it does not
know inside a section it copies onto its options, ``fsdp_config`` (``fsdp_offload_param: true`` ran without
offloading), ``dynamo_config``, ``mpirun_config``, ``fp8_config``, ``megatron_lm_config`` or ``parallelism_config``
(as plan --accelerate-config refuses them); beside a DeepSpeed json, a top-level ``mixed_precision`` that a
launch given ``--mixed_precision`` ignores (``launched_mixed_precision``); a ``parallelism_config`` that a one-process
launch drops (``launched_parallelism_config``); and whether the launch was given ``--mixed_precision`` at all
(``launched_mixed_precision_option``), which the exported ACCELERATE_MIXED_PRECISION does not tell from its default;
where torchrun run directly is the launcher instead, that variable is the user's (``environment_precision_setting``).

    profile_keys_error()   # "/abs/fsdp.yaml: the accelerate config's fsdp_config has fsdp_versoin (did you ...?)..."

The launch copies those sections' keys onto its options and exports as variables those it has an option
for; unlike ``deepspeed_config`` (ACCELERATE_CONFIG_DS_FIELDS) nothing it exports names the file or the keys.
Its ranks are its children: the simple launcher's subprocess, and the processes of torchrun's elastic agent,
which runs inside the launcher (launcher_death relies on it too). Parsed by accelerate's own parser, the
launcher's command line names the file as the launch read it: ``--config_file`` from the launcher's folder,
else accelerate's default config (not with ``--cpu``). On several machines each one's ranks read their own
machine's launcher and file.

Silent (None) wherever it cannot tell, never a refusal from a guess: a parent that is no accelerate launch
(torchrun or srun run directly, a notebook's fork, ``--no_python``'s wrapper), a launcher that died, a /proc
that may not be read, a command line accelerate's parser does not take, a file changed since the launcher
started, or one that is no local machine's profile.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
from pathlib import Path

# The ways `accelerate launch` is run, by the program its interpreter runs: `accelerate launch` (the console
# script), `accelerate-launch`, `python -m accelerate.commands.launch`, `python -m accelerate.commands.accelerate_cli
# launch`.
_SUBCOMMAND_AFTER = ("accelerate", "accelerate.commands.accelerate_cli")
_LAUNCH_ITSELF = ("accelerate-launch", "accelerate.commands.launch")
#: A file changed this many seconds after the launcher started is not taken as the one it read (a process's
#: start time is known to about a second).
_CHANGED_AFTER_S = 2.0


def launch_arguments(command: list[str]) -> list[str] | None:
    """The arguments of accelerate launch in a process's command line, else None (not an accelerate launch)."""
    if (program := _program(command)) is None:
        return None
    name, arguments = program
    if name in _LAUNCH_ITSELF:
        return arguments
    if name in _SUBCOMMAND_AFTER and arguments[:1] == ["launch"]:
        return arguments[1:]
    return None


def _program(command: list[str]) -> tuple[str, list[str]] | None:
    """(the program an interpreter's command line runs, its arguments), else None where it cannot be told.

    The program is the interpreter's first argument that is no option of its own, or the module after ``-m``;
    an interpreter option with a value of its own (``-W ignore``) makes it unknown, and so None.
    """
    i = 1
    while i < len(command) and command[i].startswith("-") and command[i] != "-m":
        i += 1
    if command[i:i + 1] == ["-m"]:
        i += 1
    if i >= len(command):
        return None
    program = command[i] if command[i].startswith(("accelerate.", "torch.")) else os.path.basename(command[i])
    return program, command[i + 1:]


#: torchrun run directly, by the program its interpreter runs: its console script, `python -m torch.distributed.run`
#: and the older `python -m torch.distributed.launch`. accelerate launch runs torchrun's agent inside itself, so the
#: ranks of its launches have accelerate as their parent, never these.
_TORCHRUN = ("torchrun", "torch.distributed.run", "torch.distributed.launch")


def environment_precision_setting() -> str | None:
    """ACCELERATE_MIXED_PRECISION as a setting the user gave (``strategy.precision_asked_by``), where torchrun run
    directly started this process, else None.

    accelerate launch exports the variable in every launch, "no" by default, so only its ``--mixed_precision``
    tells a "no" asked for; torchrun exports none, and a value there is one set for it by hand (or a job script):
    ACCELERATE_MIXED_PRECISION=no beside a DeepSpeed json switching bf16 on trained bf16 without a word, where
    accelerate launch --mixed_precision no was refused (ninety-eighth session).
    """
    import psutil

    from .launcher_death import PARENT_AT_START, launcher_gone

    if "ACCELERATE_MIXED_PRECISION" not in os.environ or launcher_gone():
        return None
    try:
        program = _program(psutil.Process(PARENT_AT_START).cmdline())
    except (psutil.Error, OSError):
        return None
    if program is None or program[0] not in _TORCHRUN:
        return None
    return "ACCELERATE_MIXED_PRECISION={mixed} (set for torchrun, run without accelerate launch)"


def launched_config_file() -> Path | None:
    """The accelerate config file the launch that started this process read, else None where it cannot tell."""
    if (launch := _the_launch()) is None:
        return None
    args, folder, started = launch
    if args.config_file is not None:
        path = Path(folder, args.config_file)
    elif args.cpu:  # the launch reads the default config only without --cpu
        return None
    else:
        from accelerate.commands.config import default_config_file  # from HF_HOME, which the ranks inherit

        path = Path(default_config_file)
    try:
        if path.stat().st_mtime > started + _CHANGED_AFTER_S:
            return None
    except OSError:
        return None
    return path


def launched_mixed_precision_option() -> str | None:
    """The ``--mixed_precision`` given on the command line of the launch that started this process, else None:
    none given (the launch took the profile's, or its "no" by default), or the launch cannot be told."""
    return None if (launch := _the_launch()) is None else launch[0].mixed_precision


def _the_launch():
    """(its options as accelerate's parser reads them, its folder, its start time) of the accelerate launch that
    started this process, else None where it cannot tell."""
    import psutil

    from .launcher_death import PARENT_AT_START, launcher_gone

    if launcher_gone():
        return None
    try:
        launcher = psutil.Process(PARENT_AT_START)
        arguments = launch_arguments(launcher.cmdline())
        if arguments is None:
            return None
        folder, started = launcher.cwd(), launcher.create_time()
    except (psutil.Error, OSError):
        return None
    args = _parsed(arguments)
    return None if args is None else (args, folder, started)


def _parsed(arguments: list[str]):
    """accelerate launch's options as its parser reads ``arguments``, else None (they are not its own: a
    launch of another accelerate version, say)."""
    try:  # argparse says its error on stderr and exits
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            return launch_parser().parse_args(arguments)
    except SystemExit:
        return None


@functools.cache
def launch_parser():
    """accelerate launch's own parser, built once in a process (about 10 ms): each rank reads its launcher's
    command line with it, and ``strategy.unknown_section_keys`` the options it has."""
    from accelerate.commands.launch import launch_command_parser

    return launch_command_parser()


#: The sections of the launched profile that training checks in every launch, as plan --accelerate-config checks
#: them: dynamo_config (each launcher exports its options); mpirun_config (the simple launcher starts mpirun where
#: mpirun_hostfile is set; the ranks mpirun starts are not the launch's children, and are silent); fp8_config,
#: megatron_lm_config and parallelism_config, whose keys the launch copies onto its options as it does the others'
#: (plan refused a typo in them that training passed, until the ninety-sixth session: fp8_config matters to
#: mixed_precision fp8 alone, refused before, and the other two to launches this package does not make, but a run
#: plan refuses does not start). fsdp_config is checked in an FSDP launch (a --multi_gpu launch of an FSDP profile
#: reads none of it); deepspeed_config from what the launch exports (strategy._unknown_deepspeed_fields).
_EVERY_LAUNCH_USES = ("dynamo_config", "mpirun_config", "fp8_config", "megatron_lm_config", "parallelism_config")


def profile_keys_error() -> str | None:
    """A message naming the keys of the launched profile's sections that accelerate launch does not know
    (``strategy.unknown_section_keys``), or a dynamo_config its top-level dynamo_backend replaced, with the file,
    else None: none, or the file cannot be told. The file is read as plan reads it, as the launch did
    (``accelerate_profile.read_profile``)."""
    from accelerate.utils import ComputeEnvironment

    from .accelerate_profile import UnreadableProfile, read_profile
    from .config import ConfigError
    from .strategy import unknown_section_keys

    if (path := launched_config_file()) is None:
        return None
    try:  # as plan reads it: as the launch read it, an older accelerate's keys rewritten
        profile = read_profile(path)
    except UnreadableProfile:
        return None
    except ConfigError as error:  # a section the launch dropped whole
        return f"{error}; `accelerated-seg plan --accelerate-config` checks a profile"
    if profile["compute_environment"] != ComputeEnvironment.LOCAL_MACHINE:
        return None
    fsdp = os.environ.get("ACCELERATE_USE_FSDP", "false").lower() == "true"
    for section in ("fsdp_config",) * fsdp + _EVERY_LAUNCH_USES:
        if isinstance(keys := profile.get(section), dict) and (problem := unknown_section_keys(section, keys)):
            return f"{path}: {problem}; `accelerated-seg plan --accelerate-config` checks a profile"
    return None


def launched_mixed_precision() -> tuple[str, str] | None:
    """(the top-level ``mixed_precision`` of the launched profile, read as plan reads it (``fp16: true`` of an older
    accelerate as fp16), the setting as its file writes it: "the accelerate config FILE's mixed_precision: 'bf16'"),
    else None: none set, or the profile cannot be told or read. A DeepSpeed launch given ``--mixed_precision``
    exports nothing of the profile's, which it ignores beside a DeepSpeed json
    (``strategy.mixed_precision_beside_a_json_problem``). The setting was said ``mixed_precision 'bf16'``, without
    the colon its file writes, until the hundredth session."""
    from .accelerate_profile import precision_as_written

    mixed, written = launched_mixed_precision_as_written()
    if mixed is None:
        return None
    return mixed, f"the accelerate config {launched_config_file()}'s {precision_as_written(written, mixed)}"


def launch_precision_setting(launched: str) -> str:
    """Who gave the launch its precision ``launched`` (its ACCELERATE_MIXED_PRECISION), in the words they wrote it:
    the launcher's own ``--mixed_precision fp8``, else the launched profile's ``mixed_precision: 'fp8'`` as its file
    writes it, else the variable set for torchrun run directly, else the variable the launch exports."""
    if (option := launched_mixed_precision_option()) is not None:
        return f"accelerate launch's --mixed_precision {option}"
    if (profile := launched_mixed_precision()) is not None:
        return profile[1]
    variable = environment_precision_setting() or "ACCELERATE_MIXED_PRECISION={mixed}, as the launch exports it"
    return variable.format(mixed=launched)


def launched_mixed_precision_as_written() -> tuple[str | None, dict | None]:
    """(the launched profile's top-level ``mixed_precision``, read as plan reads it, the profile as its file holds
    it, whose keys of the precision a message names: ``accelerate_profile.mixed_precision_keys``), from one reading
    of the file; (None, None) where the profile cannot be told or read. The key was found by reading the file again,
    until the ninety-ninth session."""
    if (read := _launched_profile()) is None:
        return None, None
    written, profile = read
    return profile.get("mixed_precision"), written


def launched_parallelism_config() -> dict:
    """The ``parallelism_config`` section of the launched profile, read as plan reads it, else {}: none, or the
    profile cannot be told or read. The launch exports its sizes only through torchrun and DeepSpeed's launcher;
    a one-process launch drops them (``strategy.parallelism_error``)."""
    section = read[1].get("parallelism_config") if (read := _launched_profile()) else None
    return section if isinstance(section, dict) else {}


def _launched_profile() -> tuple[dict, dict] | None:
    """The launched profile (as its file holds it, as plan reads it: ``accelerate_profile.read_profile_as_written``),
    else None where it cannot be told or read."""
    from .accelerate_profile import read_profile_as_written
    from .config import ConfigError

    if (path := launched_config_file()) is None:
        return None
    try:
        return read_profile_as_written(path)
    except ConfigError:  # unreadable, or a dynamo_config replaced: profile_keys_error says it first
        return None
