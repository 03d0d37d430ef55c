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
    with pytest.raises(DataError, match=r"splits_final.json: key\(s\) \['val'\] given twice in one JSON object; keep "
                                        r"one of each$"):
        load_cases(tmp_path)
