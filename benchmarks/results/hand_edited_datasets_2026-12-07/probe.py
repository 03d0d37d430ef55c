"""A dataset.json, an nnU-Net splits_final.json and a cases CSV edited by hand and saved otherwise: what each path
that reads them says (the hundred-and-twenty-second session, helper h121).

    cd /tmp/wt_h121 && PYTHONPATH=/tmp/wt_h121:/tmp/wt_h121/tests /work/main/.venv/bin/python \
        benchmarks/results/hand_edited_datasets_2026-12-07/probe.py > benchmarks/results/hand_edited_datasets_2026-12-07/<before|after>.txt 2>&1

Paths: load_cases (train's pre-flight and Dataset reading: load_manifest calls it), `check DATASET`, predict's
input expansion of a dataset.json (inference_inputs' "not a scan" refusal, which reads the JSON's "test" list), `evaluate --labels`.
"""
import contextlib
import io
import json
import shutil
import tempfile
from pathlib import Path

from broken_cases import write_csv, write_msd, write_nnunet

from accelerated_seg.cli import main
from accelerated_seg.data.manifest import load_cases
from accelerated_seg.inference_inputs import expand_inputs

EDITS = {
    "bom": lambda t: b"\xef\xbb\xbf" + t.encode(),
    "utf16_bom": lambda t: t.encode("utf-16"),
    "utf16_no_bom": lambda t: t.encode("utf-16-le"),
    "latin1_name": lambda t: (t.replace("good", "g\xf6od", 1) if "good" in t else t.replace('"a"', '"l\xe9sion"', 1)
                              ).encode("latin-1"),
    "trailing_comma": lambda t: (t.rstrip()[:-1] + ",}").encode() if t.rstrip().endswith("}") else
    (t.rstrip()[:-1] + ",]").encode(),
    "cut_short": lambda t: t.encode()[:len(t) // 2],
    "binary": lambda t: b"PK\x03\x04\x14\x00\x00\x00" + t.encode()[:40],
}


def said(call):
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            result = call()
        if isinstance(result, int):
            return f"rc={result} " + " | ".join(line for line in out.getvalue().splitlines() if "rror" in line or
                                                 "not " in line or "save" in line)[:400]
        return f"read ({type(result).__name__})"
    except SystemExit as e:
        return f"exit {e.code}: " + out.getvalue().strip().splitlines()[-1][:400] if out.getvalue().strip() else ""
    except Exception as e:  # noqa: BLE001 - the probe reports whatever comes
        return f"{type(e).__name__}: {str(e)[:400]}"


def msd_json_indented(root):
    path = root / "dataset.json"
    content = json.loads(path.read_text())
    content["test"] = [str(root / "imagesTr" / "good.nii.gz")]
    path.write_text(json.dumps(content, indent=1))
    return path


with tempfile.TemporaryDirectory() as tmp:
    tmp = Path(tmp)
    for edit, make in EDITS.items():
        print(f"=== {edit}")
        # MSD dataset.json
        root = tmp / f"msd_{edit}"
        write_msd(root)
        path = msd_json_indented(root)
        path.write_bytes(make(path.read_text()))
        print("  msd dataset.json  load_cases:", said(lambda: load_cases(path)))
        print("  msd dataset.json  check     :", said(lambda: main(["check", str(path)])))
        print("  msd dataset.json  predict   :", said(lambda: expand_inputs([path])))
        print("  msd dataset.json  evaluate --labels:", said(lambda: main(
            ["evaluate", str(shutil.copytree(root / "labelsTr", tmp / f"pred_{edit}")), str(root / "labelsTr"), "--labels", str(path), "--output",
             str(tmp / f"ev_{edit}")])))
        # nnU-Net dataset.json
        root = tmp / f"nnunet_{edit}"
        write_nnunet(root)
        path = root / "dataset.json"
        path.write_text(json.dumps(json.loads(path.read_text()), indent=1))
        path.write_bytes(make(path.read_text()))
        print("  nnunet dataset.json load_cases:", said(lambda: load_cases(root)))
        print("  nnunet dataset.json check     :", said(lambda: main(["check", str(root)])))
        # nnU-Net splits_final.json
        root = tmp / f"splits_{edit}"
        write_nnunet(root)
        splits = root / "splits_final.json"
        splits.write_bytes(make(json.dumps([{"train": ["good"], "val": ["bad"]}], indent=1)))
        print("  splits_final.json load_cases:", said(lambda: load_cases(root)))
        print("  splits_final.json check     :", said(lambda: main(["check", str(root)])))
        # cases CSV
        root = tmp / f"csv_{edit}"
        written = write_csv(root)
        table = written.json_path if hasattr(written, "json_path") else root / "cases.csv"
        if edit not in ("trailing_comma",):  # a CSV has no trailing-comma fault
            table.write_bytes(make(table.read_text()))
            print("  cases.csv         load_cases:", said(lambda: load_cases(table)))
            print("  cases.csv         check     :", said(lambda: main(["check", str(table)])))
