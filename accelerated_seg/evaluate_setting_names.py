"""How ``accelerated-seg evaluate``'s errors name its settings (``SettingNames``): ``evaluate_folders``' keyword
arguments from Python, the command's flags from the command line. Its own module since the ninety-sixth session,
so that every module of the evaluation names them alike; importable from ``accelerated_seg.evaluate`` as
before.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SettingNames:
    """How evaluate's errors name its settings (as ``run_folder.Names`` does for a run's folder): by
    ``evaluate_folders``' keyword arguments, unless its caller gave them otherwise. The command passes its
    flags (``evaluate_command.run``): the errors named those alone before the ninetieth session, which a caller
    from Python never typed."""

    output_dir: str = "output_dir"
    label_dir: str = "label_dir"
    num_classes: str = "num_classes"
    dataset_json: str = "dataset_json"
    merge_foreground: str = "merge_foreground=True"  # a switch: the flag's counterpart is the value that sets it
    tolerance_mm: str = "tolerance_mm"
    overwrite: str = "overwrite=True"
