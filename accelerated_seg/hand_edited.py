"""What is wrong with a settings file a user edited by hand, said in one line: an export's ``config.json`` (read by
predict, evaluate, export, fine-tuning and ``Segmentation.load``), ``--config``'s YAML, a dataset's files, and the
launch's: an accelerate config file and a DeepSpeed json (where accelerate reads the file again itself and stops at a
byte-order mark, so one is told rather than read past). Every JSON of these is read by one reader,
:func:`read_json_file`, which refuses a key given twice in one object, naming its object and lines.

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
import re
from collections import Counter
from pathlib import Path
from typing import Any

from .data.errors import DataError

_RESAVE = "save it again as UTF-8"
_WIDE_ENCODINGS = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"),  # before UTF-16's: FF FE 00 00
                   (codecs.BOM_UTF16_LE, "UTF-16"), (codecs.BOM_UTF16_BE, "UTF-16"))


def not_utf8(data: bytes) -> str | None:
    """What ``data``, a text file's bytes, is instead of UTF-8 (a UTF-8 byte-order mark allowed), and what to do,
    as words that follow the file's name; None where it is UTF-8."""
    for mark, encoding in _WIDE_ENCODINGS:
        if data.startswith(mark):
            return f"is saved as {encoding} (a Windows editor's \"Unicode\"), not UTF-8: {_RESAVE}"
    if binary := _control_byte(data):  # a NUL or another byte no text holds: UTF-16 without a mark, or no text
        if wide := _wide_text(data):
            return f"is saved as {wide} (NUL bytes between its characters), not UTF-8: {_RESAVE}"
        offset, byte = binary
        return (f"is not a text file (byte {byte:#04x} at offset {offset}, which no text holds: a binary file, such "
                f"as weights or an archive, saved under this name, or a copy gone wrong?): copy the text file there "
                f"again")
    try:
        data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        return (f"is not UTF-8 text (byte {data[error.start]:#04x} on line {line}: saved as Latin-1 or "
                f"Windows-1252?): {_RESAVE}")
    return None


# A byte no text file holds: below 0x20 but a tab, a newline or a carriage return, or DEL. A safetensors file's
# length field, a gzip's or PNG's header were told "saved as UTF-16 or UTF-32" (a NUL among the first four bytes)
# or "saved as Latin-1" until the hundred-and-twenty-second session's review
_NO_TEXTS_BYTE = re.compile(rb"[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f]")


def _control_byte(data: bytes) -> tuple[int, int] | None:
    """(offset, byte) of the first byte in ``data`` that no text file holds; None where there is none."""
    found = _NO_TEXTS_BYTE.search(data)
    return (found.start(), data[found.start()]) if found else None


def _wide_text(data: bytes) -> str | None:
    """"UTF-16" or "UTF-32" where ``data``, saved without a byte-order mark, reads as text in it (every character
    printable, a tab or a line end, and a quarter of them or more ASCII, as a settings file's keys, commas, brackets
    and paths are; a copy cut short within its last character read to there); None where not. Without the ASCII, a
    ZIP's ``PK\\x03\\x04\\x14\\x00`` followed by ASCII text read as UTF-16-BE (CJK characters, each printable) and
    was told "saved as UTF-16" until review r106 (the hundred-and-twenty-third session)."""
    for encoding, name, width in (("utf-32-le", "UTF-32", 4), ("utf-32-be", "UTF-32", 4), ("utf-16-le", "UTF-16", 2),
                                  ("utf-16-be", "UTF-16", 2)):
        try:
            text = data[:len(data) - len(data) % width].decode(encoding)
        except UnicodeDecodeError:
            continue
        if all(character.isprintable() or character in "\t\n\r" for character in text) and \
                4 * sum(character.isascii() for character in text) >= len(text) > 0:
            return name
    return None


def utf8_text(data: bytes) -> str:
    """``data`` as text, a UTF-8 byte-order mark dropped, or two (a tool that puts one before text that had one
    already: a CSV's first column was '\\ufeffimage', "no image column", and a JSON "Unexpected UTF-8 BOM ... mend it
    there" until review r106); ``not_utf8`` first."""
    return data.decode("utf-8-sig").removeprefix("\ufeff")


def json_fault(path: Path | str, text: str, error: json.JSONDecodeError, again: str) -> str:
    """Why ``text``, ``path``'s JSON (``path``: the file, or its name in the words), does not parse (``error``, said
    as the parser says it, with its line and column), as what it most likely is, and what to do: ``again``, the way
    to a whole copy, where it was cut short or the fault is not told apart (``copy ... again from ...``)."""
    said = f"{path} is not valid JSON ({error})"
    if not text.strip():
        return f"{said}: the file is {'empty' if not text else 'only blank space'}; {again}"
    if closing := _comma_before_closing(text, error.pos):
        return f"{said}: a comma before that '{closing}', which JSON does not allow (a hand edit?); remove the comma"
    if _cut_short(text, error):  # a copy stopped, or a disk full as it was written: the parser wanted more
        return f"{said}: it ends inside a string, object or list, so it was cut short; {again}"
    return f"{said}; mend it there (a hand edit?), or {again}"


def _comma_before_closing(text: str, position: int) -> str | None:
    """The ``}`` or ``]`` that a comma the parser stopped at (``position``) stands before, where that bracket
    closes the object or list open there; None where the fault is another. Python up to 3.12 stops at the bracket
    ("Expecting property name" or "Expecting value"), 3.13 on at the comma ("Illegal trailing comma before end of
    object"): until the hundred-and-twenty-second session's review only the first was told a comma's. A comma
    before a bracket of the other kind (``{"a": 1,]``) is no trailing comma: removing it mends nothing."""
    before, after = text[:position].rstrip(), text[position:]
    if after.startswith(","):
        before, after = text[:position + 1], after[1:].lstrip()
    closing = after[:1]
    if not (closing and closing in "}]" and before.endswith(",")):
        return None
    opened = _open_brackets(before)
    return closing if opened and "{[".index(opened[-1]) == "}]".index(closing) else None


def _cut_short(text: str, error: json.JSONDecodeError) -> bool:
    """Whether the parser stopped at the end of ``text`` wanting more, or in a string running to its end, with a
    string, object or list left open: a file cut short. Where it stopped before the end, the fault is there (a
    quote or bracket left out by a hand edit), which counting the brackets alone took for a copy cut short, to be
    copied again, the edit lost, until the hundred-and-twenty-second session's review."""
    at_the_end = error.pos >= len(text.rstrip()) or error.msg.startswith("Unterminated string")
    return at_the_end and _left_open(text)


def _open_brackets(text: str) -> list[str]:
    """The ``{`` and ``[`` left open at the end of ``text``, outermost first; a ``"`` last where it ends inside a
    string."""
    opened, in_string, escaped = [], False, False
    for character in text:
        if escaped:
            escaped = False
        elif in_string:
            escaped, in_string = character == "\\", character != '"'
        elif character == '"':
            in_string = True
        elif character in "{[":
            opened.append(character)
        elif character in "}]" and opened:
            opened.pop()
    return [*opened, '"'] if in_string else opened


def _left_open(text: str) -> bool:
    """Whether ``text`` ends inside a string, or with an object or list not closed."""
    return bool(_open_brackets(text))


def read_json_file(path: Path, again: str, *, named: str | None = None, reader: str = "json.load",
                   bom_refused_by: str | None = None) -> Any:
    """``path``'s JSON, a file a user edits by hand: the one reader of every such JSON the package reads (a
    dataset.json, a splits_final.json, an export's config.json, evaluate's ``--labels``, an accelerate config file's
    ``.json``, a DeepSpeed json), each fault one line naming the file as ``named`` (its path by default), what it is
    and what to do, ``again`` the way to a whole copy (:func:`json_fault`).

    A UTF-8 byte-order mark is read past, but where ``bom_refused_by`` (the program that reads the file again itself
    with ``json.load``, no ``utf-8-sig``: accelerate launch, accelerate's DeepSpeed plugin) stops at one ("Unexpected
    UTF-8 BOM"): read past here, the file would pass our look and stop the launch with that traceback. A key given
    twice in one object, which ``reader`` (json.load, which every other program reads these files with) takes the
    last of without a word, is refused, naming the object's way from the top and the key's lines (a hand-edited
    ``"labels"`` with ``"1": "liver"`` and ``"1": "tumour"`` lost a class). Until the hundred-and-twenty-fourth session
    a dataset.json's and a splits_final.json's were refused in other words by a reader of their own
    (``key(s) ['1'] given twice in one JSON object; keep one of each``), an export's config.json's read as the last.

    Raises:
        KeyGivenTwice: a key given twice in one object.
        DataError: not UTF-8 text, a byte-order mark ``bom_refused_by`` refuses, not JSON, or brackets nested past
            the parser's depth (a copy gone wrong).
        OSError: it cannot be read.
    """
    named = str(path) if named is None else named
    data = Path(path).read_bytes()
    if fault := not_utf8(data):
        raise DataError(f"{named} {fault}")
    if bom_refused_by and data.startswith(codecs.BOM_UTF8):
        raise DataError(f"{named} begins with a byte-order mark (a Windows editor's \"UTF-8 with BOM\"), which "
                        f"{bom_refused_by} refuses (json.load's \"Unexpected UTF-8 BOM\"): {_RESAVE} without the "
                        f"mark")
    text = utf8_text(data)
    try:
        return loads_once(text, named, reader)
    except json.JSONDecodeError as error:
        raise DataError(json_fault(named, text, error, again)) from None
    except RecursionError:  # RecursionError's traceback until review r91 (config.json), r106 (a dataset's files)
        raise DataError(f"{named} is not valid JSON (nested deeper than Python reads: a copy gone wrong?); "
                        f"{again}") from None


def loads_once(text: str, named: str, reader: str = "json.loads") -> Any:
    """``json.loads`` of ``text``, JSON typed by hand, a key given twice in one object refused as
    :func:`read_json_file` refuses a file's: the reading of JSON given on a command line (``--model-args``) or inline
    (a DeepSpeed config written into an accelerate profile), which took the last until the
    hundred-and-twenty-fourth session.

    Raises:
        KeyGivenTwice: naming it as ``named``, the object and the lines, of which ``reader`` takes the last.
        json.JSONDecodeError, RecursionError: as ``json.loads``.
    """
    content = json.loads(text, object_pairs_hook=_once)
    if twice := _given_twice(content, []):
        raise KeyGivenTwice(given_twice(named, _where_given_twice(text, *twice), reader))
    return content


def read_text_file(path: Path, how: str = "") -> str:
    """``path``'s text, a UTF-8 byte-order mark dropped; ``how``: words after "save it again as UTF-8", the way to
    it in the program that saves such files (a spreadsheet's "CSV UTF-8").

    Raises:
        DataError: naming the file, what it is instead of UTF-8 text and what to do (``not_utf8``).
        OSError: it cannot be read.
    """
    data = Path(path).read_bytes()
    if fault := not_utf8(data):  # ``how`` where it is text to save again, not a binary file to copy again
        raise DataError(f"{path} {fault}{how if fault.endswith(_RESAVE) else ''}")
    return utf8_text(data)


class KeyGivenTwice(DataError):
    """A key given twice in one object of a hand-edited file, whose reader would take the last without a word."""


def given_twice(named: str, which: str, reader: str) -> str:
    """The words for a key given twice in ``named``'s file (``which``: "key 'stage' given twice in
    zero_optimization"), which ``reader`` reads as the last one without a word."""
    return f"{named}: {which}, of which {reader} takes the last without a word: keep one"


class _Twice:
    """Stands for an object with keys given twice, in place of its dict, carried up to the top of the text to be said
    with the way to it: ``json``'s hook has no position or parent, so "in one object" alone was said until the
    hundred-and-twenty-third session's review."""

    def __init__(self, keys: list[str], way: list):
        self.keys, self.way = keys, way


def _once(pairs: list[tuple[str, Any]]) -> Any:
    """``json.loads``' object_pairs_hook: the object's dict, or a _Twice for it (or for the first object within it
    with a key given twice)."""
    # counted once (Counter): each key's keys.count was quadratic, 2.6 s for an object of 10,000 keys (nnU-Net v2's
    # "dataset" of case ids) until review r113
    if len(pairs) > len({key for key, _ in pairs}):
        return _Twice(sorted(key for key, times in Counter(key for key, _ in pairs).items() if times > 1), [])
    for key, value in pairs:
        if found := _given_twice(value, [key]):
            return _Twice(*found)
    return dict(pairs)


def _given_twice(value: Any, way: list) -> tuple[list[str], list] | None:
    """(the keys given twice, the way to their object from ``value``'s, ``way``), where ``value`` is or holds a
    _Twice, else None."""
    if isinstance(value, _Twice):
        return value.keys, way + value.way
    for index, item in enumerate(value if isinstance(value, list) else []):
        if found := _given_twice(item, [*way, index]):
            return found
    return None


def _where_given_twice(text: str, keys: list[str], way: list) -> str:
    """"key 'stage' given twice in zero_optimization (first at line 3) and at line 5": the object by its way from the
    top (``optimizer.params[0]``; ``entry [0]`` of a list at the top, a splits_final.json's fold), and a key's lines
    where the text writes it that often and nowhere else."""
    inside = "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in way).lstrip(".")
    inside = f"entry {inside}" if inside.startswith("[") else inside
    which = (f"key{'s' * (len(keys) > 1)} {', '.join(map(repr, keys))} given twice "
             f"{f'in {inside}' if inside else 'at the top'}")
    if len(keys) > 1:
        return which
    written = re.compile(re.escape(json.dumps(keys[0], ensure_ascii=False)) + r"\s*:")
    lines = _lines_of(text, written)
    if len(lines) < 2 or len(lines) != len(set(lines)) or not _all_in_one_object(text, keys[0], way, len(lines)):
        return which
    return f"{which} (first at line {lines[0]}) and at line{'s' * (len(lines) > 2)} {', '.join(map(str, lines[1:]))}"


def _lines_of(text: str, written: re.Pattern) -> list[int]:
    """The line of each place ``written`` matches in ``text``, counted on from the last: counted from the top for each,
    a 10,000-case dataset.json with a case's "image" twice took 4 s, 40,000 cases 29 s, until review r113."""
    lines, line, counted = [], 1, 0
    for match in written.finditer(text):
        line += text.count("\n", counted, match.start())
        counted = match.start()
        lines.append(line)
    return lines


def _all_in_one_object(text: str, key: str, way: list, written: int) -> bool:
    """Whether the object at ``way`` holds ``key`` as often as the text writes it (so the lines are that object's)."""
    def pairs(items: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
        return items

    value: Any = json.loads(text, object_pairs_hook=pairs)  # each object a list of its pairs, as written
    try:
        for step in way:
            value = value[step] if isinstance(step, int) else dict(value)[step]
        return [name for name, _ in value].count(key) == written
    except (IndexError, KeyError, TypeError, ValueError):  # not the way to an object
        return False
