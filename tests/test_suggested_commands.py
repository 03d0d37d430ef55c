"""Review r91 of the hundred-and-nineteenth session's quoting of suggested commands and its broken-export refusals
(helper h103): what its tests in test_inference.py did not reach. Torch-free folders: an export's two files are
their names alone where the JSON is refused before the weights are read."""
from __future__ import annotations

import ast
import shlex
from pathlib import Path
from types import SimpleNamespace

import pytest

from accelerated_seg.cli import main


def broken_export(folder: Path, config: bytes) -> Path:
    """A folder of an export's two files whose config.json is ``config``."""
    folder.mkdir(parents=True)
    (folder / "config.json").write_bytes(config)
    (folder / "model.safetensors").write_bytes(b"")
    return folder


def test_a_config_json_nested_too_deep_is_one_line_where_images_a_model_or_a_checkpoint_are_expected(tmp_path,
                                                                                                   capsys):
    """A config.json of brackets nested past the parser's depth (a garbage file, JSON's shape) raised RecursionError
    through read_config_json: a traceback among predict's images, as --model, as evaluate's PRED and as export's
    input (benchmarks/results/review_suggested_commands_2026-12-06/broken_export_edges.txt), until review r91."""
    folder = broken_export(tmp_path / "deep", b"[" * 100_000 + b"]" * 100_000)
    line = f"{folder / 'config.json'} is not valid JSON (nested deeper than Python reads: a copy gone wrong?)"
    scans = tmp_path / "scans"
    scans.mkdir()
    assert main(["predict", "--model", str(folder), str(scans), "--output", str(tmp_path / "o")]) == 2
    assert f"error: {line}" in capsys.readouterr().err
    assert main(["predict", str(folder), str(scans), "--output", str(tmp_path / "o")]) == 2
    assert f"error: {folder} holds no .nii/.nii.gz file but an export's config.json and model.safetensors, and " \
           f"{line}" in capsys.readouterr().err
    assert main(["evaluate", str(folder), str(scans)]) == 2
    assert line in capsys.readouterr().err
    with pytest.raises(SystemExit, match="^2$"):
        main(["export", str(folder), "--output", str(tmp_path / "e")])
    assert line in capsys.readouterr().err


@pytest.mark.parametrize("who", ["fit", "train", "estimator"])
def test_a_preempted_runs_way_to_a_model_quotes_the_command_and_names_fits_export_as_prose(who):
    """A preempted run's line ends with how its saved state becomes a model: the command line's and the estimator's
    an export command, whose folder is quoted for a shell; fit's a sentence, "exports it to <run>/model", which since
    the hundred-and-nineteenth session read "exports it to '/runs/my run'/model" (quoted for a shell, half the
    path), until review r91."""
    from accelerated_seg.model_folders import ESTIMATOR_NAMES, FIT_NAMES, Names
    from accelerated_seg.preempted_run import say_where_a_preempted_run_goes_on

    names = {"fit": FIT_NAMES, "train": Names(), "estimator": ESTIMATOR_NAMES}[who]
    said = []
    loop = SimpleNamespace(progress=SimpleNamespace(step=40), names=names, accelerator=SimpleNamespace(
        print=said.append), checkpoints_dir=Path("/runs/it's my run/checkpoints"))
    say_where_a_preempted_run_goes_on(loop)
    if who == "fit":
        assert said[0].endswith("which trains nothing and exports it to /runs/it's my run/model."), said
    else:
        command = said[0][said[0].index("accelerated-seg export"):said[0].index(" --output")]
        assert shlex.split(command) == ["accelerated-seg", "export", "/runs/it's my run"], said


@pytest.mark.parametrize("folder_name", ["it's out", "C:\\new\\out", "plain"])
def test_one_case_given_a_folder_is_told_the_several_cases_call_with_the_folder_as_pythons_string(tmp_path,
                                                                                                   folder_name):
    """predict_file, predict_case and Segmentation.predict given a folder as one case's output are told the call for
    several cases into it: ``predict_cases(model_dir, inputs, '<folder>')``, the folder inside quotes of the form's
    own, so a folder named ``it's out`` gave ``'.../it's out'`` (no Python) and ``C:\\new\\out`` a string of a
    newline, until review r91. Now Python's own string (repr); the command line's --output quoted for a shell."""
    from accelerated_seg.data.errors import DataError
    from accelerated_seg.inference_outputs import check_one_case_output
    from accelerated_seg.predict_names import (ESTIMATOR_PREDICT_NAMES, PREDICT_CASE_NAMES, PREDICT_FILE_NAMES,
                                               PredictNames)

    folder = tmp_path / folder_name
    folder.mkdir()
    for names in (PREDICT_FILE_NAMES, PREDICT_CASE_NAMES, ESTIMATOR_PREDICT_NAMES, PredictNames()):
        with pytest.raises(DataError) as refusal:
            check_one_case_output(folder, ["case_000.nii.gz"], names)
        said = str(refusal.value)
        if names.keyword:
            call = said[said.index("predict_cases("):said.rindex(") to write")] + ")"
            assert ast.literal_eval(ast.unparse(ast.parse(call).body[0].value.args[2])) == str(folder), said
        else:
            assert shlex.split(said[said.index("with --output "):said.index(" to write")])[2] == str(folder), said


def test_cache_names_a_dataset_below_a_cache_whose_path_needs_quoting_as_one_quoted_word(tmp_path, capsys):
    """`cache --cache-dir '<my cache>'` says how to list a dataset's versions: ``accelerated-seg cache
    '/x/my cache'/<folder>`` since the hundred-and-nineteenth session, half a path quoted (a shell reads it, a user
    fills in a placeholder after a closing quote), until review r91: the whole word is quoted now, and a plain cache's
    line reads as before."""
    from accelerated_seg.shell_words import shell_word_below

    root = tmp_path / "my cache"
    version = root / "Task09-0123abcd" / "fedcba9876543210"  # a dataset's version, as test_cache's older one
    version.mkdir(parents=True)
    (version / "settings.json").write_text("{}")
    assert main(["cache", "--cache-dir", str(root)]) == 0
    said = capsys.readouterr().out
    assert f"accelerated-seg cache '{root}/<folder>' lists a dataset's versions" in said, said
    assert shlex.split(shell_word_below(root, "<folder>")) == [f"{root}/<folder>"]
    assert shell_word_below("/cache", "<folder>") == "/cache/<folder>"


def test_an_exports_files_whose_config_json_cannot_be_read_say_so_where_images_or_a_checkpoint_are_expected(
        tmp_path, capsys, monkeypatch):
    """An export's config.json that cannot be read (another user's, chmod 000) was "folder b holds no .nii/.nii.gz
    file; check the path" among predict's images, "no prediction in b" as evaluate's PRED, and "an exported model
    already ... take it as it is" as export's input, until review r91. Read as by a user without the permission
    (these tests may run as root, whom chmod 000 does not stop)."""
    folder = broken_export(tmp_path / "theirs", b"{}")

    def refused(real):  # read as bytes since the hundred-and-twenty-second session (hand_edited.py), as text before
        def read(self, *args, **kwargs):
            if self == folder / "config.json":
                raise PermissionError(13, "Permission denied", str(self))
            return real(self, *args, **kwargs)
        return read

    monkeypatch.setattr(Path, "read_text", refused(Path.read_text))
    monkeypatch.setattr(Path, "read_bytes", refused(Path.read_bytes))
    line = (f"{folder} holds no .nii/.nii.gz file but an export's config.json and model.safetensors, and "
            f"{folder / 'config.json'} cannot be read (Permission denied)")
    scans = tmp_path / "scans"
    scans.mkdir()
    assert main(["predict", "--model", str(scans), str(folder), "--output", str(tmp_path / "o")]) == 2
    assert f"error: {line}" in capsys.readouterr().err
    assert main(["evaluate", str(folder), str(scans)]) == 2
    assert f"error: {line}" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="^2$"):
        main(["export", str(folder), "--output", str(tmp_path / "e")])
    assert (f"{folder} is no checkpoint but an export's config.json and model.safetensors, and "
            f"{folder / 'config.json'} cannot be read (Permission denied)") in capsys.readouterr().err


def test_an_exports_config_json_an_editor_saved_with_a_bom_is_read_and_one_in_utf16_told_to_be_saved_as_utf8(
        tmp_path, capsys):
    """An export's config.json saved by an editor as "UTF-8 with BOM" (a label renamed by hand) was told to "copy the
    export's config.json again from the run folder that wrote it", which loses the edit, as --model and among the
    images, until review r91, then to save it without the mark, until the hundred-and-twenty-second session: the mark
    is read past (hand_edited.py), so what is said is the export's next fault (here its empty weights file). One
    saved as UTF-16 (Notepad's "Unicode") is told to be saved as UTF-8."""
    scans = tmp_path / "scans"
    scans.mkdir()
    bom = broken_export(tmp_path / "bom", b"\xef\xbb\xbf" + b'{"model": {}}')
    utf16 = broken_export(tmp_path / "utf16", '{"model": {}}'.encode("utf-16"))
    in_utf16 = (f'{utf16 / "config.json"} is saved as UTF-16 (a Windows editor\'s "Unicode"), not UTF-8: save it '
                f'again as UTF-8')
    for given, said in ((["--model", str(bom), str(scans)], f"{bom / 'model.safetensors'}: an empty file (0 bytes"),
                        (["--model", str(scans), str(bom)], f"{bom} is an exported model, given as an image to segment"),
                        (["--model", str(utf16), str(scans)], in_utf16),
                        (["--model", str(scans), str(utf16)], in_utf16)):
        assert main(["predict", *given, "--output", str(tmp_path / "o")]) == 2
        err = capsys.readouterr().err
        assert said in err and "byte-order" not in err, err
