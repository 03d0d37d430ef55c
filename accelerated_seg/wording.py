"""Counts said in their number: "1 step", "2 steps".

Messages wrote "the first 1 steps", "warmed up over 1 steps", "after 1 warm-up steps" wherever a
setting could be 1 (ninety-second session's audit). Imports nothing, so a check before torch and
MONAI may use it.
"""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and ``noun``, in the plural (``plural``, else ``noun`` + "s") unless the count is 1."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"
