"""The launch's files a user edits by hand - an accelerate config file (YAML, or .json) and the DeepSpeed json its
``deepspeed_config_file`` names - read as hand_edited reads config.json and dataset.json: UTF-16 (with or without its
mark), Latin-1, a binary file, a YAML or JSON fault and a copy cut short each one line naming the file, what it is and
what to do, from `plan --accelerate-config` and from a launched rank before the Accelerator is built; where accelerate
reads the file again itself, a key given twice (which it takes the last of without a word) is refused, and a UTF-8
byte-order mark is read past where accelerate reads past it too (a YAML profile: PyYAML) and refused where it would
stop at it (json.load, a .json profile or a DeepSpeed json). The hundred-and-twenty-third session's probe:
benchmarks/results/hand_edited_launch_configs_2026-12-07/."""

import re

import pytest

from accelerated_seg import launched_profile
from accelerated_seg.cli import main
from accelerated_seg.strategy import construction_error

BOM = b"\xef\xbb\xbf"
RESAVE = "save it again as UTF-8"
AGAIN = r"copy it again or write one with `accelerate config`"
PROFILE = """\
# A hand-edited profile: one process on the CPU
compute_environment: LOCAL_MACHINE
distributed_type: MULTI_GPU
num_machines: 1
num_processes: 2
mixed_precision: bf16
dynamo_config:
  dynamo_backend: 'NO'
main_training_function: main
"""
PROFILE_JSON = """\
{
  "compute_environment": "LOCAL_MACHINE",
  "distributed_type": "MULTI_GPU",
  "num_processes": 2,
  "mixed_precision": "bf16",
  "main_training_function": "main"
}
"""
DEEPSPEED_JSON = """\
{
  "zero_optimization": {"stage": 2, "offload_optimizer": {"device": "none"}},
  "bf16": {"enabled": true}
}
"""
#: How a hand edit went wrong -> (the bytes saved, what the line says after the file's name), for any of the three
ENCODINGS = {
    "utf16": (lambda text: text.encode("utf-16"), rf'is saved as UTF-16 \(a Windows editor\'s "Unicode"\), not UTF-8: '
                                                  rf"{RESAVE}$"),
    "utf16_no_mark": (lambda text: text.encode("utf-16-le"),
                      rf"is saved as UTF-16 \(NUL bytes between its characters\), not UTF-8: {RESAVE}$"),
    "latin1": (lambda text: text.replace("none", "/donn\xe9es", 1).replace("one process", "un processus r\xe9gl\xe9", 1)
               .replace('"main"', '"d\xe9marrer"', 1).encode("latin-1"),
               rf"is not UTF-8 text \(byte 0xe9 on line \d: saved as Latin-1 or Windows-1252\?\): {RESAVE}$"),
    "binary": (lambda text: b"PK\x03\x04\x14\x00\x00\x00" + text.encode()[:40],  # a ZIP archive's header
               r"is not a text file \(byte 0x03 at offset 2, which no text holds: .*\): copy the text file there "
               r"again$"),
}
JSON_FAULTS = {
    "trailing_comma": (lambda text: (text.rstrip()[:-1].rstrip() + ",\n}\n").encode(),
                       r"is not valid JSON \(.*\): a comma before that '}', which JSON does not allow \(a hand "
                       r"edit\?\); remove the comma$"),
    "cut_short": (lambda text: text.encode()[:len(text) // 2],
                  r"is not valid JSON \(.*\): it ends inside a string, object or list, so it was cut short; COPY$"),
    "missing_comma": (lambda text: text.replace(",\n", "\n", 1).encode(),
                      r"is not valid JSON \(Expecting ',' delimiter: line \d+ .*\); mend it there \(a hand "
                      r"edit\?\), or COPY$"),
    # json.load, accelerate's reader, stops at the mark: told, not read past
    "bom": (lambda text: BOM + text.encode(),
            r'begins with a byte-order mark \(a Windows editor\'s "UTF-8 with BOM"\), which READER refuses '
            r'\(json.load\'s "Unexpected UTF-8 BOM"\): save it again as UTF-8 without the mark$'),
}
YAML_FAULTS = {
    "tab": (lambda text: text.replace("  dynamo_backend", "\tdynamo_backend").encode(),
            r"is not valid YAML: found character '\\t' that cannot start any token at line 8, column 1; YAML takes no "
            r"tab there \(it indents with spaces\): replace the tab with spaces$"),
    "bad_indentation": (lambda text: text.replace("main_training", " main_training").encode(),
                        rf"is not valid YAML: expected <block end>, but found '<block mapping start>' at line 9, "
                        rf"column 2; mend it there \(a hand edit\?\), or {AGAIN}$"),
    "cut_short": (lambda text: text.replace("dynamo_config:\n  dynamo_backend: 'NO'\nmain_training_function: main\n",
                                            "dynamo_config: {dynamo_backend: 'NO'").encode(),
                  rf"is not valid YAML: expected ',' or '}}', but got '<stream end>' at line 7, column 37: the file "
                  rf"ends there, wanting more, so it was cut short; {AGAIN}$"),
}


def plan_says(capsys, profile) -> str:
    """`plan --accelerate-config profile`'s one error line (status 2)."""
    assert main(["plan", "--model", "unet", "--patch", "32", "32", "32", "--accelerate-config", str(profile)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


@pytest.mark.parametrize("edit", [*ENCODINGS, *JSON_FAULTS])
def test_a_json_profile_saved_otherwise_is_one_line_from_plan_saying_what_to_do(tmp_path, capsys, edit):
    """Each was the codec's or the parser's words ("cannot be read as an accelerate config file (UnicodeDecodeError:
    'utf-8' codec can't decode byte 0xff ...)", "(not valid JSON: Unexpected UTF-8 BOM ...)"), or, for a comma
    JSON does not allow, the parser's alone."""
    make, said = {**ENCODINGS, **JSON_FAULTS}[edit]
    profile = tmp_path / "launch.json"
    profile.write_bytes(make(PROFILE_JSON))
    expected = said.replace("COPY", AGAIN).replace("READER", "accelerate launch")
    assert re.fullmatch(rf"error: --accelerate-config {re.escape(str(profile))} {expected}",
                        plan_says(capsys, profile))


@pytest.mark.parametrize("edit", [*ENCODINGS, *YAML_FAULTS])
def test_a_yaml_profile_saved_otherwise_is_one_line_from_plan_saying_what_to_do(tmp_path, capsys, edit):
    """As the experiment's --config YAML is told (config.load_config, through hand_edited.not_utf8): UTF-16 was
    "(UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte)", a YAML fault
    said no way on but for a tab, and a file cut short was not told as one."""
    make, said = {**ENCODINGS, **YAML_FAULTS}[edit]
    profile = tmp_path / "launch.yaml"
    profile.write_bytes(make(PROFILE))
    assert re.fullmatch(rf"error: --accelerate-config {re.escape(str(profile))} {said}", plan_says(capsys, profile))


def test_a_profile_with_a_byte_order_mark_is_read_where_accelerate_launch_reads_it_and_refused_where_it_does_not(
        tmp_path, capsys):
    """A YAML profile's mark is read past by PyYAML, in accelerate launch as here: plan reads it. A .json one's
    stops accelerate launch (json.load's "Unexpected UTF-8 BOM" traceback), so plan says to save it without."""
    from accelerate.commands.config.config_args import load_config_from_file

    profile = tmp_path / "launch.yaml"
    profile.write_bytes(BOM + PROFILE.encode())
    assert load_config_from_file(str(profile)).num_processes == 2  # as the launch reads it
    assert main(["plan", "--model", "unet", "--patch", "32", "32", "32", "--accelerate-config", str(profile)]) == 0
    assert "2 process" in capsys.readouterr().out
    profile = tmp_path / "launch.json"
    profile.write_bytes(BOM + PROFILE_JSON.encode())
    with pytest.raises(ValueError, match="Unexpected UTF-8 BOM"):  # the launch's own reading: why plan refuses it
        load_config_from_file(str(profile))
    assert plan_says(capsys, profile).endswith("save it again as UTF-8 without the mark")


@pytest.mark.parametrize("kind", ["yaml", "json"])
def test_a_key_given_twice_in_a_profile_is_refused_by_plan_and_by_a_launched_rank(tmp_path, capsys, monkeypatch,
                                                                                   kind):
    """accelerate launch takes the last of a key given twice without a word: `mixed_precision: bf16` and further
    down `mixed_precision: 'no'` trained fp32, and plan planned it so, where the experiment's YAML refuses a key
    given twice."""
    profile = tmp_path / f"launch.{kind}"
    if kind == "yaml":
        profile.write_text(PROFILE.replace("main_training", "mixed_precision: 'no'\nmain_training"))
        said = (r"key 'mixed_precision' given twice \(first at line 6\) and at line 9, of which accelerate launch "
                r"takes the last without a word: keep one")
    else:
        profile.write_text(PROFILE_JSON.replace('"bf16",', '"bf16",\n  "mixed_precision": "no",'))
        said = (r"key 'mixed_precision' given twice at the top \(first at line 5\) and at line 6, of which accelerate "
                r"launch takes the last without a word: keep one")
    assert re.fullmatch(rf"error: --accelerate-config {re.escape(str(profile))}: {said}", plan_says(capsys, profile))
    for name in ("ACCELERATE_USE_DEEPSPEED", "ACCELERATE_USE_FSDP", "ACCELERATE_USE_MEGATRON_LM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ACCELERATE_MIXED_PRECISION", "no")
    monkeypatch.setattr(launched_profile, "launched_config_file", lambda: profile)
    assert re.fullmatch(rf"{re.escape(str(profile))}: {said}; `accelerated-seg plan --accelerate-config` checks a "
                        rf"profile", construction_error())
    # a fault the launch could not have read past: the file changed since it started, and a rank says nothing of it
    profile.write_bytes(PROFILE.encode("utf-16"))
    assert construction_error() is None


def deepspeed_launch(monkeypatch, json_file):
    """This process as a rank of a DeepSpeed launch of a profile naming ``json_file``, as accelerate launch exports
    it."""
    for name, value in {"ACCELERATE_USE_DEEPSPEED": "true", "ACCELERATE_USE_FSDP": "false",
                        "ACCELERATE_MIXED_PRECISION": "no", "ACCELERATE_CONFIG_DS_FIELDS": "deepspeed_config_file",
                        "ACCELERATE_DEEPSPEED_CONFIG_FILE": str(json_file)}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("ACCELERATE_USE_CPU", raising=False)
    profile = json_file.parent / "deepspeed.yaml"
    profile.write_text(f"compute_environment: LOCAL_MACHINE\ndistributed_type: DEEPSPEED\nnum_processes: 2\n"
                       f"deepspeed_config:\n  deepspeed_config_file: {json_file}\n")
    monkeypatch.setattr(launched_profile, "launched_config_file", lambda: profile)
    return profile


@pytest.mark.parametrize("edit", [*ENCODINGS, *JSON_FAULTS, "key_twice"])
def test_a_deepspeed_json_saved_otherwise_is_one_line_from_plan_and_from_a_launched_rank(tmp_path, capsys,
                                                                                         monkeypatch, edit):
    """A launched rank reads the json before the Accelerator is built (construction_error, for train,
    examples/train.py, fit and benchmark train alike); plan reads it with the profile. UTF-16 or Latin-1 was
    "cannot be read (UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff ...): give the path of a DeepSpeed
    json", a binary file or UTF-16 without its mark "is not JSON (Expecting value at line 1, column 1): mend it",
    a byte-order mark "is not JSON (Unexpected UTF-8 BOM (decode using utf-8-sig) ...)", a comma or a copy cut
    short the parser's words and "mend it", and a "stage" given twice in zero_optimization ran the last."""
    if edit == "key_twice":
        make, said = (lambda text: text.replace('"stage": 2', '"stage": 2, "stage": 3').encode(),
                      r"key 'stage' given twice in zero_optimization, of which READER takes the last without a "
                      r"word: keep one$")
    else:
        make, said = {**ENCODINGS, **JSON_FAULTS}[edit]
    json_file = tmp_path / "ds.json"
    json_file.write_bytes(make(DEEPSPEED_JSON))
    profile = deepspeed_launch(monkeypatch, json_file)
    said = (said.replace("COPY", "copy it again from where it was written")
            .replace("READER", "accelerate's DeepSpeed plugin"))
    named = rf"the DeepSpeed json {re.escape(str(json_file))}:? {said}"
    assert re.fullmatch(rf"{re.escape(str(profile))}: {named}", construction_error())
    assert re.fullmatch(rf"error: {re.escape(str(profile))}: {named}", plan_says(capsys, profile))


def test_a_deepspeed_json_with_a_byte_order_mark_is_refused_because_accelerate_refuses_it(tmp_path):
    """Why the mark is told, not read past as in config.json: accelerate's DeepSpeed plugin reads the file itself
    (HfDeepSpeedConfig, json.load), and stops at the mark."""
    from accelerate.utils.deepspeed import HfDeepSpeedConfig

    json_file = tmp_path / "ds.json"
    json_file.write_bytes(BOM + DEEPSPEED_JSON.encode())
    with pytest.raises(ValueError, match="Unexpected UTF-8 BOM"):
        HfDeepSpeedConfig(str(json_file))
    json_file.write_bytes(DEEPSPEED_JSON.encode())
    assert HfDeepSpeedConfig(str(json_file)).get_value("zero_optimization.stage") == 2


@pytest.mark.parametrize("edit, said", [
    ('"stage": 2,\n    "stage": 3,', r"key 'stage' given twice in zero_optimization \(first at line 3\) and at line 4"),
    ('"stage": 2,\n    "offload_optimizer": {"device": "cpu", "device": "none"},',
     r"key 'device' given twice in zero_optimization.offload_optimizer"),
    ('"stage": 2, "stage": 3, "gradients": [{"a": 1}, {"b": 1, "b": 1}],',  # the outer object's first; one line
     r"key 'stage' given twice in zero_optimization"),
    ('"gradients": [{"a": 1}, {"b": 1, "b": 1}],', r"key 'b' given twice in zero_optimization.gradients\[1\]"),
])
def test_a_json_key_given_twice_is_named_with_its_object_and_its_lines(tmp_path, capsys, monkeypatch, edit, said):
    """``json``'s hook has no position or parent, so "given twice in one object" was said alone, however deep the
    object (review r109): now the way to it from the top, and the key's lines where the text writes it only there."""
    json_file = tmp_path / "ds.json"
    json_file.write_text('{\n  "zero_optimization": {\n    ' + edit + '\n    "offload_param": {"device": "none"}\n  },'
                         '\n  "bf16": {"enabled": true}\n}\n')
    profile = deepspeed_launch(monkeypatch, json_file)
    named = (rf"the DeepSpeed json {re.escape(str(json_file))}: {said}, of which accelerate's DeepSpeed plugin takes "
             rf"the last without a word: keep one")
    assert re.fullmatch(rf"{re.escape(str(profile))}: {named}", construction_error())
    assert re.fullmatch(rf"error: {re.escape(str(profile))}: {named}", plan_says(capsys, profile))


@pytest.mark.parametrize("slipped, said", [
    ("dynamo_config:\n  dynamo_backend: INDUCTOR\ndynamo_mode: max-autotune\n",
     "dynamo_mode at the top, where accelerate launch refuses it: a key of dynamo_config"),
    ("fsdp_config:\n  fsdp_version: 2\nfsdp_offload_params: true\nfsdp_reshard_after_forward: true\n",
     "fsdp_offload_params, fsdp_reshard_after_forward at the top, where accelerate launch refuses them: keys of "
     "fsdp_config"),
    ("deepspeed_config:\n  zero_stage: 2\noffload_optimizer_device: cpu\n",
     "offload_optimizer_device at the top, where accelerate launch refuses it: a key of deepspeed_config"),
])
def test_a_sections_key_slipped_to_the_top_is_told_as_belonging_in_its_section(tmp_path, capsys, slipped, said):
    """A key indented out of its section was told as one accelerate launch does not know, "correct or remove it", with
    no word of the section it belongs in (h122's Left; review r109). A key no section knows is told as before, and so
    is one of a section the profile lacks (below)."""
    from accelerate.commands.config.config_args import load_config_from_file

    profile = tmp_path / "launch.yaml"
    profile.write_text(PROFILE.replace("dynamo_config:\n  dynamo_backend: 'NO'\n", slipped + "num_proceses: 2\n"))
    with pytest.raises(ValueError, match="unknown keys"):  # the launch's own refusal, its traceback
        load_config_from_file(str(profile))
    them = "them" if "refuses them" in said else "it"
    section = said.rsplit(" ", 1)[-1]
    assert plan_says(capsys, profile) == (
        f"error: {profile}: the accelerate config has num_proceses (did you mean num_processes?), which accelerate "
        f"launch does not know and refuses: correct or remove it (`accelerate config` writes the keys it knows); and "
        f"{said} (an indentation slip?), so indent {them} under {section}, as its other keys are")


def test_the_profiles_yaml_is_read_by_configs_public_reader_of_a_key_given_twice():
    """accelerate_profile imported config's private _UniqueKeyLoader (review r109): both read through
    config.yaml_with_unique_keys."""
    import yaml

    from accelerated_seg import accelerate_profile
    from accelerated_seg.config import yaml_with_unique_keys

    assert not hasattr(accelerate_profile, "_UniqueKeyLoader")
    assert yaml_with_unique_keys("a: 1\nb: {c: 2}\n") == {"a": 1, "b": {"c": 2}}
    with pytest.raises(yaml.YAMLError, match=r"key 'a' given twice \(first at line 1\)"):
        yaml_with_unique_keys("a: 1\na: 1\n")


def test_a_top_level_key_of_a_section_the_profile_lacks_is_not_told_as_slipped_out_of_it(tmp_path, capsys):
    """A DDP profile's top-level gradient_accumulation_steps is a key deepspeed_config knows, but no slip: the
    profile has no such section (the experiment config's train.grad_accum_steps is meant)."""
    profile = tmp_path / "launch.yaml"
    profile.write_text(PROFILE.replace("main_training", "gradient_accumulation_steps: 4\nmain_training"))
    assert plan_says(capsys, profile) == (
        f"error: {profile}: the accelerate config has gradient_accumulation_steps, which accelerate launch does not "
        f"know and refuses: correct or remove it (`accelerate config` writes the keys it knows)")
