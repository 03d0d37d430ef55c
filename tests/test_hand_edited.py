"""An export's config.json edited by hand and saved otherwise (hand_edited.py): a UTF-8 byte-order mark is read
past on every path that reads config.json, as on evaluate's --labels; UTF-16, a comma JSON does not allow and a file
cut short are each one line naming the file, what is wrong and what to do (the hundred-and-twenty-second session's
probe, benchmarks/results/output_and_config_edges_2026-12-07/). --config's YAML: tests/test_config.py."""

import json
import re

import nibabel as nib
import numpy as np
import pytest

from accelerated_seg.checkpoint import exported_step
from accelerated_seg.cli import main
from accelerated_seg.data.errors import DataError
from accelerated_seg.estimator import Segmentation
from accelerated_seg.evaluate import class_names_from_json
from accelerated_seg.model_folders import read_export_json
from test_inference import export

BOM = b"\xef\xbb\xbf"


def a_scan(path):
    nib.save(nib.Nifti1Image(np.random.default_rng(0).normal(size=(16, 16, 16)).astype(np.float32),
                             np.diag([2.5, 2.5, 2.5, 1.0])), path)
    return path


def test_an_exports_config_json_saved_with_a_byte_order_mark_is_read_on_every_path(tmp_path, capsys):
    """Notepad's "UTF-8 with BOM" of a config.json edited by hand (a label renamed): predict, Segmentation.load,
    fine-tuning's init_from and export refused it ("save it again as UTF-8 without a byte-order mark"), the run's
    exported_step took it for one recording no step, and evaluate --labels read it, until the
    hundred-and-twenty-second session: the same bytes after the mark are the text the user saved."""
    model = export(tmp_path / "model", step=7)
    config = model / "config.json"
    edited = json.loads(config.read_text())
    edited["labels"]["2"] = "lesion, renamed"
    config.write_bytes(BOM + json.dumps(edited, indent=2).encode())

    assert read_export_json(model)["labels"]["2"] == "lesion, renamed"
    assert Segmentation.load(model).model_dir == model
    assert exported_step(model) == 7
    assert "lesion, renamed" in class_names_from_json(config).values()
    assert main(["predict", "--model", str(model), str(a_scan(tmp_path / "case.nii.gz")), "--output",
                 str(tmp_path / "out") + "/"]) == 0, capsys.readouterr().err
    assert (tmp_path / "out" / "case.nii.gz").is_file()


EDITS = {  # how a hand edit went wrong -> (the bytes saved, what the one line says after the file's name)
    "utf16": (lambda text: text.encode("utf-16"),
              r' is saved as UTF-16 \(a Windows editor\'s "Unicode"\), not UTF-8: save it again as UTF-8$'),
    "latin1": (lambda text: text.replace("lesion", "l\xe9sion").encode("latin-1"),
               r" is not UTF-8 text \(byte 0xe9 on line \d+: saved as Latin-1 or Windows-1252\?\): save it again as "
               r"UTF-8$"),
    "trailing_comma": (lambda text: text.replace('"lesion"\n', '"lesion",\n', 1).encode(),
                       r" is not valid JSON \(Expecting property name enclosed in double quotes: line \d+ column 3 "
                       r"\(char \d+\)\): a comma before that '\}', which JSON does not allow \(a hand edit\?\); "
                       r"remove the comma$"),
    "cut_short": (lambda text: text.encode()[:int(len(text) * 0.6)],
                  r" is not valid JSON \(.*line \d+ column \d+ \(char \d+\)\): it ends inside a string, object or "
                  r"list, so it was cut short; copy the export's config.json again from the run folder that wrote "
                  r"it$"),
    "missing_comma": (lambda text: text.replace('"lesion"\n', '"lesion"\n "3": "x"\n', 1).encode(),
                      r" is not valid JSON \(Expecting ',' delimiter: line \d+ column \d+ \(char \d+\)\); mend it "
                      r"there \(a hand edit\?\), or copy the export's config.json again from the run folder that "
                      r"wrote it$"),
    "empty": (lambda text: b"", r" is not valid JSON \(Expecting value: line 1 column 1 \(char 0\)\): the file is "
                                r"empty; copy the export's config.json again from the run folder that wrote it$"),
}


@pytest.mark.parametrize("edit", EDITS)
def test_a_hand_edit_of_an_exports_config_json_gone_wrong_is_one_line_saying_what_and_what_to_do(edit, tmp_path,
                                                                                                   capsys):
    """A config.json saved as UTF-16 or Latin-1 was told "not valid JSON ('utf-8' codec can't decode ...); copy
    the export's config.json again", and one with a comma JSON does not allow the same, which loses the edit; one
    cut short was the parser's words alone: each now says what it is and the way on (hand_edited.json_fault), as
    predict --model and evaluate --labels say it."""
    model = export(tmp_path / "model")
    config = model / "config.json"
    bytes_of, said = EDITS[edit]
    config.write_bytes(bytes_of(config.read_text()))
    line = f"{re.escape(str(config))}{said}"
    with pytest.raises(DataError, match=f"^{line}"):
        read_export_json(model)
    assert main(["predict", "--model", str(model), str(a_scan(tmp_path / "case.nii.gz")), "--output",
                 str(tmp_path / "out") + "/"]) == 2
    assert re.fullmatch(f"error: {line}\n", capsys.readouterr().err)
    if edit != "empty":  # evaluate's own words for a file of no labels
        with pytest.raises(DataError, match=line.replace("copy the export's config.json again from the run folder "
                                                         "that wrote it", "copy config.json again from where it "
                                                                          "was written")):
            class_names_from_json(config)

