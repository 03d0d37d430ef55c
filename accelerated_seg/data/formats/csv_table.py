"""A CSV table of image/label paths: one case per row, an optional ``split`` column."""

from __future__ import annotations

import csv
import difflib
import io
import os
from pathlib import Path

from accelerated_seg.data.cases import Case, Manifest, unnamed_channel_index, unnamed_channels
from accelerated_seg.data.errors import DataError
from accelerated_seg.data.formats.dataset_json import cannot_be_read, dangling_link
from accelerated_seg.data.formats.paths import PathLike, folder_named, nifti_stem, resolve, unique_ids
from accelerated_seg.data.labels import LabelsArgument, labels_declaration, labels_given, parse_labels, split_ignore
from accelerated_seg.data.splits import KEYWORD_NAMES, SplitSettings, reject_duplicate_cases
from accelerated_seg.hand_edited import read_text_file
from accelerated_seg.model_folders import Names

_SPLIT_VALUES = {"train": "train", "training": "train", "val": "validation", "valid": "validation",
                 "validation": "validation", "test": "test"}


def load_csv(
    path: PathLike,
    *,
    labels: LabelsArgument = None,
    validation_fraction: float = 0.2, num_folds: int = 0, fold: int = 0, seed: int = 0, binarize: bool = False,
    names: Names = KEYWORD_NAMES,
) -> Manifest:
    """Read a CSV with a header row: one case per row.

    Columns: ``image`` (one channel) or ``image_0``, ``image_1``, ... (one per channel), and
    ``label``. Optional: ``id`` (else the label file name, made unique with its folders), and
    ``split`` (``train``/``validation``; ``test`` rows are skipped), which, when present, is
    the split. Other columns are ignored. Relative paths are relative to the CSV's folder.

    A CSV cannot declare label values, so ``labels`` does; without it the labels are binary,
    ``{0: "background", 1: "foreground"}``, and the pre-flight checks reject any other value
    with a message saying to pass ``labels``.

    Args:
        path: The CSV file (comma-separated, UTF-8).
        labels: ``{value: name}`` (``{0: "background", 1: "edema", 4: "enhancing"}``),
            ``{name: value}``, a list of names for values 0..C-1, or a class count C.
        validation_fraction: Share held out when there is no ``split`` column and ``num_folds`` < 2.
        num_folds: More than 1 makes a seeded k-fold split instead of the fraction split.
        fold: Which fold is validated on (0-based).
        seed: Seed of the split shuffle.
        binarize: Merge every non-background label value into one "foreground" class.
        names: How the messages and ``Manifest.split`` name the split settings, as :func:`load_msd`'s do.

    Returns:
        The Manifest, rooted at the CSV's folder.

    Raises:
        DataError: A required column or cell is missing, a split value is unknown, or the
            labels (``labels``, a config's ``data.labels``) are malformed; the message names the CSV line, or
            the labels as the caller gave them.
    """
    settings = SplitSettings(validation_fraction, num_folds, fold, seed, names)
    csv_path = Path(path).expanduser().absolute()
    root = csv_path.parent
    # as the caller gave them: a config's data.labels was said "labels argument" until the ninety-ninth session
    given = f"{labels_given(names)} (the classes of {csv_path})"
    declared, ignore_value = split_ignore(labels_declaration(labels), given, binarize, names)
    label_names, label_values = parse_labels(declared, given, binarize)
    header, rows, unended = _read_csv_rows(csv_path)
    image_columns = _image_columns(header, csv_path)
    _refuse_a_misspelt_split(header, csv_path, settings.said("validation_fraction"))

    entries: list[tuple[tuple[Path, ...], Path, str | None, str | None]] = []
    needed = [*image_columns, "label", *(["split"] if "split" in header else [])]
    for line, row in rows:
        where = f"{csv_path}, line {line}"
        split = _split_value(row["split"], where) if "split" in row else None  # a row without: refused below
        if split == "test":
            continue  # kept in the same table by many projects; never trained or validated on
        _refuse_a_row_cut_short(row, needed, [*image_columns, "label"], root, where, line == unended)
        images = tuple(resolve(_cell(row, column, where), root) for column in image_columns)
        label = resolve(_cell(row, "label", where), root)
        case_id = (row.get("id") or "").strip() or None
        if case_id and ("/" in case_id or "\\" in case_id):
            # Ids name files downstream (caches, predictions), so they cannot hold path separators.
            raise DataError(f"{where}: id {case_id!r} contains a path separator; use a plain name such as sub-01")
        entries.append((images, label, case_id, split))
    if not entries:
        raise DataError(f"{csv_path}: no cases (every row is empty or split=test); add one row per labelled case")

    ids = unique_ids([label for _, label, _, _ in entries], [case_id for _, _, case_id, _ in entries])
    cases = [Case(id=case_id, images=images, label=label) for (images, label, _, _), case_id in zip(entries, ids)]

    if "split" in header:
        training = [case for case, entry in zip(cases, entries) if entry[3] == "train"]
        validation = [case for case, entry in zip(cases, entries) if entry[3] == "validation"]
        if not training:
            raise DataError(f"{csv_path}: no row has split=train; mark the training cases 'train'")
        how = settings.given("CSV 'split' column")
    else:
        training, validation, how = settings.split(cases)
    reject_duplicate_cases(training, validation, csv_path)
    channels = {index: column for index, column in enumerate(image_columns)}
    return Manifest(
        root=root, labels=label_names, channels=channels, training=training, validation=validation,
        label_values=label_values, binarized=binarize, split=how, source_format="csv",
        ignore_value=ignore_value, source_file=csv_path,
    )


def _refuse_a_misspelt_split(header: set[str], csv_path: Path, fraction_is: str) -> None:
    """Other columns are ignored, so a ``spilt`` column was, and the cases were split by the seeded
    fraction instead, the user's validation cases trained on without a word (sixty-seventh session).
    ``fraction_is``: the fraction as the caller names it (``SplitSettings.said``), a keyword from Python."""
    if "split" in header:
        return
    if near := difflib.get_close_matches("split", sorted(header), n=1, cutoff=0.75):
        raise DataError(f"{csv_path}: column {near[0]!r} is not one this reader knows, and other columns are "
                        f"ignored; the split column is 'split' (train/validation/test per row), without which the "
                        f"cases are split by {fraction_is}: rename it to 'split' (or to another name, "
                        f"if it is no split)")


def _refuse_a_row_cut_short(row: dict[str, str], needed: list[str], paths: list[str], root: Path, where: str,
                            unended: bool) -> None:
    """Refuse a row (``where``) that ends before a column it needs (``needed``: the image and label columns, and
    'split' where the header has one), and, where it is the file's last with no line end after it (``unended``),
    one whose last cell is a path (``paths``' columns) cut off: empty, or not a NIfTI file's name and naming nothing.
    Such a file was cut short (a copy stopped, a disk full); until review r106 it was told as "split is None", "empty
    'label' cell; give a path", or by the checks as a file not found. Optional columns (id, others) may be left off
    the end of a row; a whole last row without a line end (a file typed so) is read."""
    if missing := [column for column in needed if column not in row]:
        # "without its 'label' and 'split' cells" where two are missing: "its 'label', 'split' cell" read oddly (h133)
        which = (f"{', '.join(map(repr, missing[:-1]))} and {missing[-1]!r} cells" if len(missing) > 1
                 else f"{missing[0]!r} cell")
        cells = f"the row ends after {len(row)} cell(s), without its {which}"
        if unended:
            raise DataError(f"{where}, the file's last: {cells}, and no line end follows: the file was cut short "
                            f"there (a copy stopped, a disk full?); copy it again, or complete the row")
        raise DataError(f"{where}: {cells}; give each row every column the header names (an empty optional one as "
                        f"nothing between two commas)")
    column = list(row)[-1]
    value = row[column].strip()
    if unended and column in paths and "\\" not in value and (not value or (
            nifti_stem(value) is None and not os.path.lexists(resolve(value, root)))):
        raise DataError(f"{where}, the file's last: its '{column}' cell is {value!r}, "
                        f"{'which names no file' if value else 'empty'}, and no line end follows: the file was cut "
                        f"short within that path (a copy stopped, a disk full?); copy it again, or give the file's "
                        f"whole path")


def _read_csv_rows(csv_path: Path) -> tuple[set[str], list[tuple[int, dict[str, str]]], int | None]:
    """Return the lower-cased header, the non-empty rows with their line numbers, and the last row's line number
    where the file ends within that row, no line end after it (a copy cut short, or a file typed without one)."""
    if csv_path.is_dir():  # "CSV not found" of a folder that is there until review r106
        raise DataError(f"{csv_path} is a folder, not a CSV; give the CSV file's path")
    if link := dangling_link(csv_path, "mount or make what it names, or give the CSV's own path"):
        raise DataError(link)  # "CSV not found" of a link there until review r106
    if not csv_path.is_file():
        raise DataError(f"{csv_path}: CSV not found; check the data path")
    # hand_edited's reader, as a dataset.json's: the byte-order mark spreadsheet programs put before the header read
    # past; a spreadsheet's "Unicode text" export (UTF-16) told so, with or without its mark, and a binary file too.
    # Without the mark, or binary, it was read as a header of columns ['\x00l\x00a...'] "with no 'label' column",
    # and a Latin-1 name told by its byte's position, until the hundred-and-twenty-second session
    try:
        text = read_text_file(csv_path, " (a spreadsheet's 'CSV UTF-8')")
    except OSError as error:  # PermissionError's traceback until review r106
        raise DataError(cannot_be_read(csv_path, error)) from None
    return _parse_csv_rows(csv_path, text)


def _parse_csv_rows(csv_path: Path, text: str) -> tuple[set[str], list[tuple[int, dict[str, str]]], int | None]:
    try:
        return _csv_rows(csv_path, text)
    except csv.Error as error:  # "field larger than field limit (131072)": a traceback until review r106
        raise DataError(_quote_left_open(csv_path, text, f"past csv's limit of a cell ({error})")) from None


def _one_line(column: str) -> bool:
    """Whether ``column``'s cells are one line: a path, an id, a split (a quoted cell of another column, a note, may
    hold several, as a spreadsheet writes it)."""
    return column in ("image", "label", "split", "id") or unnamed_channel_index(column) is not None


def _quote_left_open(csv_path: Path, text: str, reach: str) -> str:
    """A CSV's cell opened by a quote that no quote closes where it should (a hand edit): csv reads it on, over the
    lines after it, as one cell, to the next quote or the file's end (``reach``: how far). Until review r106 it was
    told at the line where that cell ended, as a row without its 'label' cell (or "empty 'label' cell"), and, in a
    file of more than 128 KiB, as the csv module's "field larger than field limit" traceback."""
    quotes, line = 0, None
    for number, content in enumerate(text.splitlines(), 1):
        quotes += content.count('"')
        if quotes % 2:  # the first line ending within quotes
            line = number
            break
    where = f"{csv_path}, line {line}" if line else str(csv_path)
    return (f"{where}: a quote (\") opens a cell that no quote closes on its line, so the lines after it were read "
            f"as that one cell, {reach}: close the quote, or remove it")


def _csv_rows(csv_path: Path, text: str) -> tuple[set[str], list[tuple[int, dict[str, str]]], int | None]:
    with io.StringIO(text, newline="") as stream:  # newline="": the line ends left to csv, within quotes too
        reader = csv.reader(stream)
        # the first line with a cell: blank lines above it were read as a header of no columns, told that
        # it had "no 'label' column (found columns [])" (ninety-second session's probe)
        header_row = next((cells for cells in reader if any(cell.strip() for cell in cells)), None)
        if header_row is None:
            raise DataError(f"{csv_path}: empty file; write a header row such as image,label")
        if any("\n" in cell or "\r" in cell for cell in header_row):
            raise DataError(_quote_left_open(csv_path, text, f"to line {reader.line_num}"))
        columns = [name.strip().lower() for name in header_row]
        if len(columns) == 1 and (";" in columns[0] or "\t" in columns[0]):
            raise DataError(
                f"{csv_path}: the header {header_row[0]!r} is not comma-separated; save the file as CSV with commas"
            )
        # A row is a dict by column name: a second column of one name (any case) replaced the first's
        # cells, pairing images with another column's labels without a word.
        if twice := sorted({name for name in columns if name and columns.count(name) > 1}):
            raise DataError(f"{csv_path}: column(s) {twice} appear twice in the header (names are not case-"
                            f"sensitive); keep one of each")
        rows = []
        for cells in reader:
            if not any(cell.strip() for cell in cells):
                continue
            if any(("\n" in cell or "\r" in cell) and _one_line(name) for name, cell in zip(columns, cells)):
                raise DataError(_quote_left_open(csv_path, text, f"to line {reader.line_num}"))
            if any(cell.strip() for cell in cells[len(columns):]):  # a path with an unquoted comma, say
                raise DataError(f"{csv_path}, line {reader.line_num}: {len(cells)} cells but the header names "
                                f"{len(columns)} columns; quote a path that holds a comma, or add the column")
            rows.append((reader.line_num, dict(zip(columns, cells))))
    # the last row read where the file ends within it: its line is the file's last, no line end after it
    unended = rows[-1][0] if rows and rows[-1][0] == reader.line_num and not text.endswith(("\n", "\r")) else None
    return set(columns), rows, unended


def _image_columns(header: set[str], csv_path: Path) -> list[str]:
    """``["image"]`` or ``["image_0", "image_1", ...]``, checked for the mistakes people make. The columns are the
    names ``cases.unnamed_channels`` gives channels nothing names, read by ``cases.unnamed_channel_index``, which
    ``is_unnamed_channel`` reads them by too: a pattern of this reader's own, ``image_(\\d+)``, took a column of
    another script's digits (``image_`` and U+0661) for a channel, whose name the rest took for a user's, until the
    hundred-and-twenty-third session (helper h125); such a column is refused, not left out as another column."""
    lone = unnamed_channels(1)[0]  # "image"
    numbered = sorted((index, name) for name in header if (index := unnamed_channel_index(name)) is not None)
    numbered_names = [name for _, name in numbered]
    found = f"found columns {sorted(header)}"
    if "label" not in header and (paths := sorted(name for name in header if nifti_stem(name) is not None)):
        # a table written without its header: its first case was read as the column names
        raise DataError(f"{csv_path}: its first line, read as the header, holds paths ({', '.join(paths)}): the "
                        f"file has no header row; add one, such as image,label (image_0,image_1,label for "
                        f"channels), as its first line")
    if "label" not in header:
        raise DataError(
            f"{csv_path}: no 'label' column ({found}); the header needs image (or image_0, image_1, ...) and label"
        )
    if other_digits := sorted(name for name in header if unnamed_channel_index(name) is None
                              and (number := name.removeprefix(f"{lone}_")) != name and number.isdecimal()):
        raise DataError(f"{csv_path}: image column(s) {other_digits} are numbered in digits other than 0-9, which "
                        f"this reader does not take for a channel's number; number them image_0, image_1, ... "
                        f"with the digits 0-9")
    if lone in header and numbered:
        raise DataError(
            f"{csv_path}: both 'image' and {numbered_names} columns; use 'image' for one channel "
            "or image_0, image_1, ... for several"
        )
    if lone in header:
        return [lone]
    if not numbered:
        raise DataError(
            f"{csv_path}: no image column ({found}); name it 'image', or image_0, image_1, ... for channels"
        )
    if twice := sorted({index for index, _ in numbered if [number for number, _ in numbered].count(index) > 1}):
        # image_0 beside image_00 (leading zeros read past): "must be numbered ... without gaps" named no gap
        # until review r108 of the hundred-and-twenty-third session
        both = [name for index, name in numbered if index in twice]
        raise DataError(f"{csv_path}: image columns {both} number one channel twice (channel "
                        f"{', '.join(map(str, twice))}, leading zeros aside); keep one column per channel, image_0, "
                        f"image_1, ...")
    if [index for index, _ in numbered] != list(range(len(numbered))):
        raise DataError(
            f"{csv_path}: image columns {numbered_names} must be numbered image_0, image_1, ... without gaps"
        )
    return numbered_names


#: What a table written from a DataFrame holds where a value is missing (``df.astype(str)``'s "nan"). None of
#: them names a file that could be read, even where one of that name is there: only .nii/.nii.gz is read.
_MISSING_WORDS = ("nan", "none", "null", "na", "n/a")


def _cell(row: dict[str, str], column: str, where: str) -> str:
    value = (row.get(column) or "").strip()
    if not value:
        raise DataError(
            f"{where}: empty '{column}' cell; give a path (relative to the CSV's folder), or mark the row split=test"
        )
    if value.lower() in _MISSING_WORDS:  # was the file "<CSV's folder>/nan", not found (ninety-second session)
        raise DataError(f"{where}: the '{column}' cell is {value!r}, a missing value as a DataFrame writes it; give a "
                        f"path (relative to the CSV's folder), or mark the row split=test")
    if folder := folder_named(value):  # "." was the CSV's folder: "a folder, not a NIfTI file" (ninety-third session)
        raise DataError(f"{where}: the '{column}' cell is {folder}; give the file's path (relative to the CSV's "
                        f"folder)")
    return value


def _split_value(raw: str | None, where: str) -> str:
    value = (raw or "").strip().lower()
    if value not in _SPLIT_VALUES:
        raise DataError(f"{where}: split is {raw!r}; use train, validation or test")
    return _SPLIT_VALUES[value]
