"""A path or value inside a command the project tells its user to run, written so that a POSIX shell reads it back
as the one word it is: ``accelerated-seg predict --model a --model 'my model' scans/``.

Until the hundred-and-nineteenth session these commands joined their words with spaces alone, so a folder with a
space, a quote, ``$`` or ``;`` in its name gave a command that, pasted into a shell, read other folders, ran
something else or ended at the quote. A plain path (letters, digits, ``_@%+=:,./-``) stays as it is, so the
common lines read as before. Imports nothing of the package, so a check before torch and MONAI may use it.
"""

from __future__ import annotations

import os
import shlex


def shell_word(word: str | os.PathLike | int | float) -> str:
    """``word`` quoted for a POSIX shell where it needs it (shlex.quote): a path, a setting's value, a pattern (whose
    ``*`` is then left to the command, not expanded by the shell). A path holding a byte that is not UTF-8 (a folder
    named in Latin-1, a surrogate escape to Python) is written in the shell's ``$'...'`` (bash, zsh, ksh; POSIX
    since 2024), each byte that is not printable ASCII as ``\\xNN``: ``$'r\\xe9sultats'`` names that folder, pasted.
    Quoted with ``'...'``, the command's line showed ``'r\\xe9sultats'`` (printed_paths.py), four characters to the
    shell, and a suggested ``mv`` made a folder of that name (review r107)."""
    text = os.fspath(word) if isinstance(word, os.PathLike) else str(word)
    if not any(0xDC80 <= ord(character) <= 0xDCFF for character in text):
        return shlex.quote(text)
    return "$'" + "".join(_escaped(byte) for byte in os.fsencode(text)) + "'"


def _escaped(byte: int) -> str:
    """One byte of a ``$'...'`` word: printable ASCII as itself, ``\\`` and ``'`` escaped, any other as ``\\xNN``."""
    if byte in b"\\'":
        return "\\" + chr(byte)
    return chr(byte) if 0x20 <= byte < 0x7F else f"\\x{byte:02x}"


def shell_word_below(folder: str | os.PathLike, below: str) -> str:
    """``folder``/``below`` (a placeholder such as ``<folder>``) as one word: quoted whole where ``folder`` needs it,
    ``'/cache dir/<folder>'``, else as written, ``/cache/<folder>``. ``shell_word(folder)`` + ``/<folder>`` read
    ``'/cache dir'/<folder>``, half a path quoted, until review r91."""
    path = f"{os.fspath(folder)}/{below}"
    return path if shell_word(folder) == os.fspath(folder) else shell_word(path)
