"""A run's settings in TensorBoard's HParams dashboard, in the same row as its metrics.

accelerate's TensorBoard tracker writes the settings (``store_init_configuration``) with torch's
``SummaryWriter.add_hparams``, which puts them into a run of their own, ``train/<time.time()>``,
with no metrics, and the settings once more as ``hparams.yml`` under a second such folder. The
dashboard therefore listed, for every start and resume of a run, a row of settings with empty
metric columns, and the curves in another run it could not join to them (eighty-second session).

Here the settings go into the run's own log (``record_settings``), as the session-start summary
alone: TensorBoard's hparams plugin then takes the run itself as the session, and every scalar the
run logs (``train/loss``, ``val/mean_dice``, ...) as its metrics, the last value of each in the row.
No experiment summary is written, which would fix the columns to one run's: without one the plugin
builds them from all runs under ``--logdir``, so ``tensorboard --logdir output`` compares runs of
different settings, ``train``'s and ``fit``'s alike.

TensorBoard keeps the first summary metadata of a run and tag (its event reader says why: a resumed
job starts a new writer, whose copy must not replace the first), and the settings are that metadata.
Two consequences, both handled here:

- a resume writes them again, and the dashboard keeps the first start's; where the resume changed
  settings, ``record_changed_settings`` writes the change as text at the resume's first step;
- a run that does not continue the log in its folder would show the settings of the run that wrote
  it for its own: a new run where one was killed before its first save (which leaves nothing to
  resume, so the new run takes the folder), ``fit``'s ``overwrite`` (which keeps ``train/``), a
  resume of another folder's checkpoint. So that log is first moved into a run of its own inside
  the folder (``set_aside_earlier_run``).

TensorBoard reads a folder's event files in the order of their names, which its writer makes
``events.out.tfevents.<seconds>.<host>.<pid>.<writer number>``: two started in the same second sort
by process id and writer number as text, and one process's 10th writer's file ("...10") came before
its 9th's ("...9"). A resume that followed its run within the second (a tiny ``fit`` in a notebook,
the tests) could be read first, and the dashboard showed its settings for the run's (until the
ninety-third session). ``start_in_a_later_second`` waits for the next second instead, at most one.
"""

from __future__ import annotations

import time
from pathlib import Path

from .files import stored_bytes

#: The name, under the run's log folder, of an earlier run's log that the new run does not continue.
EARLIER_RUN_PREFIX = "earlier_run_"


def record_settings(writer, hparams: dict, step: int) -> None:
    """Write ``hparams`` into ``writer``'s own run as its HParams session (None values are left out,
    as TensorBoard's hparams take numbers, strings and booleans)."""
    from torch.utils.tensorboard.summary import hparams as hparams_summaries

    scalars = {key: _scalar(value) for key, value in hparams.items()}
    _, session_start, _ = hparams_summaries(scalars, {})  # no experiment, no end: see the module's docstring
    if booleans := {key: value for key, value in scalars.items() if isinstance(value, bool)}:
        _as_booleans(session_start, booleans)
    writer.file_writer.add_summary(session_start, step)
    writer.flush()


def _as_booleans(session_start, booleans: dict) -> None:
    """Record ``booleans`` as booleans in ``session_start``: torch's hparams tests a value for a number
    before a bool, which Python counts as an int, so every on/off setting read 1 or 0 in the dashboard."""
    from tensorboard.plugins.hparams import plugin_data_pb2

    plugin_data = session_start.value[0].metadata.plugin_data
    data = plugin_data_pb2.HParamsPluginData.FromString(plugin_data.content)
    for key, value in booleans.items():
        data.session_start_info.hparams[key].bool_value = value
    plugin_data.content = data.SerializeToString()


def _scalar(value):
    """``value`` as TensorBoard's hparams take it: a 0-dim tensor or numpy number (an optimizer's lr
    given as ``torch.tensor(1e-3)``: torch's hparams failed on it with an IndexError) as its number,
    anything else that is no number, string or bool as its text."""
    if isinstance(value, str):  # protobuf's strings are UTF-8: a path's byte that is not shown as \xNN, as printed
        return stored_bytes(value).decode("utf-8", "backslashreplace")
    if value is None or isinstance(value, (bool, int, float)):
        return value
    try:
        return value.item()
    except (AttributeError, ValueError, RuntimeError):  # no .item(), or more than one element
        return _scalar(str(value))


def record_changed_settings(writer, changed: dict, step: int) -> None:
    """Write a resume's changed settings (``{key: (saved, now)}``) as text at ``step``, the first
    step they apply to: the HParams dashboard keeps the settings the run started with."""
    lines = [f"- {key}: {_scalar(str(saved))} -> {_scalar(str(now))}" for key, (saved, now) in changed.items()]
    writer.add_text("settings_changed_at_resume", "\n".join(lines), global_step=step)
    writer.flush()


def set_aside_earlier_run(log_folder: Path) -> Path | None:
    """Move what an earlier run logged in ``log_folder`` (the folder of a run that does not continue
    it, about to log there) into a folder of its own inside it, ``earlier_run_<start>``; its path,
    or None where there was nothing to move.

    Nothing is deleted: TensorBoard shows it as a run of its own, with its own settings, and
    ``train.overwrite`` deletes it with the rest of the run's log. Earlier set-aside runs stay where
    they are.
    """
    if not log_folder.is_dir():
        return None
    earlier = [path for path in log_folder.iterdir() if not path.name.startswith(EARLIER_RUN_PREFIX)]
    if not any(path.name.startswith("events.out.tfevents") for path in earlier):
        return None
    aside = _free_name(log_folder, EARLIER_RUN_PREFIX + _started(earlier))
    aside.mkdir()
    for path in earlier:
        path.rename(aside / path.name)
    return aside


def _started(logged: list[Path]) -> str:
    """When the run that wrote ``logged`` started: the time in its first event file's name
    (``events.out.tfevents.<seconds>.<host>...``), else the oldest file's modification time."""
    times = _event_files_seconds(logged)
    seconds = min(times) if times else min(path.stat().st_mtime for path in logged)
    return time.strftime("%Y-%m-%d_%H-%M-%S", time.localtime(seconds))


def start_in_a_later_second(log_folder: Path) -> None:
    """Wait, where an event file in ``log_folder`` was started in this very second, until the next one:
    the event file a writer starts next then sorts after it by its ``<seconds>`` (see the module's
    docstring), as TensorBoard reads them."""
    latest = max(_event_files_seconds(log_folder.iterdir()) if log_folder.is_dir() else [], default=None)
    if latest != int(time.time()):  # a file from a later second (a clock set back) waits for nothing either
        return
    while int(now := time.time()) == latest:
        time.sleep(latest + 1 - now)


def _event_files_seconds(paths) -> list[int]:
    """The ``<seconds>`` in the names of the event files among ``paths`` (``events.out.tfevents.<seconds>...``)."""
    return [int(parts[3]) for parts in (path.name.split(".") for path in paths)
            if parts[:3] == ["events", "out", "tfevents"] and len(parts) > 3 and parts[3].isdigit()]


def _free_name(folder: Path, name: str) -> Path:
    candidate, n = folder / name, 1
    while candidate.exists():
        n += 1
        candidate = folder / f"{name}_{n}"
    return candidate
