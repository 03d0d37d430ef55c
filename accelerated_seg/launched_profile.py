"""The accelerate config file that the ``accelerate launch`` which started this rank read, found from the
launcher's command line, for what that launch drops without a word and exports nothing of: a key inside
its ``fsdp_config`` that it does not know (``fsdp_offload_param: true`` ran without offloading).

    fsdp_keys_error()   # "/abs/fsdp.yaml: the accelerate config's fsdp_config has fsdp_versoin (did you mean ...?)..."

The launch copies the fsdp_config keys onto its options and exports as FSDP_* variables those it has an
option for; unlike ``deepspeed_config`` (ACCELERATE_CONFIG_DS_FIELDS) nothing it exports names the file or
the keys. Its ranks are its children: the simple launcher's subprocess, and the processes of torchrun's
elastic agent, which runs inside the launcher (launcher_death relies on it too). Parsed by accelerate's own
parser, the launcher's command line names the file as the launch read it: ``--config_file`` from the
launcher's folder, else accelerate's default config (not with ``--cpu``). On several machines each one's
ranks read their own machine's launcher and file.

Silent (None) wherever it cannot tell, never a refusal from a guess: a parent that is no accelerate launch
(torchrun or srun run directly, a notebook's fork, ``--no_python``'s wrapper), a launcher that died, a /proc
that may not be read, a command line accelerate's parser does not take, a file changed since the launcher
started, or one that is no local machine's profile.
"""

from __future__ import annotations

import contextlib
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
    """The arguments of accelerate launch in a process's command line, else None (not an accelerate launch).

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
    program = command[i] if command[i].startswith("accelerate.") else os.path.basename(command[i])
    if program in _LAUNCH_ITSELF:
        return command[i + 1:]
    if program in _SUBCOMMAND_AFTER and command[i + 1:i + 2] == ["launch"]:
        return command[i + 2:]
    return None


def launched_config_file() -> Path | None:
    """The accelerate config file the launch that started this process read, else None where it cannot tell."""
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
    if args is None:
        return None
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


def _parsed(arguments: list[str]):
    """accelerate launch's options as its parser reads ``arguments``, else None (they are not its own: a
    launch of another accelerate version, say)."""
    from accelerate.commands.launch import launch_command_parser

    try:  # argparse says its error on stderr and exits
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            return launch_command_parser().parse_args(arguments)
    except SystemExit:
        return None


def fsdp_keys_error() -> str | None:
    """A message naming the keys of the launched profile's ``fsdp_config`` that accelerate launch does not know
    (``strategy.unknown_section_keys``), with the file, else None: none, or the file cannot be told."""
    import yaml
    from accelerate.utils import ComputeEnvironment

    from .strategy import unknown_section_keys

    if os.environ.get("ACCELERATE_USE_FSDP", "false").lower() != "true" or (path := launched_config_file()) is None:
        return None
    try:
        profile = yaml.safe_load(path.read_text(encoding="utf-8"))  # JSON too, as accelerate reads it
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    if not isinstance(profile, dict) or not isinstance(fsdp := profile.get("fsdp_config"), dict) or profile.get(
            "compute_environment", ComputeEnvironment.LOCAL_MACHINE) != ComputeEnvironment.LOCAL_MACHINE:
        return None
    problem = unknown_section_keys("fsdp_config", fsdp)
    return f"{path}: {problem}; `accelerated-seg plan --accelerate-config` checks a profile" if problem else None
