"""An export's config.json edited by hand and saved otherwise (hand_edited.py): a UTF-8 byte-order mark is read
past on every path that reads config.json, as on evaluate's --labels; UTF-16, a comma JSON does not allow and a file
cut short are each one line naming the file, what is wrong and what to do (the hundred-and-twenty-second session's
probe, benchmarks/results/output_and_config_edges_2026-12-07/). --config's YAML: tests/test_config.py."""

import json
import re
import struct
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from accelerated_seg.checkpoint import exported_step
from accelerated_seg.cli import main
from accelerated_seg.data.errors import DataError
from accelerated_seg.estimator import Segmentation
from accelerated_seg.hand_edited import json_fault, read_json_file
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
                       # the parser's words differ: "Expecting property name" up to 3.12, at the '}'; "Illegal
                       # trailing comma before end of object" from 3.13, at the comma
                       r" is not valid JSON \(.*: line \d+ column \d+ \(char \d+\)\): a comma before that '\}', which "
                       r"JSON does not allow \(a hand edit\?\); remove the comma$"),
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
    if edit != "empty":  # evaluate's own words for a file of no labels; the same line since review r106 (it said
        # "copy config.json again from where it was written", and of a dataset.json the same, where training said
        # "from the dataset's download")
        with pytest.raises(DataError, match=f"^{line}"):
            class_names_from_json(config)



CONFIG = json.dumps({"model": {"name": "UNet", "channels": [16, 32]}, "num_classes": 3}, indent=2) + "\n"
HEADER = json.dumps({"weight": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}).encode()
TOLD = {  # the bytes of a config.json -> what the line says after the file's name (review of h120's hand_edited)
    # a copy gone wrong or another file of the name: "saved as UTF-16 or UTF-32 (NUL bytes ...)", or "saved as
    # Latin-1", where no text was ever saved
    "safetensors": (struct.pack("<Q", len(HEADER)) + HEADER + bytes(4),
                    r"is not a text file \(byte 0x00 at offset 1, which no text holds: a binary file, such as weights "
                    r"or an archive, saved under this name, or a copy gone wrong\?\): copy the text file there again"),
    "gzip": (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + bytes(range(256)),
             r"is not a text file \(byte 0x1f at offset 0"),
    "png": (b"\x89PNG\r\n\x1a\n" + bytes(range(256)), r"is not a text file \(byte 0x1a at offset 6"),
    "utf16_no_mark": (CONFIG.encode("utf-16-le"), r"is saved as UTF-16 \(NUL bytes between its characters\), not "
                                                   r"UTF-8: save it again as UTF-8$"),
    "utf32_no_mark_cut": (CONFIG.encode("utf-32-be")[:-3], r"is saved as UTF-32 \(NUL bytes"),
    # a quote or a bracket left out mid-file: "cut short ... copy it again", which loses the edit
    "quote_left_out": (CONFIG.replace('"UNet"', '"UNet').encode(), r"is not valid JSON \(Invalid control character "
                       r"at: line 3 column 19 \(char 33\)\); mend it there \(a hand edit\?\), or COPY$"),
    "quote_left_out_one_line": (b'{"model": {"name": "UNet}, "num_classes": 3}', r"\); mend it there"),
    "bracket_left_out": (CONFIG.replace("32\n    ]", "32\n").encode(),
                         r"\); mend it there \(a hand edit\?\), or COPY$"),
    # a comma before a bracket of the other kind: removing it mends nothing
    "comma_wrong_bracket": (b'{"model": {"name": "UNet",]}}', r"\); mend it there \(a hand edit\?\), or COPY$"),
    "blank": (b" \n\n\t \n", r"\): the file is only blank space; COPY$"),
    "bom_and_comma": (BOM + CONFIG.replace("3\n", "3,\n").encode(), r"\): a comma before that '\}', which JSON does "
                                                                     r"not allow \(a hand edit\?\); remove the comma$"),
    "still_cut_short": (CONFIG.encode()[:40],
                        r"\): it ends inside a string, object or list, so it was cut short; COPY$"),
}


@pytest.mark.parametrize("case", TOLD)
def test_what_a_mangled_config_json_is_said_to_be_is_what_it_is(case, tmp_path):
    """h120's diagnosis, fuzzed (benchmarks/results/review_hand_edited_2026-12-07/): a safetensors or gzip file
    named config.json was "saved as UTF-16 or UTF-32", a PNG "saved as Latin-1"; a quote or bracket left out by
    a hand edit, mid-file, was "cut short; copy it again", the edit lost; a comma before a bracket of the other
    kind "remove the comma", which mends nothing; a file of blank space "empty"."""
    data, said = TOLD[case]
    (config := tmp_path / "config.json").write_bytes(data)
    with pytest.raises(DataError, match=f"^{re.escape(str(config))} .*{said}"):
        read_json_file(config, "COPY")


def test_a_trailing_comma_is_told_where_python_313_stops_at_the_comma():
    """Python 3.13 on says "Illegal trailing comma before end of object" at the comma itself, where 3.10 to 3.12
    stop at the bracket after it: json_fault told only the second a comma's, and the first "mend it there, or copy
    the export's config.json again" (pyproject's requires-python is >=3.10)."""
    for text, closing in (('{\n  "a": 1,\n}\n', "}"), ('[1,\n2,]', "]")):
        comma = text.rindex(",")
        error = json.JSONDecodeError(f"Illegal trailing comma before end of {'object' if closing == '}' else 'array'}",
                                     text, comma)
        assert json_fault(Path("config.json"), text, error, "COPY").endswith(
            f"a comma before that '{closing}', which JSON does not allow (a hand edit?); remove the comma")


def test_a_json_file_of_ours_saved_with_a_byte_order_mark_is_recognised_and_read_alike(tmp_path):
    """files.is_json_object_with reads past a UTF-8 byte-order mark, as hand_edited does (save and fit:
    test_estimator); check_output_file, which reads the file it recognised, reads it alike (else json's "Unexpected
    UTF-8 BOM" traceback), and so does evaluate's earlier_evaluation."""
    from accelerated_seg.evaluate_output import earlier_evaluation
    from accelerated_seg.files import check_output_file, is_json_object_with

    (result := tmp_path / "result.json").write_bytes(BOM + b'{"benchmark": "train_unet"}')
    assert is_json_object_with(result, {"benchmark"})
    check_output_file(result, "--output", "benchmark", "train_")  # an earlier result of the command: replaced
    (tmp_path / "summary.json").write_bytes(BOM + b'{"settings": {"label_folder": "labels"}}')
    assert earlier_evaluation(tmp_path) == {"settings": {"label_folder": "labels"}}


def test_a_key_given_twice_in_an_exports_config_json_is_refused_as_in_every_hand_edited_json(tmp_path, capsys):
    """A config.json edited by hand with a key given twice (a label renamed into a copy of its line) was read as the
    last by predict, Segmentation.load and the rest; evaluate --labels refused it in dataset.json's reader's words,
    "key(s) ['2'] given twice in one JSON object; keep one of each". hand_edited's one reader now, one line
    (the hundred-and-twenty-fourth session)."""
    model = export(tmp_path / "model")
    config = model / "config.json"
    text = json.dumps(json.loads(config.read_text()), indent=1)
    config.write_text(text.replace('"2": "lesion"', '"2": "lesion",\n  "2": "lesion, renamed"'))
    first = next(number for number, written in enumerate(config.read_text().splitlines(), 1) if '"2"' in written)
    said = (f"{re.escape(str(config))}: key '2' given twice in labels \\(first at line {first}\\) and at line "
            f"{first + 1}, of which json.load takes the last without a word: keep one")
    for read in (read_export_json, class_names_from_json):
        with pytest.raises(DataError, match=f"^{said}$"):
            read(model if read is read_export_json else config)
    assert main(["predict", "--model", str(model), str(a_scan(tmp_path / "case.nii.gz")), "--output",
                 str(tmp_path / "out") + "/"]) == 2
    assert re.fullmatch(f"error: {said}\n", capsys.readouterr().err)
    assert not (tmp_path / "out").exists()


def test_json_typed_on_a_command_line_or_inline_refuses_a_key_given_twice():
    """plan's and benchmark train's --model-args, and a DeepSpeed config written inline into an accelerate profile
    (as accelerate's HfDeepSpeedConfig takes it), took the last of a key given twice without a word; refused now in
    hand_edited's words (loads_once), as a file's (the hundred-and-twenty-fourth session)."""
    from accelerated_seg import plan
    from accelerated_seg.benchmark_train_settings import parse_model_args
    from accelerated_seg.config import ConfigError
    from accelerated_seg.strategy import read_deepspeed_json

    typed = '{"channels": [8, 16], "strides": [2], "channels": [4, 8]}'
    assert parse_model_args is plan.parse_model_args  # one reading, in one wording, since review r113
    with pytest.raises(ConfigError, match=r"^--model-args \(model.args\): key 'channels' given twice at the top, of "
                                          r"which json.loads takes the last without a word: keep one$"):
        parse_model_args(typed)
    assert parse_model_args('{"channels": [4, 8]}') == {"channels": [4, 8]}
    with pytest.raises(ConfigError, match=r"^the accelerate config's deepspeed_config_file \(a DeepSpeed config "
                                          r"written inline\): key 'stage' given twice in zero_optimization, of which "
                                          r"accelerate's DeepSpeed plugin takes the last without a word: keep one$"):
        read_deepspeed_json('{"zero_optimization": {"stage": 2, "stage": 3}}')
    assert read_deepspeed_json('{"zero_optimization": {"stage": 2}}') == {"zero_optimization": {"stage": 2}}


def test_a_large_hand_edited_json_is_read_in_linear_time_and_right_files_pass(tmp_path):
    """The one reader of hand-edited JSON (read_json_file) counted each key of an object with keys.count (2.6 s for an
    object of 10,000 keys: nnU-Net v2's "dataset" of case ids) and a key's lines from the top for each place it is
    written (a 10,000-case dataset.json with one case's "image" twice, "image" written 10,001 times, 4 s; 40,000
    cases 29 s), until review r113. Files that are right pass as json.loads reads them: region-based labels, the same
    key in different objects of a list, a byte-order mark, NaN and Infinity, a list at the top."""
    import time

    wide = {"dataset": {f"case_{i:05d}": {"images": [f"{i}_0000.nii.gz"], "label": f"{i}.nii.gz"}
                        for i in range(20000)}}
    (tmp_path / "wide.json").write_text(json.dumps(wide))
    cases = [{"image": f"imagesTr/{i}.nii.gz", "label": f"labelsTr/{i}.nii.gz"} for i in range(20000)]
    twice = json.dumps({"training": cases}, indent=4).replace('"label": "labelsTr/19999.nii.gz"',
                                                               '"label": "labelsTr/19999.nii.gz", "image": "x"')
    (tmp_path / "twice.json").write_text(twice)
    # Against json.loads of the same texts timed beside it, not a wall-clock bound (a loaded CI runner slows both):
    # 1.5 times json.loads here after the fix, 26 times before with the wide object alone set back (5.6 s to 0.22).
    # In this process's CPU time, not the wall's: beside four busy loops on 2 cores (load 9) the wall gave 0.56 s
    # against 0.03, the process descheduled (the hundred-and-twenty-fifth session's closing CI run)
    started = time.process_time()
    for name in ("wide.json", "twice.json"):
        json.loads((tmp_path / name).read_text())
    plain_s = time.process_time() - started
    started = time.process_time()
    assert read_json_file(tmp_path / "wide.json", "again") == wide
    with pytest.raises(DataError, match=r"key 'image' given twice in training\[19999\], of which json.load takes"):
        read_json_file(tmp_path / "twice.json", "again")
    ours_s = time.process_time() - started
    assert ours_s < max(8 * plain_s, 0.5), (ours_s, plain_s)

    right = {"regions.json": '{"labels": {"background": 0, "whole tumor": [1, 2, 3], "tumor core": [2, 3]}}',
             "training.json": '{"training": [{"image": "a", "label": "b"}, {"image": "c", "label": "d"}]}',
             "nan.json": '{"a": NaN, "b": [Infinity, -Infinity]}',
             "list.json": '[{"train": ["a"], "val": ["b"]}, {"train": ["b"], "val": ["a"]}]'}
    for name, text in right.items():
        (tmp_path / name).write_text(text)
        assert json.dumps(read_json_file(tmp_path / name, "again")) == json.dumps(json.loads(text))
    (tmp_path / "bom.json").write_bytes(b"\xef\xbb\xbf" + right["regions.json"].encode())
    assert read_json_file(tmp_path / "bom.json", "again") == json.loads(right["regions.json"])
