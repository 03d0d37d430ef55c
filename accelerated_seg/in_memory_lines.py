"""predict's nibabel lines said of images given in memory (``Segmentation.predict`` on a nibabel image, or one per
channel): each line loads the file at ``path`` and saves it there again, where the image was saved to a temporary
file of predict's own, gone once predict returns and never one of the user's. Said of ``img``, the image itself, a
new one made from it and given to predict again: until the hundred-and-fifteenth session (helper h78) a refusal of
two images whose units disagreed told the user to run `img = nib.load(path, mmap=False); ...; nib.save(img, path)`
on "image 1 of the list", a path that named nothing of theirs
(``benchmarks/results/predict_case_units_alike_2026-12-06/``). An array's affine is given as ``affine=``, so a line
that rewrites a file's geometry is said of it as the ``affine=`` to give instead (``said_of_an_array``).
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


# what header_units.rewrite_code writes: the file's unit set, its affine scaled by a diagonal matrix
_REWRITE_LINE = re.compile(r"nibabel(, [^:;()]*?)?: img = nib\.load\(path, mmap=False\); img\.header\['xyzt_units'\] = "
                           r"[^;]*; nib\.save\(nib\.Nifti1Image\(np\.asanyarray\(img\.dataobj\), "
                           r"(np\.diag\(\[[^\]]*\]\)) @ img\.affine, img\.header\), path\)")


def said_of_an_array(message: str) -> str:
    """``message`` with each nibabel line that rewrites a file's geometry said as the ``affine=`` to give
    ``Segmentation.predict`` with the array instead: the array's temporary file declares no unit, so its numbers
    are the affine's, read in the model's unit, and scaling the affine is the whole of such a line. Until the
    hundred-and-sixteenth session (helper h84) an array whose affine was in micrometres for a model in mm was told
    to make a nibabel image of it (``img = nib.Nifti1Image(each array named, affine)``), rewrite that and give the
    image instead. The other lines (a unit declared, which an array has none of) are ``said_in_memory``'s.

    Example:
        >>> print(said_of_an_array("rewrite the array from micrometres (nibabel: img = nib.load(path, mmap=False); "
        ...                        "img.header['xyzt_units'] = 2; nib.save(nib.Nifti1Image(np.asanyarray("
        ...                        "img.dataobj), np.diag([0.001, 0.001, 0.001, 1]) @ img.affine, img.header), path))"))
        rewrite the array from micrometres (the array given to predict again with \
affine=np.diag([0.001, 0.001, 0.001, 1]) @ affine, affine the one given)
    """
    def as_an_affine(line: re.Match) -> str:
        said, scale = line.group(1, 2)
        return f"{said.removeprefix(', ') + ': ' if said else ''}the array given to predict again with " \
               f"affine={scale} @ affine, affine the one given"

    return _REWRITE_LINE.sub(as_an_affine, message)
