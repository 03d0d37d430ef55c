"""Words for a label map that holds NaN (or Inf) alone, and what made it: said alike by ``accelerated-seg
check`` and training's pre-flight (``checks``, of a training label) and by evaluate (``label_map_reading``,
of a prediction or a reference), so the one advice is written once. Moved here from ``label_map_reading`` in
the ninety-seventh session, when check began to say it.
"""

from __future__ import annotations

import math

# What makes such a map, and what to do, by the role the caller gives it
_MADE = {"prediction": "the model that made it diverged (NaN weights, or a NaN in its input) or the program writing "
                       "it failed: check that model's training loss and this case's image, and predict the case again",
         "reference": "the program writing it failed: export the reference again from its source",
         "label": "the program writing it failed: export the label again from its source"}


def all_nan_said(shape: tuple[int, ...], only_nan: bool, role: str | None) -> str:
    """A map of ``shape`` without a finite voxel (NaN in every one where ``only_nan``), and why: "N voxel(s) NaN
    or Inf among whole class numbers ... set them to 0 or to their class" was said of one until the ninety-sixth
    session, as if a few voxels were wrong; a prediction so is a model's that diverged or a write that failed.
    One of several volumes (a probability map) is said so with its shape: its argmax, the remedy for several
    volumes, is class 0 in every voxel, a map scored or trained on without a word of the NaN."""
    what = "NaN" if only_nan else "NaN or Inf"
    said = _MADE.get(role, f"if it is a prediction, {_MADE['prediction']}; if a reference, {_MADE['reference']}")
    size = math.prod(int(length) for length in shape)
    counted, argmax = (f"{size}, shape {tuple(shape)}", ", nor would its argmax") if len(shape) > 3 else (f"{size}", "")
    return f"every voxel ({counted}) is {what}, so the {role or 'label map'} holds no class at all{argmax}; {said}"
