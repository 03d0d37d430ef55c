"""Run: cd /tmp/wt_h120 && PYTHONPATH=<package root>:/tmp/wt_h120/tests OMP_NUM_THREADS=1 \
    /work/main/.venv/bin/python benchmarks/results/output_and_config_edges_2026-12-07/probe.py /tmp/h120probe_<name> \
    > benchmarks/results/output_and_config_edges_2026-12-07/<name>.txt 2>&1
(before.txt: <package root> /work/main, main at e78f009b (9abb0bbc and a results commit); after.txt: /tmp/wt_h120,
branch h120.)

The bad-input edges of the hundred-and-twenty-second session's brief, each said as the user sees it (the last lines
of stderr, the exit status):
(1) ``evaluate ... --output <path>`` where the OS refuses the path: a name too long, a path too long, a parent that
    is a file, a folder one may not search or write (as user nobody, setpriv: root writes anywhere), a read-only
    filesystem and a full disk (simulated in-process: no mount here), a link in a loop, a dangling link; and whether
    the refusal came before any case was scored (``scored`` counts read_label_map's calls in-process);
(2) an export's config.json saved by hand with a UTF-8 byte-order mark, as UTF-16, with a trailing comma, or cut
    short, met by predict --model, predict given the export as input, evaluate --labels (the file and its folder),
    export's input, train.init_from, Segmentation.load and the run's exported_step; and --config's YAML with a
    byte-order mark or as UTF-16;
(3) a path holding a newline: evaluate --output, predict's --output and an input folder.
"""
import errno
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nibabel as nib
import numpy as np

ROOT = Path(sys.argv[1])
PYTHON = sys.executable
ENV = {**os.environ, "OMP_NUM_THREADS": "1"}
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def save(path, array):
    path.parent.mkdir(parents=True, exist_ok=True)
    nib.save(nib.Nifti1Image(np.asarray(array), np.eye(4)), path)


def shown(text: str, limit: int = 400) -> str:
    """A line as printed, long runs of one letter shortened, the tmp root named ROOT."""
    import re
    text = text.replace(str(ROOT), "ROOT")
    return re.sub(r"(.)\1{20,}", lambda m: f"{m[1]}...{m[1]}({len(m[0])})", text)[:limit]


def command(label: str, args: list[str], as_nobody: bool = False, cwd: Path | None = None) -> None:
    """Run ``accelerated-seg args``; say its exit status and its stderr's last lines (each line as printed,
    repr'd so a newline inside one shows)."""
    prefix = NOBODY if as_nobody else []
    env = {**ENV, "HOME": str(ROOT)} if as_nobody else ENV  # nobody may not read root's home
    done = subprocess.run([*prefix, PYTHON, "-m", "accelerated_seg", *args], capture_output=True, text=True,
                          env=env, cwd=cwd or ROOT, timeout=600)
    lines = done.stderr.rstrip("\n").split("\n") if done.stderr.strip() else []
    tail = lines[-3:] if any("Traceback" in line for line in lines) else lines[-2:]
    print(f"== {label}: status {done.returncode}; stderr {len(lines)} line(s), last:")
    for line in tail:
        print(f"   {shown(repr(line))}")
    if done.returncode == 0:
        print(f"   stdout last: {shown(repr(done.stdout.rstrip().splitlines()[-1] if done.stdout.strip() else ''))}")


def in_process(label: str, call) -> None:
    try:
        result = call()
        print(f"== {label}: returned {shown(repr(result), 200)}")
    except BaseException as error:  # noqa: BLE001 - what the user sees, whatever it is
        print(f"== {label}: {type(error).__name__}: {shown(str(error))}")


def evaluation_data() -> tuple[Path, Path]:
    grid = np.zeros((8, 8, 8), np.uint8)
    grid[2:6, 2:6, 2:6] = 1
    grid[3:5, 3:5, 3:5] = 2
    save(ROOT / "labels" / "a.nii.gz", grid)
    save(ROOT / "pred" / "a.nii.gz", grid)
    for path in (ROOT, ROOT / "labels", ROOT / "pred"):
        path.chmod(0o755)
    return ROOT / "pred", ROOT / "labels"


def part_one(pred: Path, labels: Path) -> None:
    print("\n# (1) evaluate --output where the OS refuses the path")
    base = ["evaluate", str(pred), str(labels), "--num-classes", "3"]
    command("--output <300-character name>", [*base, "--output", str(ROOT / ("a" * 300))])
    deep = ROOT.joinpath(*(["d" * 200] * 22))  # each name fine, the whole over PATH_MAX (4096)
    command(f"--output <a path of {len(str(deep))} characters, names of 200>", [*base, "--output", str(deep)])
    (ROOT / "a_file").write_text("x")
    command("--output a_file/evaluation (a parent is a file: ENOTDIR)", [*base, "--output", str(ROOT / "a_file/ev")])
    for name, mode in (("read_only", 0o555), ("not_searchable", 0o600)):
        (ROOT / name).mkdir(exist_ok=True)
        (ROOT / name).chmod(mode)
    command("as nobody: --output read_only/ev (a folder 0555: EACCES at the write)",
            [*base, "--output", str(ROOT / "read_only/ev")], as_nobody=True)
    command("as nobody: --output read_only (the folder itself, 0555)",
            [*base, "--output", str(ROOT / "read_only")], as_nobody=True)
    command("as nobody: --output not_searchable/ev (a folder 0600: EACCES at the stat)",
            [*base, "--output", str(ROOT / "not_searchable/ev")], as_nobody=True)
    shutil.copytree(pred, ROOT / "pred_ro")
    (ROOT / "pred_ro").chmod(0o555)
    command("as nobody: no --output, so PRED/evaluation, where PRED is 0555",
            ["evaluate", str(ROOT / "pred_ro"), str(labels), "--num-classes", "3"], as_nobody=True)
    os.symlink("loop_b", ROOT / "loop_a")
    os.symlink("loop_a", ROOT / "loop_b")
    command("--output loop_a (a symbolic link in a loop: ELOOP)", [*base, "--output", str(ROOT / "loop_a")])
    os.symlink(ROOT / "not_mounted" / "ev", ROOT / "dangling")
    command("--output dangling (a link to a folder not there)", [*base, "--output", str(ROOT / "dangling")])
    print("-- in-process, simulated (no mount, no full disk here): evaluate_folders and the command's line")
    _simulated(pred, labels)


def _simulated(pred: Path, labels: Path) -> None:
    """EROFS, and ENOSPC of a filesystem out of inodes, where any file is made in the output folder (the check's own
    probe file first); ENOSPC and EDQUOT of one out of blocks, where an empty file is made but its data is not
    flushed (files.sync_file, as the tests simulate it). And how many label maps were read before the refusal."""
    import io
    from contextlib import redirect_stderr

    import accelerated_seg.evaluate as evaluate
    import accelerated_seg.evaluate_classes as evaluate_classes
    import accelerated_seg.files as files
    from accelerated_seg.cli import main

    real_open, real_read, real_sync = os.open, evaluate.read_label_map, files.sync_file
    scored = []

    def counting_read(path, *args, **kwargs):
        scored.append(path)
        return real_read(path, *args, **kwargs)

    def refusing_to_make(code):
        def open_(path, flags, *args, **kwargs):
            if str(path).startswith(str(ROOT / "simulated")) and flags & os.O_CREAT:
                raise OSError(code, os.strerror(code), str(path))
            return real_open(path, flags, *args, **kwargs)
        return open_

    def refusing_to_flush(code):
        def sync(path):
            if str(path).startswith(str(ROOT / "simulated")):
                raise OSError(code, os.strerror(code))
            return real_sync(path)
        return sync

    (ROOT / "simulated").mkdir()
    evaluate.read_label_map = evaluate_classes.read_label_map = counting_read
    cases = [(f"{errno.errorcode[code]} at every file made in --output", "open", refusing_to_make(code))
             for code in (errno.EROFS, errno.ENOSPC)]
    cases += [(f"{errno.errorcode[code]} as a file's data is flushed (a full disk, a quota)", "sync",
               refusing_to_flush(code)) for code in (errno.ENOSPC, errno.EDQUOT)]
    try:
        for label, where, fault in cases:
            scored.clear()
            if where == "open":
                os.open = fault
            else:
                files.sync_file = fault
            err = io.StringIO()
            try:
                with redirect_stderr(err):
                    status = main(["evaluate", str(pred), str(labels), "--num-classes", "3", "--output",
                                   str(ROOT / "simulated" / "ev")])
                print(f"== {label}: status {status}, {len(scored)} label map(s) read first;\n   "
                      f"{shown(repr(err.getvalue().strip()))}")
            except BaseException as error:  # noqa: BLE001
                print(f"== {label}: {type(error).__name__}: {shown(str(error))}; {len(scored)} label map(s) read")
            finally:
                os.open, files.sync_file = real_open, real_sync
    finally:
        evaluate.read_label_map = evaluate_classes.read_label_map = real_read


def an_export(folder: Path) -> Path:
    from test_inference import export  # tests/ on PYTHONPATH: a tiny UNet export as training writes it

    return export(folder)


CONFIG_EDITS = {
    "a UTF-8 byte-order mark (Notepad's 'UTF-8 with BOM')": lambda text: b"\xef\xbb\xbf" + text.encode("utf-8"),
    "UTF-16 (Notepad's 'Unicode')": lambda text: text.encode("utf-16"),
    "a trailing comma after the last label": lambda text: text.replace('"lesion"\n', '"lesion",\n', 1).encode(),
    "cut short (a copy stopped at 60%)": lambda text: text.encode()[:int(len(text) * 0.6)],
}


def part_two(pred: Path, labels: Path) -> None:
    print("\n# (2) an export's config.json edited by hand and saved otherwise")
    good = an_export(ROOT / "model_good")
    text = (good / "config.json").read_text(encoding="utf-8")
    scan = ROOT / "scan.nii.gz"
    save(scan, np.random.default_rng(0).normal(size=(16, 16, 16)).astype(np.float32))
    for index, (how, edit) in enumerate(CONFIG_EDITS.items()):
        model = ROOT / f"model_{index}"
        shutil.copytree(good, model)
        (model / "config.json").write_bytes(edit(text))
        print(f"\n## config.json with {how}")
        command("predict --model M scan --output out/", ["predict", "--model", str(model), str(scan), "--output",
                                                        str(ROOT / f"out_{index}") + "/"])
        command("predict M (the export given as input)", ["predict", "--model", str(good), str(model), "--output",
                                                          str(ROOT / f"out_in_{index}") + "/"])
        command("evaluate --labels M/config.json", ["evaluate", str(pred), str(labels), "--labels",
                                                    str(model / "config.json"), "--output",
                                                    str(ROOT / f"ev_{index}")])
        command("evaluate --labels M (the folder)", ["evaluate", str(pred), str(labels), "--labels", str(model),
                                                     "--output", str(ROOT / f"ev_folder_{index}")])
        command("export M --output X (an export as export's input)",
                ["export", str(model), "--output", str(ROOT / f"exported_{index}")])
        # an output_dir below a file: refused right after init_from's check, so a start from M is not trained
        command("train --train.init_from=M (--train.output_dir below a file)",
                ["train", f"--train.init_from={model}", f"--train.output_dir={ROOT / 'a_file' / 'run'}"])
        in_process("Segmentation.load(M)", lambda: _load(model))
        in_process("checkpoint.exported_step(M)", lambda: _exported_step(model))
        in_process("files.is_json_object_with(M/config.json, the export's keys) (estimator's save/fit)",
                   lambda: _is_export(model))
    print("\n# (2b) --config's YAML with a byte-order mark or as UTF-16")
    yaml_text = "# an experiment\ndata:\n  dataset: synthetic\ntrain:\n  max_steps: 3\n"
    for name, data in (("bom.yaml", b"\xef\xbb\xbf" + yaml_text.encode()), ("utf16.yaml", yaml_text.encode("utf-16")),
                       ("bom_key_first.yaml", b"\xef\xbb\xbf" + yaml_text.split("\n", 1)[1].encode())):
        (ROOT / name).write_bytes(data)
        in_process(f"config.load_config({name}) -> train.max_steps", lambda: _max_steps(ROOT / name))
        command(f"train --config {name} (--train.output_dir below a file)",
                ["train", "--config", str(ROOT / name), f"--train.output_dir={ROOT / 'a_file' / 'run'}"])


def _load(model):
    from accelerated_seg.estimator import Segmentation

    return type(Segmentation.load(model)).__name__


def _exported_step(model):
    from accelerated_seg.checkpoint import exported_step

    return exported_step(model)


def _is_export(model):
    from accelerated_seg.exported_model import EXPORT_KEYS
    from accelerated_seg.files import is_json_object_with

    return is_json_object_with(model / "config.json", {"model", *EXPORT_KEYS})


def _max_steps(path):
    from accelerated_seg.config import load_config

    return load_config(path).train.max_steps


def part_three(pred: Path, labels: Path) -> None:
    print("\n# (3) a path holding a newline")
    command("evaluate --output 'ev\\nx'", ["evaluate", str(pred), str(labels), "--num-classes", "3", "--output",
                                          str(ROOT / "ev\nx")])
    command("evaluate --output 'a_file/ev\\nx' (refused: its parent is a file)",
            ["evaluate", str(pred), str(labels), "--num-classes", "3", "--output", str(ROOT / "a_file" / "ev\nx")])
    newline_in = ROOT / "scans\nin"
    save(newline_in / "b.nii.gz", np.zeros((4, 4, 4), np.float32))
    command("predict --model M 'scans\\nin' --output out_nl/ (a scan of 4^3, refused or predicted)",
            ["predict", "--model", str(ROOT / "model_good"), str(newline_in), "--output", str(ROOT / "out\nnl") + "/"])
    command("evaluate 'pred\\nx' LABELS (a missing folder named with a newline)",
            ["evaluate", str(ROOT / "pred\nx"), str(labels), "--num-classes", "3"])


if __name__ == "__main__":
    import accelerated_seg

    if ROOT.exists():
        shutil.rmtree(ROOT)
    ROOT.mkdir(parents=True)
    ROOT.chmod(0o755)
    print(f"package: {Path(accelerated_seg.__file__).parent.parent}; python {sys.version.split()[0]}")
    pred, labels = evaluation_data()
    part_one(pred, labels)
    part_two(pred, labels)
    part_three(pred, labels)
