"""predict's nibabel lines said of images given in memory (``Segmentation.predict`` on a nibabel image, or one per
channel): each line loads the file at ``path`` and saves it there again, where the image was saved to a temporary
file of predict's own, gone once predict returns and never one of the user's. Said of ``img``, the image itself, a
new one made from it and given to predict again: until the hundred-and-fifteenth session (helper h78) a refusal of
two images whose units disagreed told the user to run `img = nib.load(path, mmap=False); ...; nib.save(img, path)`
on "image 1 of the list", a path that named nothing of theirs
(``benchmarks/results/predict_case_units_alike_2026-12-06/``).
"""

from __future__ import annotations

import re

# what header_units.rewrite_code and declare_code write: a load of ``path``, what is done to ``img``, a save to
# ``path``; after "nibabel: ", or after words of their own, "nibabel, from metres: " (``spacing.REWRITE_IN_MM``, the
# far finer check's line, which the pattern missed, a path of predict's still offered, until the review of h78)
_FILE_LINE = re.compile(r"nibabel(, [^:;()]*?)?: img = nib\.load\(path, mmap=False\); (.*?); nib\.save\((.*?), path\)")


def said_in_memory(message: str, img_is: str) -> str:
    """``message`` with each nibabel line that loads and saves ``path`` said of the image in memory, ``img``
    (``img_is``: what it is, in words, "img being each image named"): the image saved (``nib.save(expression,
    path)``) made first, so that the image given is left as it was, its header among it, and then what the line does
    to ``img``.

    Example:
        >>> print(said_in_memory("declare image 1 of the list mm (nibabel: img = nib.load(path, mmap=False); "
        ...                      "img = nib.Nifti1Image(np.asanyarray(img.dataobj), img.affine, img.header); "
        ...                      "img.header['xyzt_units'] = 2; nib.save(img, path))", "img being each image named"))
        declare image 1 of the list mm (nibabel, img being each image named, the new img given to predict again: \
img = nib.Nifti1Image(np.asanyarray(img.dataobj), img.affine, img.header); img.header['xyzt_units'] = 2)
    """
    def in_memory(line: re.Match) -> str:
        said, done, saved = line.group(1, 2, 3)
        made = "" if saved == "img" else f"img = {saved}; "
        return f"nibabel{said or ''}, {img_is}, the new img given to predict again: {made}{done}"

    return _FILE_LINE.sub(in_memory, message)
