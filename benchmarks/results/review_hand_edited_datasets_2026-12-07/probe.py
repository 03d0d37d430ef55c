"""Review r106 of h121's hand_edited dataset reading (the hundred-and-twenty-third session): what each path says of a
dataset.json, splits_final.json or cases CSV gone wrong in ways h121's probe did not try.

    cd /tmp/wt_r106 && D=benchmarks/results/review_hand_edited_datasets_2026-12-07 && \
        PYTHONPATH=/tmp/wt_r106:/tmp/wt_r106/tests /work/main/.venv/bin/python $D/probe.py > $D/after.txt 2>&1
    (before.txt: the same with PYTHONPATH=/tmp/r106_main:/tmp/r106_main/tests, `git archive main` of ce2bcde4 there)

(run as root: the unreadable files' probes run their load_cases/check in a child as user nobody, setpriv)
"""
import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from broken_cases import write_csv, write_msd, write_nnunet

from accelerated_seg.cli import main
from accelerated_seg.data.manifest import load_cases
from accelerated_seg.hand_edited import not_utf8
from accelerated_seg.inference_inputs import expand_inputs


def said(call):
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            result = call()
        if isinstance(result, int):
            lines = [line for line in out.getvalue().splitlines() if line.startswith(("error", "warning"))]
            return f"rc={result} " + " | ".join(lines)[:600]
        count = f", {len(result.training)} training" if hasattr(result, "training") else ""
        return f"read ({type(result).__name__}{count})"
    except SystemExit as e:
        tail = out.getvalue().strip().splitlines()
        return f"exit {e.code}: " + (tail[-1][:600] if tail else "")
    except Exception as e:  # noqa: BLE001 - the probe reports whatever comes
        return f"{type(e).__name__}: {str(e)[:600]}"


def show(name, call):
    print(f"  {name:<40}: {said(call)}")


def evaluate_labels(root, labels, tmp, tag):
    pred = shutil.copytree(root / "labelsTr", tmp / f"pred_{tag}")
    return lambda: main(["evaluate", str(pred), str(root / "labelsTr"), "--labels", str(labels), "--output",
                         str(tmp / f"ev_{tag}")])


tmp = Path(tempfile.mkdtemp())
os.chmod(tmp, 0o755)

print("=== (a) not_utf8 of a ZIP's header followed by ASCII (no NUL after its sixth byte)")
for text in ('{"name": "x"}', json.dumps({"training": [{"image": "imagesTr/a.nii.gz"}]}, indent=1)[:40],
             "dataset.json is here, some ascii text"):
    print(f"   {text[:24]!r}...:", not_utf8(b"PK\x03\x04\x14\x00" + text.encode()))
print("   real UTF-16 without a mark:", not_utf8('{"name": "x"}\n'.encode("utf-16-le")))
print("   real UTF-16-BE without a mark:", not_utf8('{"name": "x"}\n'.encode("utf-16-be")))
print("   UTF-16 of CJK names without a mark:",
      not_utf8('image,label\n病人.nii.gz,病人_seg.nii.gz\n'.encode("utf-16-le")))

print("=== (b) a cases CSV cut short mid-row")
GOOD = "images/good.nii.gz,masks/good.nii.gz"
for tag, body in {
    "no split column, cut in the label path, no line end": f"image,label\n{GOOD}\nimages/bad.nii.gz,masks/ba",
    "no split column, cut after the image cell, no line end": f"image,label\n{GOOD}\nimages/bad.nii.gz,",
    "no split column, cut in the image cell, no line end": f"image,label\n{GOOD}\nimages/ba",
    "split column, cut after the label, no line end": f"image,label,split\n{GOOD},train\n"
                                                      f"images/bad.nii.gz,masks/bad.nii.gz",
    "split column, a short row mid-file": f"image,label,split\n{GOOD}\nimages/bad.nii.gz,masks/bad.nii.gz,train\n",
    "whole, no line end (a hand-written file)": f"image,label\n{GOOD}\nimages/bad.nii.gz,masks/bad.nii.gz",
    "whole, last path missing, no line end": f"image,label\n{GOOD}\nimages/bad.nii.gz,masks/gone.nii.gz",
    "whole, last path missing, line end": f"image,label\n{GOOD}\nimages/bad.nii.gz,masks/gone.nii.gz\n",
    "optional id column left off the last row, no line end": f"image,label,id\n{GOOD},g\n"
                                                             f"images/bad.nii.gz,masks/bad.nii.gz",
}.items():
    root = tmp / f"csv_cut_{abs(hash(tag))}"
    table = write_csv(root).source
    table.write_text(body)
    print(f"--- {tag}")
    show("load_cases", lambda: load_cases(table))
    show("check", lambda: main(["check", str(table)]))

print("=== a cases CSV with a quote left open before its second line's path (40 rows, 4000 rows: past 128 KiB)")
for count in (40, 4000):
    root = tmp / f"csv_quote_{count}"
    table = write_csv(root).source
    many = "".join(f"images/c{i:05d}.nii.gz,masks/c{i:05d}.nii.gz\n" for i in range(count))
    table.write_text(f'image,label\n"{GOOD}\n{many}')
    show(f"{count} rows load_cases", lambda: load_cases(table))
    show(f"{count} rows check", lambda: main(["check", str(table)]))

print("=== (c) evaluate --labels of a dataset.json / an export's config.json cut short")
root = tmp / "msd_eval"
write_msd(root)
(root / "dataset.json").write_bytes((root / "dataset.json").read_bytes()[:40])
show("evaluate --labels dataset.json", evaluate_labels(root, root / "dataset.json", tmp, "c1"))
show("load_cases dataset.json", lambda: load_cases(root / "dataset.json"))
config = tmp / "export" / "config.json"
config.parent.mkdir()
config.write_text('{"model": {"name": "unet"}, "num_classes": 2, "labels": {"0": "bg", "1"')
show("evaluate --labels config.json", evaluate_labels(root, config, tmp, "c2"))

print("=== brackets nested past the parser's depth (a copy gone wrong)")
deep = b"[" * 100_000 + b"]" * 100_000
root = tmp / "msd_deep"
write_msd(root)
(root / "dataset.json").write_bytes(deep)
show("msd dataset.json load_cases", lambda: load_cases(root / "dataset.json"))
show("msd dataset.json check", lambda: main(["check", str(root / "dataset.json")]))
show("msd dataset.json predict", lambda: expand_inputs([root / "dataset.json"]))
show("msd dataset.json evaluate --labels", evaluate_labels(root, root / "dataset.json", tmp, "deep"))
root = tmp / "nnunet_deep"
write_nnunet(root)
(root / "splits_final.json").write_bytes(deep)
show("splits_final.json load_cases", lambda: load_cases(root))
show("splits_final.json check", lambda: main(["check", str(root)]))

print("=== a dangling symbolic link, a folder in the file's place")
root = tmp / "nnunet_link"
write_nnunet(root)
(root / "splits_final.json").symlink_to(tmp / "unmounted" / "splits_final.json")
show("splits_final.json dangling link load_cases", lambda: load_cases(root).split)
root = tmp / "nnunet_folder"
write_nnunet(root)
(root / "splits_final.json").mkdir()
show("splits_final.json a folder load_cases", lambda: load_cases(root).split)
root = tmp / "msd_link"
write_msd(root)
(root / "dataset.json").unlink()
(root / "dataset.json").symlink_to(tmp / "unmounted" / "dataset.json")
show("dataset.json dangling link load_cases", lambda: load_cases(root / "dataset.json"))
show("dataset.json dangling link (folder) load_cases", lambda: load_cases(root))
root = tmp / "csv_link"
table = write_csv(root).source
table.unlink()
table.symlink_to(tmp / "unmounted" / "cases.csv")
show("cases.csv dangling link load_cases", lambda: load_cases(table))
root = tmp / "csv_folder"
table = write_csv(root).source
table.unlink()
table.mkdir()
show("cases.csv a folder load_cases", lambda: load_cases(table))

print("=== unreadable files (mode 000; load_cases and check as user nobody)")
CHILD = """
import contextlib, io, sys
from accelerated_seg.cli import main
from accelerated_seg.data.manifest import load_cases
try:
    load_cases(sys.argv[1]); print('  load_cases: read')
except Exception as e:
    print(f'  load_cases: {type(e).__name__}: {str(e)[:400]}')
err = io.StringIO()
try:
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        rc = main(['check', sys.argv[1]])
    print(f'  check: rc={rc}', [l for l in err.getvalue().splitlines() if l.startswith('error')][:2])
except BaseException as e:
    print(f'  check: {type(e).__name__}: {str(e)[:400]}')
"""
for tag, (make, victim) in {
    "msd dataset.json": (write_msd, "dataset.json"), "nnunet dataset.json": (write_nnunet, "dataset.json"),
    "splits_final.json": (write_nnunet, "splits_final.json"), "cases.csv": (write_csv, "cases.csv"),
}.items():
    root = tmp / f"unreadable_{victim}_{tag[:3]}"
    written = make(root)
    if victim == "splits_final.json":
        (root / victim).write_text(json.dumps([{"train": ["good"], "val": ["bad"]}]))
    (root / victim).chmod(0)
    source = root / victim if victim != "splits_final.json" else root
    child = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c", CHILD,
                            str(source)], capture_output=True, text=True, env={**os.environ})
    print(f"--- {tag}\n{child.stdout.rstrip()}\n{child.stderr.strip()[-300:]}")

print("=== NaN, Infinity in a dataset.json, a splits_final.json")
root = tmp / "msd_nan"
write_msd(root)
content = json.loads((root / "dataset.json").read_text())
content["labels"] = {"0": "background", "1": float("nan")}
(root / "dataset.json").write_text(json.dumps(content))
show("msd labels value NaN load_cases", lambda: load_cases(root / "dataset.json").labels)
root = tmp / "nnunet_nan"
write_nnunet(root)
content = json.loads((root / "dataset.json").read_text())
content["labels"] = {"background": 0, "tumour": float("nan")}
(root / "dataset.json").write_text(json.dumps(content))
show("nnunet labels value NaN load_cases", lambda: load_cases(root).labels)
show("nnunet labels value NaN evaluate --labels", evaluate_labels(root, root / "dataset.json", tmp, "nan"))
root = tmp / "nnunet_nan2"
write_nnunet(root)
content = json.loads((root / "dataset.json").read_text())
content["numTraining"] = float("inf")
(root / "dataset.json").write_text(json.dumps(content))
show("nnunet numTraining Infinity load_cases", lambda: load_cases(root))
(root / "dataset.json").write_text(json.dumps({**content, "numTraining": 2}))
(root / "splits_final.json").write_text('[{"train": ["good"], "val": NaN}]')
show("splits_final.json val NaN load_cases", lambda: load_cases(root))

print("=== a CSV: BOM and quoted names, CRLF line ends, a BOM saved twice")
root = tmp / "csv_bom_quoted"
table = write_csv(root).source
table.write_bytes(b'\xef\xbb\xbf"image","label"\r\n"images/good.nii.gz","masks/good.nii.gz"\r\n'
                  b'"images/bad.nii.gz","masks/bad.nii.gz"\r\n')
show("BOM + quoted header + CRLF load_cases", lambda: load_cases(table))
show("BOM + quoted header + CRLF check", lambda: main(["check", str(table)]))
table.write_bytes(b'\xef\xbb\xbf\xef\xbb\xbfimage,label\nimages/good.nii.gz,masks/good.nii.gz\n')
show("a BOM twice load_cases", lambda: load_cases(table))
root = tmp / "msd_bom2"
write_msd(root)
(root / "dataset.json").write_bytes(b"\xef\xbb\xbf\xef\xbb\xbf" + (root / "dataset.json").read_bytes())
show("dataset.json a BOM twice load_cases", lambda: load_cases(root / "dataset.json"))

print("=== a key given twice in a dataset.json: load_cases and predict")
root = tmp / "msd_twice"
write_msd(root)
text = (root / "dataset.json").read_text()
(root / "dataset.json").write_text(text.rstrip()[:-1] + ', "validation": []}')  # "validation" twice
show("load_cases", lambda: load_cases(root / "dataset.json"))
show("predict", lambda: expand_inputs([root / "dataset.json"]))

shutil.rmtree(tmp, ignore_errors=True)
