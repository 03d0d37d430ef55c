"""Review of h108's stop lines (predict --input, synth): the windows its probe and tests left out.

Run (2 CPU cores):
    cd /tmp/wt_r95 && PYTHONPATH=/tmp/wt_r95 /work/main/.venv/bin/python \
        benchmarks/results/review_predict_input_stops_2026-12-07/probe.py \
        > benchmarks/results/review_predict_input_stops_2026-12-07/probe_fixed.txt 2>&1
main's code (probe_main.txt): git archive main into /tmp/r95_main, PYTHONPATH=/tmp/r95_main (the tests' helper, this
checkout's)

In one process, cli.main([...]) with a function of the work wrapped to raise the stop's interrupt (as the handler of
SIGTERM raises it on the main thread), at the same point every run:
- a rerun over the same model's map (byte-identical, in the same second): stopped before and after the map's rename;
- --output a symlink to a file on another filesystem (/dev/shm, tmpfs): stopped before and after the rename;
- --probabilities over an earlier run's probabilities, stopped in their write: what the line says, what is on disk;
- stopped as the map is renamed into place, before its folder's fsync: whether the folder is ever synced;
- synth's refusals from the command line (status 2, one line);
- synth stopped as it imports data.synthetic, over a folder an earlier stopped write left (its marker there).
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests"))
import accelerated_seg.data.io as io  # noqa: E402
import accelerated_seg  # noqa: E402
from accelerated_seg import cli  # noqa: E402
from accelerated_seg.sigterm import Terminated  # noqa: E402
from test_early_signals import tiny_model_and_scans  # noqa: E402


def wrapped(module, name, call, before):
    """``module.name`` raising Terminated at its ``call``-th call, before it runs or after; the calls noted."""
    real, calls = getattr(module, name), []

    def stopped(*args, **kwargs):
        calls.append(args[0] if args else None)
        if len(calls) == call and before:
            raise Terminated()
        done = real(*args, **kwargs)
        if len(calls) == call and not before:
            raise Terminated()
        return done

    setattr(module, name, stopped)
    return real, calls


def identity(path):
    try:
        s = os.stat(path)
    except OSError:
        return None
    return dict(ino=s.st_ino, size=s.st_size, mtime_s=s.st_mtime_ns // 10**9, ctime_s=s.st_ctime_ns // 10**9)


def predict(model, scan, out, *extra):
    import contextlib
    import io as stdio
    err = stdio.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(stdio.StringIO()):
        status = cli.main(["predict", "--model", str(model), "--input", str(scan), "--output", str(out), *extra])
    return status, err.getvalue().strip()


def stopped_run(label, module, name, call, before, model, scan, out, *extra):
    real, calls = wrapped(module, name, call, before)
    try:
        status, said = predict(model, scan, out, *extra)
    finally:
        setattr(module, name, real)
    print(f"{label}:\n  status {status}\n  said: {said}")
    return calls


def main():
    root = Path(tempfile.mkdtemp(prefix="r95p_"))
    print(f"code: {Path(accelerated_seg.__file__).parent}")
    model, scans = tiny_model_and_scans(root)
    scan = scans / "case_000.nii.gz"

    print("== 1. a rerun over the same model's map (byte-identical), stopped before / after the rename")
    for before_rename in (True, False):
        out = root / f"rerun_{before_rename}" / "seg.nii.gz"
        out.parent.mkdir()
        print(f"  first run: {predict(model, scan, out)[0]}; map {identity(out)}")
        if before_rename:  # the temporary written and synced, the stop before os.replace
            stopped_run("  stopped before the rename", io, "sync_file", 1, False, model, scan, out)
        else:
            stopped_run("  stopped after the rename", io, "sync_directory", 1, True, model, scan, out)
        print(f"  map now {identity(out)}")

    print("\n== 2. --output a symlink to a file on another filesystem (/dev/shm)")
    shm = Path(tempfile.mkdtemp(prefix="r95p_", dir="/dev/shm"))
    for before_rename in (True, False):
        target = shm / f"target_{before_rename}.nii.gz"
        predict(model, scan, target)
        link = root / f"link_{before_rename}" / "seg.nii.gz"
        link.parent.mkdir()
        link.symlink_to(target)
        if before_rename:
            stopped_run("  stopped before the rename", io, "sync_file", 1, False, model, scan, link)
        else:
            stopped_run("  stopped after the rename", io, "sync_directory", 1, True, model, scan, link)
        print(f"  {link.name} is a symlink: {link.is_symlink()}; target {identity(target)}")

    print("\n== 3. --probabilities over an earlier run's probabilities, stopped in their write")
    out = root / "probs" / "seg.nii.gz"
    out.parent.mkdir()
    print(f"  earlier run --probabilities: {predict(model, scan, out, '--probabilities')[0]}")
    probs = out.with_name("seg_probs.nii.gz")
    earlier = identity(probs)
    stopped_run("  rerun --probabilities, stopped in their write", io, "sync_file", 2, False, model, scan, out,
                "--probabilities")
    print(f"  {probs.name} on disk: {probs.exists()}, the earlier run's (unchanged): {identity(probs) == earlier}")

    print("\n== 4. stopped as the map is renamed into place, before its folder's fsync")
    out = root / "fsync" / "seg.nii.gz"
    calls = stopped_run("  stopped at sync_directory's call, before it ran", io, "sync_directory", 1, True, model,
                        scan, out)
    print(f"  sync_directory calls: {len(calls)}, the first stopped before it ran; map in place: {out.is_file()}")
    import accelerated_seg.files as files
    real = files.sync_directory
    synced = []
    io.sync_directory = files.sync_directory = lambda path: (synced.append(str(path)), real(path))[1]
    try:
        real_replace = os.replace

        def stop_after_the_rename(src, dst, *a, **k):
            real_replace(src, dst, *a, **k)
            if str(dst).endswith("seg.nii.gz"):
                raise Terminated()
        out = root / "fsync2" / "seg.nii.gz"
        io.os.replace = stop_after_the_rename
        try:
            status, said = predict(model, scan, out)
        finally:
            io.os.replace = real_replace
    finally:
        io.sync_directory = files.sync_directory = real
    print(f"  stopped just after os.replace: status {status}\n  said: {said}\n  map in place: {out.is_file()}; "
          f"folders synced after: {[p for p in synced if 'fsync2' in p]}")

    print("\n== 5. synth's refusals from the command line")
    env = {**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", str(Path(__file__).resolve().parents[3]))}
    (root / "a_file").write_text("x")
    for argv in (["--cases", "2", "--validation", "2"], ["--cases", "0"], ["--seed", "-1"]):
        done = subprocess.run([sys.executable, "-m", "accelerated_seg", "synth", str(root / "s"), *argv],
                              capture_output=True, text=True, env=env)
        print(f"  synth {' '.join(argv)}: status {done.returncode}, stderr {done.stderr.strip().splitlines()}")
    done = subprocess.run([sys.executable, "-m", "accelerated_seg", "synth", str(root / "a_file")],
                          capture_output=True, text=True, env=env)
    print(f"  synth <a file>: status {done.returncode}, stderr {done.stderr.strip().splitlines()}")

    print("\n== 6. synth stopped as it imports data.synthetic, over a folder an earlier stopped write left")
    from test_early_signals import AS_THE_COMMAND_LINE, SIGNAL_AT_THE_IMPORT
    import accelerated_seg.data.synthetic as synthetic
    real = synthetic.write_nifti
    calls = []

    def stopped_at_the_third(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)
    synthetic.write_nifti = stopped_at_the_third
    folder = root / "synth_unfinished"
    try:
        import contextlib
        import io as stdio
        with contextlib.redirect_stderr(stdio.StringIO()):
            print(f"  earlier run stopped: {cli.main(['synth', str(folder), '--cases', '3', '--validation', '1'])}; "
                  f"marker there: {(folder / synthetic.WRITING_MARKER).exists()}")
    finally:
        synthetic.write_nifti = real
    code = (SIGNAL_AT_THE_IMPORT.format(module="accelerated_seg.data.synthetic", signum=15)
            + AS_THE_COMMAND_LINE.format(argv=["accelerated-seg", "synth", str(folder), "--cases", "3",
                                               "--validation", "1"]))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    print(f"  status {done.returncode}, stderr {done.stderr.strip().splitlines()}; marker still there: "
          f"{(folder / synthetic.WRITING_MARKER).exists()}")


if __name__ == "__main__":
    main()
