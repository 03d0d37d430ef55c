"""A command's lines that hold a path named in Latin-1 (a byte that is not UTF-8, as Linux passes it: Python holds it
as a surrogate escape), said on a terminal whose encoding is strict (Python's stdout in a LANG=en_US.UTF-8 locale,
PYTHONIOENCODING=utf-8; pytest's capture is strict too): predict wrote every map and then ended in a
UnicodeEncodeError traceback at its `wrote` line, status 1, and so did synth, evaluate and the rest at theirs
(benchmarks/results/printed_paths_2026-12-07/). Now each byte is shown as \\xNN, on stdout and stderr alike
(printed_paths.py); and a scan or case named so is written under its name (files.temporary_name, metrics.csv)."""

import csv
import io
import os
import subprocess
import sys

import nibabel as nib
import numpy as np
import pytest

from accelerated_seg.cli import main
from accelerated_seg.evaluate import evaluate_folders
from accelerated_seg.files import NAME_MAX, temporary_name
from accelerated_seg.inference import predict_cases
from accelerated_seg.printed_paths import paths_printable
from test_inference import export
from test_name_lengths import latin1


def _scan(path, dtype=np.float32):
    nib.save(nib.Nifti1Image(np.zeros((16, 16, 16), dtype), np.diag([2.5, 2.5, 2.5, 1.0])), path)
    return path


def test_a_strict_stream_shows_a_names_bytes_as_xnn_and_is_put_back_as_it_was(monkeypatch):
    strict = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", newline="", write_through=True)
    passing = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="surrogateescape", newline="",
                               write_through=True)
    monkeypatch.setattr(sys, "stdout", strict)
    monkeypatch.setattr(sys, "stderr", passing)
    folder = latin1("/donn\u00e9es", b"r\xe9sultats")  # a letter in UTF-8, then a byte in Latin-1
    with paths_printable():
        print(f"wrote {folder}/case.nii.gz")
        print(latin1("/data", b"r\xe9sultats"), file=sys.stderr)
    assert strict.buffer.getvalue() == "wrote /donn\u00e9es/r\\xe9sultats/case.nii.gz\n".encode()
    assert passing.buffer.getvalue() == b"/data/r\xe9sultats\n"  # a stream that passes bytes through keeps them
    assert (strict.errors, passing.errors) == ("strict", "surrogateescape")
    ascii_only = io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors="strict", newline="", write_through=True)
    monkeypatch.setattr(sys, "stdout", ascii_only)
    with paths_printable():
        print(folder)  # a letter the encoding lacks: as Python's stderr shows it
    assert ascii_only.buffer.getvalue() == b"/donn\\xe9es/r\\xe9sultats\n"


def test_predict_and_evaluate_of_a_folder_named_in_latin1_say_their_lines_on_a_strict_terminal(tmp_path, capsys):
    """pytest's capture encodes strictly, as a LANG=en_US.UTF-8 terminal does: predict's `wrote` line raised
    UnicodeEncodeError once the map was written, and evaluate's last line once its files were."""
    model, scan = export(tmp_path / "model"), _scan(tmp_path / "case.nii.gz")
    predictions = latin1(tmp_path, b"pr\xe9dictions")
    assert main(["predict", "--model", str(model), str(scan), "--output", predictions + "/"]) == 0
    shown = str(tmp_path) + "/pr\\xe9dictions"
    assert f"wrote {shown}/case.nii.gz" in capsys.readouterr().out
    os.makedirs(tmp_path / "labels")
    _scan(tmp_path / "labels" / "case.nii.gz", np.uint8)
    assert main(["evaluate", predictions, str(tmp_path / "labels"), "--num-classes", "3"]) == 0
    assert f"wrote metrics.csv and summary.json to {shown}/evaluation" in capsys.readouterr().out
    a_file = latin1(tmp_path, b"r\xe9sum\xe9.txt")
    open(a_file, "w").close()
    assert main(["evaluate", predictions, str(tmp_path / "labels"), "--output", a_file]) == 2  # an error line
    assert f"error: --output {tmp_path}/r\\xe9sum\\xe9.txt is a file" in capsys.readouterr().err


def test_synth_and_an_error_line_in_a_process_whose_terminal_is_strict(tmp_path):
    """The command as a terminal runs it: stdout strict (PYTHONIOENCODING=utf-8:strict), stderr Python's
    backslashreplace, which showed the byte as \\udce9; both now show it as \\xe9."""
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    folder = latin1(tmp_path, b"donn\xe9es")
    done = subprocess.run([sys.executable, "-m", "accelerated_seg", "synth", folder, "--cases", "2", "--validation",
                           "1"], env=env, capture_output=True, timeout=300)
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout == f"wrote {tmp_path}/donn\\xe9es/dataset.json\n".encode()
    refused = subprocess.run([sys.executable, "-m", "accelerated_seg", "check", folder + "/none.json"], env=env,
                             capture_output=True, timeout=300)
    assert refused.returncode == 1 and refused.stderr.startswith(f"error: {tmp_path}/donn\\xe9es/none.json".encode())


def test_a_scan_named_in_latin1_is_segmented_under_its_name(tmp_path):
    """The map's hidden temporary took its name with str.encode, which raised UnicodeEncodeError once the case was
    segmented."""
    name = latin1("", b"sc\xe8ne")[1:]
    assert len(os.fsencode(temporary_name(name * 60 + ".nii.gz"))) <= NAME_MAX
    scan = _scan(latin1(tmp_path, b"sc\xe8ne.nii.gz"))
    predict_cases(export(tmp_path / "model"), [scan], tmp_path / "out")
    assert os.listdir(os.fsencode(tmp_path / "out")) == [b"sc\xe8ne.nii.gz"]


def test_a_case_named_in_latin1_is_scored_and_written_and_its_evaluation_replaced_again(tmp_path):
    """metrics.csv's write encoded the case's name strictly: UnicodeEncodeError once every case was scored, every
    score lost. Its name is written as the commands print it, and the same evaluation again replaces it."""
    for folder in ("pred", "labels"):
        os.makedirs(tmp_path / folder)
        _scan(latin1(tmp_path / folder, b"c\xe9.nii.gz"), np.uint8)
    for _ in range(2):
        summary = evaluate_folders(tmp_path / "pred", tmp_path / "labels", num_classes=2)
    assert summary["num_cases"] == 1
    with open(tmp_path / "pred" / "evaluation" / "metrics.csv", encoding="utf-8") as written:
        assert [row["case"] for row in csv.DictReader(written)] == ["c\\xe9"]


@pytest.mark.parametrize("name", [b"r\xe9sultats", b"it's r\xe9s \\ $HOME `x` *", b"caf\xc3\xa9 sc\xe8ne\nx"])
def test_a_suggested_commands_path_named_in_latin1_reads_back_in_bash_as_that_path(name):
    """shell_word quotes a path holding a byte that is not UTF-8 as ``$'...\\\\xNN...'``, which bash reads back as
    those bytes, as printed on any stream: ``'r\\\\xe9sultats'`` (shlex.quote, the byte shown as \\\\xNN on the
    streams) named a folder of those four characters (review r107). A path of UTF-8 keeps shlex.quote's form."""
    from accelerated_seg.shell_words import shell_word, shell_word_below

    path = os.fsdecode(name)
    for word in (shell_word(path), shell_word_below(path, "<folder>")):
        assert word.isascii() and word.startswith("$'")
        assert subprocess.run(["bash", "-c", f"printf %s {word}"], capture_output=True).stdout == (
            name if word == shell_word(path) else name + b"/<folder>")
    assert shell_word("caf\u00e9 here") == "'caf\u00e9 here'" and shell_word("plain/path") == "plain/path"


def test_a_long_utf8_names_temporary_is_cut_before_a_character_not_inside_it():
    """temporary_name cuts a long name in its bytes (os.fsencode, which a Latin-1 byte needs) at a character's
    start: cut inside one (three-byte CJK), the hidden name was no longer UTF-8, and a leftover of a killed write was
    named with \\xNN (review r107). A name in Latin-1 is cut as its bytes are."""
    for name in ("\u65e5" * 90, "x" * 208 + "\u65e5" * 20, "e\u0301" * 120):
        stored = os.fsencode(temporary_name(name, "tmp.nii.gz"))
        assert len(stored) <= NAME_MAX and stored.decode("utf-8").startswith("." + name[:40])
    latin1_name = os.fsdecode(b"sc\xe8ne" * 60)
    assert os.fsencode(temporary_name(latin1_name)).startswith(b".sc\xe8nesc\xe8ne")
