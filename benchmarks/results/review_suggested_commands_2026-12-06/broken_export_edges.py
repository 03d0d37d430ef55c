"""Run: cd /tmp/wt_r91 && PYTHONPATH=/tmp/wt_r91 /work/main/.venv/bin/python \
    benchmarks/results/review_suggested_commands_2026-12-06/broken_export_edges.py /tmp/r91probe \
    > <beside>/broken_export_edges_after.txt
(broken_export_edges_before.txt: the same with PYTHONPATH at `git archive 2d199bd0 accelerated_seg`, main before r91)

Review r91 of h103's broken-export refusals: a folder of an export's files (config.json + model.safetensors) whose
config.json is odd in ways h103's probe did not try, given among predict's images, as evaluate's PRED, as export's
input and as --model. Each: exit status, the last line, whether a traceback was printed, seconds.
Setup: review_inference_md's setup_probe.py (a tiny random-weight export, data/imagesTr, data/labelsTr)."""
import shutil
import subprocess
import sys
import time
from pathlib import Path

root = Path(sys.argv[1])
shutil.rmtree(root, ignore_errors=True)
setup = Path(__file__).resolve().parents[1] / "review_inference_md_2026-12-06" / "setup_probe.py"
subprocess.run([sys.executable, str(setup), str(root)], check=True, capture_output=True)
good = (root / "model" / "config.json").read_text()
cases = {
    "bom": b"\xef\xbb\xbf" + good.encode(),  # an editor's UTF-8 with BOM
    "trailing_garbage": good.encode() + b"\n}x",
    "json_list": b"[1, 2]",
    "deep_nesting": b"[" * 100_000 + b"]" * 100_000,  # a garbage file, valid JSON shape, too deep
    "huge_200MB": good[:-1].encode() + b", \"pad\": \"" + b"x" * 200_000_000 + b"\"}",
}
for name, data in cases.items():
    shutil.copytree(root / "model", root / name)
    (root / name / "config.json").write_bytes(data)
shutil.copytree(root / "model", root / "config_dir")
(root / "config_dir" / "config.json").unlink()
(root / "config_dir" / "config.json").mkdir()
shutil.copytree(root / "model", root / "broken_link")
(root / "broken_link" / "config.json").unlink()
(root / "broken_link" / "config.json").symlink_to(root / "nowhere.json")
shutil.copytree(root / "model", root / "with_scans")  # a broken export's files AND scans beside them
(root / "with_scans" / "config.json").write_text("{cut")
shutil.copy(root / "data" / "imagesTr" / "case_000.nii.gz", root / "with_scans" / "case_000.nii.gz")


def command(*args, note) -> None:
    start = time.monotonic()
    run = subprocess.run([sys.executable, "-m", "accelerated_seg.cli", *args], capture_output=True, text=True,
                         cwd=root)
    took = time.monotonic() - start
    lines = (run.stdout + run.stderr).strip().splitlines()
    tb = "TRACEBACK" if "Traceback (most recent call last)" in run.stderr else "no traceback"
    print(f"$ accelerated-seg {' '.join(args)}   # {note}\nexit {run.returncode}, {took:.1f} s, {tb}\n"
          + "\n".join(line[:400] for line in lines[-1:]) + "\n")


for name in [*cases, "config_dir", "broken_link", "with_scans"]:
    print(f"--- {name}")
    command("predict", "--model", "model", name, "--output", f"o_{name}", note="among the images")
    command("evaluate", name, "data/labelsTr", note="as PRED")
    command("export", name, "--output", f"e_{name}", note="as export's input")
    if name in cases:
        command("predict", "--model", name, "data/imagesTr", "--output", f"m_{name}", note="as --model")
