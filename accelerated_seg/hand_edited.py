"""What is wrong with a settings file a user edited by hand, said in one line: an export's ``config.json`` (read by
predict, evaluate, export, fine-tuning and ``Segmentation.load``) and ``--config``'s YAML.

A UTF-8 byte-order mark is dropped, not refused: RFC 8259 (section 8.1) lets a JSON parser ignore one, Windows
Notepad's "UTF-8 with BOM" and PowerShell put it first, and the bytes after it are exactly the text the user saved;
a dataset.json, a CSV and evaluate's ``--labels`` took it already. Until the hundred-and-twenty-second session an
export's config.json with one was refused by predict ("save it again as UTF-8 without a byte-order mark") and taken
by ``evaluate --labels``. UTF-16 (Notepad's "Unicode") and other bytes than UTF-8's are refused, saying so: JSON
exchanged between programs is UTF-8 (RFC 8259 section 8.1), and so is every file this package writes. A JSON text
that does not parse is told where, and as what it most likely is: cut short (a copy stopped, a full disk: copy it
again) or a comma JSON does not allow (before a ``}`` or ``]``: remove it), which "copy it again" would lose.
"""

from __future__ import annotations

import codecs
import json
from pathlib import Path
from typing import Any, Callable

from .data.errors import DataError

_WIDE_ENCODINGS = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"),  # before UTF-16's: FF FE 00 00
                   (codecs.BOM_UTF16_LE, "UTF-16"), (codecs.BOM_UTF16_BE, "UTF-16"))


def not_utf8(data: bytes) -> str | None:
    """What ``data``, a text file's bytes, is instead of UTF-8 (a UTF-8 byte-order mark allowed), as words that
    follow the file's name; None where it is UTF-8."""
    for mark, encoding in _WIDE_ENCODINGS:
        if data.startswith(mark):
            return f"is saved as {encoding} (a Windows editor's \"Unicode\"), not UTF-8"
    if b"\0" in data[:4]:  # UTF-16 without a byte-order mark: a NUL beside each ASCII character
        return "is saved as UTF-16 or UTF-32 (NUL bytes between its characters), not UTF-8"
    try:
        data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        return (f"is not UTF-8 text (byte {data[error.start]:#04x} on line {line}: saved as Latin-1 or "
                f"Windows-1252?)")
    return None


def utf8_text(data: bytes) -> str:
    """``data`` as text, a UTF-8 byte-order mark dropped; ``not_utf8`` first."""
    return data.decode("utf-8-sig")


def json_fault(path: Path, text: str, error: json.JSONDecodeError, again: str) -> str:
    """Why ``text``, ``path``'s JSON, does not parse (``error``, said as the parser says it, with its line and
    column), as what it most likely is, and what to do: ``again``, the way to a whole copy, where it was cut short
    or the fault is not told apart (``copy ... again from ...``)."""
    said = f"{path} is not valid JSON ({error})"
    if not text.strip():
        return f"{said}: the file is empty; {again}"
    closing = text[error.pos:error.pos + 1]
    if closing and closing in "}]" and text[:error.pos].rstrip().endswith(","):
        return f"{said}: a comma before that '{closing}', which JSON does not allow (a hand edit?); remove the comma"
    if _left_open(text):  # a copy stopped, or a disk full as it was written: the parser wanted more
        return f"{said}: it ends inside a string, object or list, so it was cut short; {again}"
    return f"{said}; mend it there (a hand edit?), or {again}"


def _left_open(text: str) -> bool:
    """Whether ``text`` ends inside a string, or with an object or list not closed."""
    depth, in_string, escaped = 0, False, False
    for character in text:
        if escaped:
            escaped = False
        elif in_string:
            escaped, in_string = character == "\\", character != '"'
        elif character == '"':
            in_string = True
        elif character in "{[":
            depth += 1
        elif character in "}]":
            depth -= 1
    return in_string or depth > 0


def read_json_file(path: Path, again: str, parse: Callable[[str], Any] = json.loads) -> Any:
    """``path``'s JSON, a UTF-8 byte-order mark dropped; ``parse``: how the text is read (``json.loads``, or one
    that refuses a key given twice).

    Raises:
        DataError: naming the file, what is wrong and what to do: not UTF-8, or not JSON (``json_fault``).
        OSError: it cannot be read.
    """
    data = Path(path).read_bytes()
    if fault := not_utf8(data):
        raise DataError(f"{path} {fault}: save it again as UTF-8")
    text = utf8_text(data)
    try:
        return parse(text)
    except json.JSONDecodeError as error:
        raise DataError(json_fault(path, text, error, again)) from None
