"""A dataset's files a user edits by hand - a Decathlon/nnU-Net dataset.json, nnU-Net's splits_final.json, a cases
CSV - read through hand_edited's reader, as an export's config.json is (tests/test_hand_edited.py): a UTF-8
byte-order mark read past, and UTF-16 (with or without its mark), Latin-1, a binary file, a trailing comma and a
copy cut short each one line naming the file, what it is and what to do, the same line from load_cases (train's
pre-flight, Dataset reading) and `check`, and after predict's refusal of the file as a scan (the
hundred-and-twenty-second session's probe, benchmarks/results/hand_edited_datasets_2026-12-07/)."""

import json
import re

import pytest

from accelerated_seg.cli import main
from accelerated_seg.data.errors import DataError
from accelerated_seg.data.manifest import load_cases
from accelerated_seg.inference_inputs import expand_inputs
from broken_cases import write_csv, write_msd, write_nnunet

BOM = b"\xef\xbb\xbf"
RESAVE = "save it again as UTF-8"
EDITS = {  # how a hand edit went wrong -> (the bytes saved, what the line says after the file's name)
    "utf16": (lambda text: text.encode("utf-16"),
              rf'is saved as UTF-16 \(a Windows editor\'s "Unicode"\), not UTF-8: {RESAVE}'),
    "utf16_no_mark": (lambda text: text.encode("utf-16-le"),
                      rf"is saved as UTF-16 \(NUL bytes between its characters\), not UTF-8: {RESAVE}"),
    "latin1": (lambda text: text.replace("good", "g\xf6od", 1).replace('"a"', '"l\xe9sion"', 1).encode("latin-1"),
               rf"is not UTF-8 text \(byte 0x(f6|e9) on line \d+: saved as Latin-1 or Windows-1252\?\): {RESAVE}"),
    "binary": (lambda text: b"PK\x03\x04\x14\x00\x00\x00" + text.encode()[:40],  # a ZIP archive's header
               r"is not a text file \(byte 0x03 at offset 2, which no text holds: .*\): copy the text file there "
               r"again"),
    "trailing_comma": (lambda text: (text.rstrip()[:-1] + ",\n" + text.rstrip()[-1]).encode(),
                       r"is not valid JSON \(.*\): a comma before that '[]}]', which JSON does not allow \(a hand "
                       r"edit\?\); remove the comma"),
    "cut_short": (lambda text: text.encode()[:len(text) // 2],
                  r"is not valid JSON \(.*\): it ends inside a string, object or list, so it was cut short; COPY"),
}
JSON_COPY = r"copy dataset.json again from the dataset's download, or regenerate it"


def indented(path, **more):
    """``path``'s JSON written over several lines, as a hand edit leaves it."""
    path.write_text(json.dumps({**json.loads(path.read_text()), **more}, indent=1))
    return path


def told_alike(source, file, said, capsys):
    """The one line that load_cases and `check` say of ``source``, ``file`` the one at fault; SETTING in ``said``:
    a setting, said by its keyword in load_cases' line and by its config name in check's."""
    line = f"{re.escape(str(file))} {said}"
    with pytest.raises(DataError, match=f"^{line.replace('SETTING', '')}$"):
        load_cases(source)
    assert main(["check", str(source)]) == 1
    in_the_config = line.replace("SETTING", r"data\.")
    assert re.search(f"^error: {in_the_config}$", capsys.readouterr().err, re.MULTILINE)
    return line


@pytest.mark.parametrize("edit", EDITS)
def test_a_decathlon_dataset_json_gone_wrong_is_one_line_on_every_path(edit, tmp_path, capsys):
    """A UTF-16 or Latin-1 dataset.json was "not valid JSON ('utf-8' codec can't decode byte 0xff in position 0);
    fix or regenerate the file", a binary one "Expecting value", a trailing comma "fix or regenerate" (which loses
    the edit); predict, given it as a scan, called it "a JSON file" without a word of why."""
    write_msd(tmp_path)
    path = indented(tmp_path / "dataset.json")
    bytes_of, said = EDITS[edit]
    path.write_bytes(bytes_of(path.read_text()))
    line = told_alike(path, path, said.replace("COPY", JSON_COPY), capsys)
    with pytest.raises(DataError) as raised:
        expand_inputs([path])
    assert re.fullmatch(f"{re.escape(str(path))}: a JSON file, not a scan; predict takes the scans: NIfTI files, "
                        f"their folder or a pattern; and it {line.removeprefix(re.escape(str(path)) + ' ')}",
                        str(raised.value)), str(raised.value)


@pytest.mark.parametrize("edit", EDITS)
def test_an_nnunet_dataset_json_gone_wrong_is_one_line_on_every_path(edit, tmp_path, capsys):
    write_nnunet(tmp_path)
    path = indented(tmp_path / "dataset.json")
    bytes_of, said = EDITS[edit]
    path.write_bytes(bytes_of(path.read_text()))
    told_alike(tmp_path, path, said.replace("COPY", JSON_COPY), capsys)


@pytest.mark.parametrize("edit", EDITS)
def test_an_nnunet_splits_final_json_gone_wrong_is_one_line_on_every_path(edit, tmp_path, capsys):
    """Its errors were the codec's or the parser's words and "fix it or delete it"."""
    write_nnunet(tmp_path)
    splits = tmp_path / "splits_final.json"
    bytes_of, said = EDITS[edit]
    splits.write_bytes(bytes_of(json.dumps([{"train": ["good"], "val": ["bad"]}], indent=1)))
    told_alike(tmp_path, splits, said.replace("COPY", "copy it again from nnU-Net's preprocessed folder, or delete it "
                                                      "to split by SETTINGnum_folds"), capsys)


@pytest.mark.parametrize("edit", ["utf16", "utf16_no_mark", "latin1", "binary"])
def test_a_cases_csv_saved_otherwise_than_as_utf8_is_one_line(edit, tmp_path, capsys):
    """A spreadsheet's "Unicode text" export without its mark, or a binary file, was read as a header of columns
    ['\\x00l\\x00a\\x00b...'] "with no 'label' column"; a Latin-1 name was told by its byte's position, not line."""
    table = write_csv(tmp_path).source
    bytes_of, said = EDITS[edit]
    table.write_bytes(bytes_of(table.read_text()))
    told_alike(table, table, said + ("" if edit == "binary" else r" \(a spreadsheet's 'CSV UTF-8'\)"), capsys)


def test_a_byte_order_mark_is_read_past_on_every_path(tmp_path, capsys):
    """Notepad's "UTF-8 with BOM" of a dataset.json: training read it, predict, given it as a scan, read it in the
    locale's encoding, the mark not read past, and called a dataset's description "a JSON file", its "test"
    scans not found."""
    write_msd(msd := tmp_path / "msd")
    path = indented(msd / "dataset.json", test=[str(msd / "imagesTr" / "good.nii.gz")])
    path.write_bytes(BOM + path.read_bytes())
    write_nnunet(nnunet := tmp_path / "nnunet")
    (nnunet / "dataset.json").write_bytes(BOM + (nnunet / "dataset.json").read_bytes())
    (nnunet / "splits_final.json").write_bytes(BOM + json.dumps([{"train": ["good"], "val": ["bad"]}]).encode())
    table = write_csv(tmp_path / "csv").source
    table.write_bytes(BOM + table.read_bytes())
    for source in (path, nnunet, table):
        assert len(load_cases(source).training) >= 1
        assert main(["check", str(source)]) == 0, capsys.readouterr().err
    assert [case.id for case in load_cases(nnunet).validation] == ["bad"]  # splits_final.json's fold taken
    with pytest.raises(DataError, match=f"a dataset's description, not a scan; predict takes the scans: its \"test\" "
                                        f"list's 1 are in {re.escape(str(msd / 'imagesTr'))}/, give that folder$"):
        expand_inputs([path])


def test_a_key_given_twice_in_splits_final_json_is_refused(tmp_path):
    """A fold with "val" given twice by a hand edit kept the last, its other cases trained on without a word."""
    write_nnunet(tmp_path)
    (tmp_path / "splits_final.json").write_text('[{"train": ["good"], "val": ["bad"], "val": []}]')
    with pytest.raises(DataError, match=r"splits_final.json: key 'val' given twice in entry \[0\], of which "
                                        r"nnU-Net's json.load takes the last without a word: keep one$"):
        load_cases(tmp_path)


# Review r106 (the hundred-and-twenty-third session) of the above:
# benchmarks/results/review_hand_edited_datasets_2026-12-07/

def test_a_zip_header_followed_by_ascii_is_no_utf16_text(tmp_path):
    """A ZIP's header with no NUL after its sixth byte, then ASCII text, read as UTF-16-BE is all CJK characters,
    each printable: it was told "saved as UTF-16 (NUL bytes between its characters)", to be saved again as UTF-8."""
    from accelerated_seg.hand_edited import not_utf8

    zipped = b"PK\x03\x04\x14\x00" + b'{"name": "x"}'  # as UTF-16-BE: U+504B U+0304 U+1400 U+7B22 ...
    assert not_utf8(zipped).startswith("is not a text file (byte 0x03 at offset 2")
    assert not_utf8("image,label\n\u75c5\u4eba.nii.gz,\u75c5\u4eba_seg.nii.gz\n".encode("utf-16-le")).startswith(
        "is saved as UTF-16 (NUL bytes")  # CJK names among ASCII commas and suffixes: still UTF-16
    write_msd(tmp_path)
    (path := tmp_path / "dataset.json").write_bytes(zipped)
    with pytest.raises(DataError, match=f"^{re.escape(str(path))} is not a text file \\(byte 0x03 at offset 2"):
        load_cases(path)


CUT_CSV = {  # the text of a cases CSV -> what load_cases says of its last line (3)
    "in the label's path": ("image,label\nimages/good.nii.gz,masks/good.nii.gz\nimages/bad.nii.gz,masks/ba",
                            r"line 3, the file's last: its 'label' cell is 'masks/ba', which names no file, and no "
                            r"line end follows: the file was cut short within that path \(a copy stopped, a disk "
                            r"full\?\); copy it again, or give the file's whole path"),
    "after the image's comma": ("image,label\nimages/good.nii.gz,masks/good.nii.gz\nimages/bad.nii.gz,",
                                r"line 3, the file's last: its 'label' cell is '', empty, and no line end follows: the "
                                r"file was cut short within that path"),
    "in the image's path": ("image,label\nimages/good.nii.gz,masks/good.nii.gz\nimages/ba",
                            r"line 3, the file's last: the row ends after 1 cell\(s\), without its 'label' cell, and "
                            r"no line end follows: the file was cut short there \(a copy stopped, a disk full\?\); "
                            r"copy it again, or complete the row"),
    "before its split": ("image,label,split\nimages/good.nii.gz,masks/good.nii.gz,train\n"
                         "images/bad.nii.gz,masks/bad.nii.gz",
                         r"line 3, the file's last: the row ends after 2 cell\(s\), without its 'split' cell, and no "
                         r"line end follows: the file was cut short there"),
    # two cells missing: "without its 'label', 'split' cell" until the hundred-and-twenty-fourth session (h133's walk)
    "in the image's path, before label and split": ("image,label,split\nimages/good.nii.gz,masks/good.nii.gz,train\n"
                                                    "images/ba",
                                                    r"line 3, the file's last: the row ends after 1 cell\(s\), "
                                                    r"without its 'label' and 'split' cells, and no line end follows"),
}


@pytest.mark.parametrize("cut", CUT_CSV)
def test_a_cases_csv_cut_short_mid_row_is_told_so(cut, tmp_path, capsys):
    """h121's Left: a CSV cut short mid-row was a file not found (check), "empty 'label' cell; give a path", or
    "split is None"; its last line, without a line end, now says the file was cut short, alike from load_cases and
    check."""
    table = write_csv(tmp_path).source
    text, said = CUT_CSV[cut]
    table.write_text(text)
    with pytest.raises(DataError, match=f"^{re.escape(str(table))}, {said}"):
        load_cases(table)
    assert main(["check", str(table)]) == 1
    assert re.search(f"^error: {re.escape(str(table))}, {said}", capsys.readouterr().err, re.MULTILINE)


def test_a_short_row_and_a_whole_last_row_without_a_line_end(tmp_path):
    """A row that ends before its split cell, mid-file, was "split is None; use train, validation or test"; a whole
    last row without a line end (a file typed so), and one without its optional id cell, are read as before."""
    table = write_csv(tmp_path).source
    table.write_text("image,label,split\nimages/good.nii.gz,masks/good.nii.gz\nimages/bad.nii.gz,masks/bad.nii.gz,"
                     "train\n")
    with pytest.raises(DataError, match=r", line 2: the row ends after 2 cell\(s\), without its 'split' cell; give "
                                        r"each row every column the header names"):
        load_cases(table)
    table.write_text("image,label,id\nimages/good.nii.gz,masks/good.nii.gz,g\nimages/bad.nii.gz,masks/bad.nii.gz")
    assert [case.id for case in load_cases(table, validation_fraction=0).training] == ["g", "bad"]
    table.write_text("image,label,split\nimages/good.nii.gz,masks/good.nii.gz,train\nimages/x.nii.gz,,test")
    assert len(load_cases(table).training) == 1  # a test row cut of nothing it needs


def test_evaluate_labels_of_a_dataset_json_says_the_line_training_says(tmp_path, capsys):
    """evaluate --labels said "copy dataset.json again from where it was written" of a dataset.json cut short,
    training and predict "from the dataset's download, or regenerate it"."""
    from accelerated_seg.evaluate_classes import class_names_from_json

    write_msd(tmp_path)
    path = tmp_path / "dataset.json"
    path.write_bytes(path.read_bytes()[:40])
    with pytest.raises(DataError) as training:
        load_cases(path)
    assert str(training.value).endswith(JSON_COPY.replace("\\", ""))
    with pytest.raises(DataError) as evaluating:
        class_names_from_json(path)
    assert str(evaluating.value) == str(training.value)


DEEP = b"[" * 100_000 + b"]" * 100_000  # brackets nested past the parser's depth: a copy gone wrong


def test_a_dataset_json_nested_too_deep_is_one_line_on_every_path(tmp_path, capsys):
    """RecursionError's traceback from load_cases, check, predict and evaluate --labels (an export's config.json was
    told since review r91)."""
    from accelerated_seg.evaluate_classes import class_names_from_json

    write_msd(tmp_path)
    (path := tmp_path / "dataset.json").write_bytes(DEEP)
    line = told_alike(path, path, rf"is not valid JSON \(nested deeper than Python reads: a copy gone wrong\?\); "
                                  rf"{JSON_COPY}", capsys)
    with pytest.raises(DataError, match=f"; and it {line.removeprefix(re.escape(str(path)) + ' ')}$"):
        expand_inputs([path])
    with pytest.raises(DataError, match=f"^{line}$"):
        class_names_from_json(path)
    write_nnunet(nnunet := tmp_path / "nnunet")
    (nnunet / "splits_final.json").write_bytes(DEEP)
    with pytest.raises(DataError, match=r"splits_final.json is not valid JSON \(nested deeper than Python reads"):
        load_cases(nnunet)


def test_a_key_given_twice_is_said_after_predicts_refusal_as_training_says_it(tmp_path):
    """predict read a dataset.json with plain json.loads: a key given twice, which training refuses, was read."""
    write_msd(tmp_path)
    path = tmp_path / "dataset.json"
    path.write_text(path.read_text().rstrip()[:-1] + ', "validation": []}')
    twice = (r"key 'validation' given twice at the top, of which nnU-Net's and MONAI's json.load takes the last "
             r"without a word: keep one$")
    with pytest.raises(DataError, match=rf"^.*dataset.json: {twice}"):
        load_cases(path)
    with pytest.raises(DataError, match=rf"; and dataset.json: {twice}"):
        expand_inputs([path])


@pytest.mark.parametrize("kind", ["dangling_link", "folder"])
def test_a_splits_final_json_that_is_no_file_is_refused_not_passed_over(kind, tmp_path):
    """A splits_final.json linked from nnU-Net's preprocessed folder, not mounted, or a folder of the name, was
    passed over as no file: the cases split by the seed, validated on other cases than nnU-Net's, not a word."""
    write_nnunet(tmp_path)
    splits = tmp_path / "splits_final.json"
    if kind == "folder":
        splits.mkdir()
        said = r"is a folder, not nnU-Net's list of folds, so no fold is read from it: put the splits_final.json there"
    else:
        splits.symlink_to(tmp_path / "unmounted" / "splits_final.json")
        said = (rf"is a symbolic link to {re.escape(str(tmp_path / 'unmounted' / 'splits_final.json'))}, which does "
                rf"not exist \(a dangling link: what it names not mounted, or moved\?\): no fold is read from it: "
                rf"mount or make what it names \(nnU-Net's preprocessed folder\?\)")
    with pytest.raises(DataError, match=f"^{re.escape(str(splits))} {said}.*, or remove (it|the link) to split by "
                                        f"num_folds$"):
        load_cases(tmp_path)


def test_a_dataset_file_this_user_may_not_read_is_one_line(tmp_path, monkeypatch, capsys):
    """PermissionError's traceback from load_cases and check, for a dataset.json (MSD, nnU-Net), a splits_final.json
    and a cases CSV alike (the probe's, read as user nobody; here read_bytes refuses, as root reads any file)."""
    from pathlib import Path

    write_msd(msd := tmp_path / "msd")
    write_nnunet(nnunet := tmp_path / "nnunet")
    (nnunet / "splits_final.json").write_text(json.dumps([{"train": ["good"], "val": ["bad"]}]))
    table = write_csv(tmp_path / "csv").source
    refused, read_bytes = set(), Path.read_bytes

    def read_if_allowed(path):
        if path in refused:
            raise PermissionError(13, "Permission denied", str(path))
        return read_bytes(path)

    monkeypatch.setattr(Path, "read_bytes", read_if_allowed)
    for source, file in ((msd / "dataset.json", msd / "dataset.json"), (nnunet, nnunet / "dataset.json"),
                         (nnunet, nnunet / "splits_final.json"), (table, table)):
        refused.clear()
        refused.add(file)
        told_alike(source, file, rf"cannot be read \(Permission denied\): read it as a user who may \(ls -l "
                                 rf"{re.escape(str(file))} names its owner and mode\), or copy the dataset where you "
                                 rf"can", capsys)
    refused.add(msd / "dataset.json")  # predict's refusal of it as a scan said nothing of why it did not read
    with pytest.raises(DataError, match=r"a JSON file, not a scan; predict takes the scans: NIfTI files, their "
                                        r"folder or a pattern; and it cannot be read \(Permission denied\): read it"):
        expand_inputs([msd / "dataset.json"])


def test_a_byte_order_mark_put_twice_is_read_past(tmp_path):
    """A tool that puts a mark before text that had one: a CSV's first column was '\\ufeffimage' ("no image
    column"), a dataset.json "Unexpected UTF-8 BOM ...; mend it there"."""
    write_msd(tmp_path / "msd")
    (path := tmp_path / "msd" / "dataset.json").write_bytes(BOM + BOM + path.read_bytes())
    assert len(load_cases(path).training) >= 1
    table = write_csv(tmp_path / "csv").source
    table.write_bytes(BOM + BOM + table.read_bytes())
    assert len(load_cases(table).training) >= 1


def test_a_dataset_json_or_csv_that_is_a_dangling_link_is_told_so(tmp_path, capsys):
    """"dataset.json not found; give the path of the dataset's JSON ..." and "CSV not found; check the data path" of
    a link that is there, naming what is not."""
    write_msd(msd := tmp_path / "msd")
    (path := msd / "dataset.json").unlink()
    path.symlink_to(tmp_path / "unmounted" / "dataset.json")
    table = write_csv(tmp_path / "csv").source
    table.unlink()
    table.symlink_to(tmp_path / "unmounted" / "cases.csv")
    for link, whose in ((path, "dataset's"), (table, "CSV's")):
        told_alike(link, link, rf"is a symbolic link to {re.escape(str(tmp_path / 'unmounted' / link.name))}, which "
                               rf"does not exist \(a dangling link: what it names not mounted, or moved\?\): mount or "
                               rf"make what it names, or give the {whose} own path", capsys)


@pytest.mark.parametrize("rows", [40, 4000])
def test_a_quote_left_open_in_a_cases_csv_is_told_at_its_line(rows, tmp_path, capsys):
    """A stray quote before a path made csv read every line after it as one cell: told at the line where that cell
    ended as "empty 'label' cell" (40 rows), or, past csv's 128 KiB limit of a cell, its "field larger than field
    limit" traceback (4000 rows); a quoted note of several lines in another column is read."""
    table = write_csv(tmp_path).source
    many = "".join(f"images/c{i:05d}.nii.gz,masks/c{i:05d}.nii.gz\n" for i in range(rows))
    table.write_text(f'image,label\n"images/good.nii.gz,masks/good.nii.gz\n{many}')
    line = (rf"{re.escape(str(table))}, line 2: a quote \(\"\) opens a cell that no quote closes on its line, so the "
            rf"lines after it were read as that one cell, (to line 42|past csv's limit of a cell \(.*\)): close the "
            rf"quote, or remove it")
    with pytest.raises(DataError, match=f"^{line}$"):
        load_cases(table)
    assert main(["check", str(table)]) == 1
    assert re.search(f"^error: {line}$", capsys.readouterr().err, re.MULTILINE)
    table.write_text('image,label,notes\nimages/good.nii.gz,masks/good.nii.gz,"two\nlines"\n')
    assert len(load_cases(table, validation_fraction=0).training) == 1


# The hundred-and-twenty-fourth session (helper h128): a dataset's folder whose file is a link to nothing, and a key
# given twice said in one wording by hand_edited's one reader
# (benchmarks/results/dataset_file_links_and_keys_2026-12-07/)

def dangle(path):
    """``path`` made a symbolic link to storage not mounted (``unmounted/`` beside its folder); its target."""
    if path.exists():
        path.unlink()
    path.symlink_to(target := path.parent.parent / "unmounted" / path.name)
    return rf"is a symbolic link to {re.escape(str(target))}, which does not exist \(a dangling link: what it names " \
           rf"not mounted, or moved\?\): "


@pytest.mark.parametrize("layout", ["msd", "nnunet"])
def test_a_dataset_folder_whose_dataset_json_is_a_dangling_link_is_told_so(layout, tmp_path, capsys):
    """Given the folder, a dataset.json there linked from storage not mounted was "folder without dataset.json; its
    imagesTr/ (2 NIfTI files) ... can be listed in a CSV there"; given as the file itself, the link was said."""
    (write_msd if layout == "msd" else write_nnunet)(folder := tmp_path / layout)
    said = dangle(folder / "dataset.json") + "mount or make what it names, or give the dataset's own path"
    told_alike(folder, folder / "dataset.json", said, capsys)


def test_evaluate_labels_of_a_folder_whose_dataset_json_is_a_dangling_link_is_told_so(tmp_path, capsys):
    """evaluate --labels FOLDER said "a folder without a dataset.json or config.json", --labels of the link itself
    "dataset_json file not found"."""
    from accelerated_seg.evaluate_classes import class_names_from_json

    write_msd(tmp_path / "msd")
    link = tmp_path / "msd" / "dataset.json"
    said = (f"^{re.escape(str(link))} {dangle(link)}mount or make what it names, or give the dataset.json \\(or a "
            f"model's config.json\\) that names the classes$")
    for given in (link.parent, link):
        with pytest.raises(DataError, match=said):
            class_names_from_json(given)
    labels = str(tmp_path / "msd" / "labelsTr")
    assert main(["evaluate", labels, labels, "--labels", str(link.parent), "--output", str(tmp_path / "ev")]) == 2
    assert re.search(said.replace("^", "^error: "), capsys.readouterr().err, re.MULTILINE)
    assert not (tmp_path / "ev").exists()


def test_a_folder_whose_cases_csv_is_a_dangling_link_is_told_so(tmp_path):
    """The folder's one CSV, a link to nothing, was left out of what the folder holds: "its imagesTr/ ... can be
    listed in a CSV there" or "expected an MSD dataset.json ..."; of several, it went unnamed."""
    table = write_csv(folder := tmp_path / "csv").source
    said = dangle(table)
    with pytest.raises(DataError, match=f"^{re.escape(str(folder))}: folder without dataset.json; "
                                        f"{re.escape(str(table))} {said}mount or make what it names, and give the CSV "
                                        f"itself as data.dataset, or write an MSD or nnU-Net v2 dataset.json there"):
        load_cases(folder)
    (folder / "notes.csv").write_text("a,b\n")
    with pytest.raises(DataError, match=r"folder without dataset.json; it holds 2 CSV files \(cases.csv \(a link to "
                                        r"nothing\), notes.csv\): name the one that lists the cases"):
        load_cases(folder)


def test_a_dataset_that_is_a_dangling_link_or_a_part_of_one_whose_dataset_json_is(tmp_path):
    """A data.dataset that is itself a link to nothing was "not found; expected an MSD dataset.json ..."; its
    imagesTr/, given for a dataset whose dataset.json is one, "expected an MSD dataset.json ...", not the folder to
    give (where the link is told)."""
    (tmp_path / "data").mkdir()
    said = dangle(linked := tmp_path / "data" / "Task01")
    with pytest.raises(DataError, match=f"^{re.escape(str(linked))} {said}mount or make what it names, or give the "
                                        f"dataset's own path$"):
        load_cases(linked)
    write_msd(msd := tmp_path / "msd")
    dangle(msd / "dataset.json")
    with pytest.raises(DataError, match=f"folder without dataset.json; it lies in {re.escape(str(msd))}, whose "
                                        f"dataset.json describes the dataset: give that folder"):
        load_cases(msd / "imagesTr")


@pytest.mark.parametrize("kind", ["chain", "loop", "folder", "link_to_a_folder"])
def test_a_dataset_json_that_links_on_to_nothing_loops_or_is_a_folder_is_said_as_what_it_is(kind, tmp_path, capsys):
    """Review r113: a dataset.json linking to a link to nothing was "a symbolic link to <the second link>, which does
    not exist", of a link there for ls to see; one in a loop "a symbolic link to <itself>, which does not exist"; a
    folder by that name (or a link to one) "folder without dataset.json" and a CSV to write in its place."""
    write_msd(folder := tmp_path / "msd")
    (json_path := folder / "dataset.json").unlink()
    if kind == "chain":
        json_path.symlink_to(second := tmp_path / "second")
        second.symlink_to(final := tmp_path / "unmounted" / "dataset.json")
        said = (rf"is a symbolic link to {re.escape(str(second))}, which is a symbolic link to "
                rf"{re.escape(str(final))}, which does not exist \(a dangling link at the end of the chain: what it "
                rf"names not mounted, or moved\?\): mount or make what it names, or give the dataset's own path")
    elif kind == "loop":
        json_path.symlink_to(json_path)
        said = (r"is a symbolic link in a loop \(following it leads back to it\), so it names no file: point it at "
                r"the file it stands for, or remove it")
    else:
        (tmp_path / "elsewhere").mkdir()
        json_path.symlink_to(tmp_path / "elsewhere") if kind == "link_to_a_folder" else json_path.mkdir()
        linked = rf" \(a symbolic link to {re.escape(str(tmp_path / 'elsewhere'))}\)" if kind != "folder" else ""
        said = (rf"is a folder{linked}, not the dataset's JSON file: put the dataset's dataset.json in its place "
                rf"\(copy it again from the dataset's download\), or give the dataset's own path")
    told_alike(folder, json_path, said, capsys)


def test_a_key_given_twice_in_a_datasets_files_names_its_object_and_lines_as_every_hand_edited_json(tmp_path,
                                                                                                    capsys):
    """dataset.json's and splits_final.json's own reader said "key(s) ['1'] given twice in one JSON object; keep one
    of each", where the launch's files' (hand_edited's) named the object and the lines: one reader now, one line on
    every path (load_cases, check, evaluate --labels, predict's refusal of the file as a scan)."""
    from accelerated_seg.evaluate_classes import class_names_from_json

    write_msd(tmp_path / "msd")
    path = indented(tmp_path / "msd" / "dataset.json")
    path.write_text(path.read_text().replace('"1": "a",', '"1": "a",\n  "1": "b",'))
    twice = (r"key '1' given twice in labels \(first at line 4\) and at line 5, of which nnU-Net's and MONAI's "
             r"json.load takes the last without a word: keep one")
    for read in (load_cases, class_names_from_json):
        with pytest.raises(DataError, match=f"^{re.escape(str(path))}: {twice}$"):
            read(path)
    assert main(["check", str(path)]) == 1
    assert re.search(f"^error: {re.escape(str(path))}: {twice}$", capsys.readouterr().err, re.MULTILINE)
    with pytest.raises(DataError, match=f"; and dataset.json: {twice}$"):
        expand_inputs([path])
    write_nnunet(nnunet := tmp_path / "nnunet")
    (splits := nnunet / "splits_final.json").write_text('[\n {"train": ["good"],\n  "val": ["bad"],\n  "val": []}\n]')
    with pytest.raises(DataError, match=rf"^{re.escape(str(splits))}: key 'val' given twice in entry \[0\] \(first at "
                                        r"line 3\) and at line 4, of which nnU-Net's json.load takes the last without "
                                        r"a word: keep one$"):
        load_cases(nnunet)
