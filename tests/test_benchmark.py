"""``benchmark data``, ``benchmark infer`` and ``benchmark predict`` on tiny inputs: every field present and
sane, the JSON the command line writes, one clear error for a precision the device cannot run. No timing
assertions: speed goals live in benchmarks/results/, never in tests."""

import json
import multiprocessing
import os
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import torch

from accelerated_seg.benchmark import benchmark_data, benchmark_infer, machine_info
from accelerated_seg.benchmark_predict import benchmark_predict
from accelerated_seg.cli import main
from accelerated_seg.host_cpu import cpu_generation

import terminated_mid_work  # tests/ is on sys.path, as for conftest


def test_the_data_benchmark_compares_both_loaders_and_cleans_up(tmp_path, monkeypatch):
    # Importing torch._dynamo (the benchmark's imports reach it) makes inductor's cache folder in the
    # temporary directory of that moment; imported first, it is not counted as the benchmark's leftover.
    import torch._dynamo  # noqa: F401

    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))  # where its temporary folder goes
    threads = torch.get_num_threads()
    results = benchmark_data(cases=2, size_mm=(24.0, 24.0, 20.0), spacing_mm=2.0, patch=8, workers=0, batch=2,
                             batches=2, samples_per_volume=2, blocks=2)
    assert results["cases"] == 2 and results["patch"] == [8, 8, 8]
    for name in ("ours", "monai_tutorial"):
        assert len(results[name]["patches_per_s_blocks"]) == 2
        assert results[name]["patches_per_s"] > 0 and results[name]["cold_first_epoch_s"] > 0
    assert results["speedup_steady_state"] > 0 and len(results["speedup_steady_state_per_block"]) == 2
    assert torch.get_num_threads() == threads  # set to 1 while measuring, then given back
    assert list(tmp_path.iterdir()) == []  # its own phantoms and cache are removed
    assert "note" not in results  # no workers, nothing made ahead (with 2, --batches under 32 is said)
    assert (results["size_mm"], results["batches_per_block"]) == ([24.0, 24.0, 20.0], 2)


def test_the_data_benchmark_stopped_stops_both_loaders_workers_before_its_folder_goes(tmp_path, monkeypatch):
    """Stopped (an interrupt in the timed blocks), the benchmark left its loaders' workers to the interpreter's
    exit, after removing the temporary folder they read their table from (until the hundred-and-fifth session).
    Each loader's workers are now stopped first, while the folder is there (no workers here: the calls are
    what is checked; stop_workers itself is tested in test_workers.py)."""
    import accelerated_seg.benchmark as benchmark
    import accelerated_seg.data.workers as workers

    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))  # where its temporary folder goes
    folder = "accelerated_seg_bench_*"  # its name, as benchmark_data makes it
    stopped = []
    monkeypatch.setattr(workers, "stop_workers", lambda loader: stopped.append(bool(list(tmp_path.glob(folder)))))

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(benchmark, "_interleaved_rates", interrupted)
    with pytest.raises(KeyboardInterrupt):
        benchmark_data(cases=2, size_mm=(24.0, 24.0, 20.0), spacing_mm=2.0, patch=8, workers=0, batch=2, batches=2,
                       samples_per_volume=2, blocks=2)
    assert stopped == [True, True]  # ours and MONAI's, their folder still there
    assert list(tmp_path.glob(folder)) == []


def test_an_output_where_nothing_may_be_written_is_refused_before_the_measurement(capsys):
    """--output /proc/bench.json measured everything, then lost it in FileNotFoundError's traceback."""
    assert main(["benchmark", "infer", "--size", "24", "24", "20", "--roi", "16", "--blocks", "1", "--device", "cpu",
                 "--output", "/proc/accelerated_seg_bench.json"]) == 2
    said = capsys.readouterr().err
    assert ("--output /proc/accelerated_seg_bench.json cannot be written (no file can be made in /proc: "
            "FileNotFoundError: No such file or directory); give a path in a folder you can write") in said
    assert ".write_test_" not in said  # the probe file the check made, a path nobody gave (h145's walk)



def test_a_folder_that_refuses_a_file_is_named_with_the_reason_in_every_callers_line(tmp_path, monkeypatch):
    """files.unwritable said "(FileNotFoundError: No such file or directory)" of /proc, a folder that exists, and of
    a read-only folder its reason alone, read as the folder missing; an OSError without words left "OSError: "
    (r123, the hundred-and-twenty-sixth session's review). Root writes anywhere: the refusal is simulated."""
    from accelerated_seg import files
    from accelerated_seg.checkpoint_files import check_export_output
    from accelerated_seg.config import ConfigError

    def refusing(error):
        def make(*args, **kwargs):
            raise error
        monkeypatch.setattr(files.tempfile, "NamedTemporaryFile", make)

    refusing(PermissionError(13, "Permission denied", str(tmp_path / ".write_test_k3j2")))
    with pytest.raises(ConfigError) as refused:
        files.check_output_file(tmp_path / "train.json", "--output", result_key="runs")
    assert str(refused.value) == (f"--output {tmp_path / 'train.json'} cannot be written (no file can be made in "
                                  f"{tmp_path}: PermissionError: Permission denied); give a path in a folder you "
                                  f"can write")
    with pytest.raises(ConfigError, match=f"no file can be made in {tmp_path}: PermissionError: Permission denied"):
        check_export_output(tmp_path / "model" / "inner", tmp_path / "run" / "checkpoints" / "step_4")
    refusing(OSError())
    assert files.unwritable(tmp_path) == f"no file can be made in {tmp_path}: OSError"


def test_a_result_without_output_never_replaces_an_earlier_runs(tmp_path, monkeypatch):
    """Two runs without --output wrote one file, the second over the first (seventy-eighth session's
    probe); one run's partial and final results still go to one file, and --output is rewritten."""
    import accelerated_seg.benchmark as benchmark

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(benchmark, "_CLAIMED", {})
    first = benchmark.write_result("data_2cpu", {"run": 1, "complete": False}, None)
    assert benchmark.write_result("data_2cpu", {"run": 1, "complete": True}, None) == first
    assert first.resolve() == (tmp_path / "benchmarks" / "results" / "data_2cpu.json").resolve()
    monkeypatch.setattr(benchmark, "_CLAIMED", {})  # the next run
    second = benchmark.write_result("data_2cpu", {"run": 2}, None)
    assert second.name == "data_2cpu_2.json" and json.loads(first.read_text())["complete"] is True
    asked = tmp_path / "mine.json"
    benchmark.write_result("data_2cpu", {"run": 3}, asked)
    benchmark.write_result("data_2cpu", {"run": 4}, asked)
    assert json.loads(asked.read_text())["run"] == 4


def test_two_runs_choosing_a_default_name_at_once_never_share_it(tmp_path, monkeypatch):
    """A run chose the first name without a file, and the file came with its write: another process
    choosing in between (two runs ending together) took the same name until the ninety-first session.
    The name is claimed by making its file; a write that fails leaves no empty claim behind."""
    import accelerated_seg.benchmark as benchmark

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(benchmark, "_CLAIMED", {})
    first = benchmark.default_result_path("data_2cpu")
    monkeypatch.setattr(benchmark, "_CLAIMED", {})  # another process, before the first has written
    assert benchmark.default_result_path("data_2cpu") != first

    results = tmp_path / "benchmarks" / "results"
    for path in results.iterdir():
        path.unlink()
    monkeypatch.setattr(benchmark, "_CLAIMED", {})

    def disk_full(path, text):
        raise OSError(28, "No space left on device")

    write = benchmark.write_text_atomically
    monkeypatch.setattr(benchmark, "write_text_atomically", disk_full)
    with pytest.raises(OSError, match="No space left"):
        benchmark.write_result("data_2cpu", {"run": 1}, None)
    assert list(results.iterdir()) == []
    monkeypatch.setattr(benchmark, "write_text_atomically", write)
    assert benchmark.write_result("data_2cpu", {"run": 1}, None).name == "data_2cpu.json"  # the name is free again
    monkeypatch.setattr(benchmark, "write_text_atomically", disk_full)
    with pytest.raises(OSError, match="No space left"):  # a later write of the same run: its file stays
        benchmark.write_result("data_2cpu", {"run": 1, "complete": True}, None)
    assert json.loads((results / "data_2cpu.json").read_text())["run"] == 1


@pytest.mark.parametrize("target, measure, args", [
    ("data", "benchmark_data", ["--cases", "2", "--patch", "16"]),
    ("infer", "benchmark_infer", ["--size", "24", "24", "20", "--roi", "16", "--device", "cpu"]),
])
def test_a_stopped_data_or_inference_benchmark_leaves_the_earlier_result_and_nothing_else(
        target, measure, args, tmp_path, monkeypatch):
    """A run stopped before it measured anything leaves an earlier result at --output as it was, and no partial
    file: data writes its JSON once, at the end, and infer keeps its results so far only once a device is
    measured (the next test)."""
    import accelerated_seg.benchmark as benchmark
    from accelerated_seg.cli import EXIT_INTERRUPTED

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt  # as a time limit's signal stops it

    out = tmp_path / f"{target}.json"
    earlier = json.dumps({"benchmark": f"{target}_2cpu", "complete": True})
    out.write_text(earlier)
    monkeypatch.setattr(benchmark, measure, stopped)
    assert main(["benchmark", target, *args, "--output", str(out)]) == EXIT_INTERRUPTED
    assert out.read_text() == earlier and list(tmp_path.iterdir()) == [out]


@pytest.mark.skipif("forkserver" not in multiprocessing.get_all_start_methods(), reason="no fork server here")
def test_the_data_benchmark_stopped_ends_its_fork_server_before_it_returns(tmp_path, monkeypatch):
    """The fork server of the benchmark's loader ended by itself only once the command's process had exited, and
    ran on a while after it: stopped by Ctrl-C or SIGTERM, a process of the job's was still there 2 s after its
    exit in 28 runs of 36 (until the hundred-and-fifth session, benchmarks/results/
    stop_benchmark_data_workers_left_2cpu_*.json). The command now ends it before it returns, its loaders' workers
    stopped (fork_server_stopped_where_started_inside); a later loader starts another."""
    from multiprocessing import forkserver

    import accelerated_seg.benchmark as benchmark
    from accelerated_seg.cli import EXIT_INTERRUPTED
    from test_processes import _running

    forkserver._forkserver._stop()  # one an earlier test left is not the command's: it is left running
    monkeypatch.setattr(forkserver._forkserver, "_preload_modules", [])  # a quick one: nothing to import

    def stopped_with_its_workers_started(*args, **kwargs):
        forkserver.ensure_running()
        started.append(forkserver._forkserver._forkserver_pid)
        raise KeyboardInterrupt

    started = []
    monkeypatch.setattr(benchmark, "benchmark_data", stopped_with_its_workers_started)
    assert main(["benchmark", "data", "--output", str(tmp_path / "data.json")]) == EXIT_INTERRUPTED
    assert started and not _running(started[0]), f"the fork server {started} outlived the command"
    assert forkserver._forkserver._forkserver_pid is None  # reaped, and forgotten: a later loader starts another


@pytest.mark.skipif("forkserver" not in multiprocessing.get_all_start_methods(), reason="no fork server here")
def test_the_data_benchmark_leaves_a_fork_server_its_caller_started_and_its_processes(tmp_path, monkeypatch):
    """Called from Python (a notebook) whose own process from the fork server runs, the command ended that server
    as it returned (until the hundred-and-fifth session's review): the caller's process was then said not alive,
    exit code 255, and a loader's worker "exited unexpectedly". A server it did not start is now left running."""
    from multiprocessing import forkserver

    import accelerated_seg.benchmark as benchmark
    from accelerated_seg.cli import EXIT_INTERRUPTED

    monkeypatch.setattr(forkserver._forkserver, "_preload_modules", [])  # a quick one: nothing to import
    callers = multiprocessing.get_context("forkserver").Process(target=time.sleep, args=(60,))
    callers.start()
    try:
        server = forkserver._forkserver._forkserver_pid

        def stopped(*args, **kwargs):
            raise KeyboardInterrupt

        monkeypatch.setattr(benchmark, "benchmark_data", stopped)
        assert main(["benchmark", "data", "--output", str(tmp_path / "data.json")]) == EXIT_INTERRUPTED
        assert forkserver._forkserver._forkserver_pid == server and callers.is_alive()
    finally:
        callers.kill()
        callers.join()
        forkserver._forkserver._stop()  # for the tests after this one


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the processes of a session, read from /proc")
def test_sigterm_to_the_job_stops_the_data_benchmark_and_every_loader_worker_without_a_traceback(tmp_path):
    """SIGTERM to the process group (SLURM's time limit, ``kill -TERM -- -PGID``) once both loaders' workers run:
    status 143, no traceback, its temporary folder removed, no process of it left. The MONAI tutorial loader's
    forked workers died of it (torch's worker handler ends one that another process signals), and in the
    benchmark's clean-up torch's SIGCHLD handler raised "DataLoader worker ... is killed by signal: Terminated":
    status 1, two tracebacks and the temporary folder half removed, from the hundred-and-second session, whose
    change took SIGTERM as Ctrl-C, until its review; its workers now leave SIGTERM to the benchmark, as ours do."""
    # Its own temporary folder, a short one: the fork server's socket lies in it, and pytest-xdist's tmp_path made
    # that socket's path longer than AF_UNIX takes
    temporary = Path(tempfile.mkdtemp(prefix="sigterm_"))
    job = subprocess.Popen(
        [sys.executable, terminated_mid_work.__file__, "benchmark", "data", "--cases", "2", "--size-mm", "32", "32",
         "32", "--spacing-mm", "2", "--patch", "8", "--workers", "1", "--batch", "2", "--output",
         str(tmp_path / "data.json")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        env={**os.environ, "TMPDIR": str(temporary)})
    try:
        said = _line_said(job.stdout, terminated_mid_work.BOTH_LOADERS_RUN)  # False where it ended before
        if said:
            os.killpg(job.pid, signal.SIGTERM)
        _, stderr = job.communicate(timeout=120)
        left = list(temporary.glob("accelerated_seg_bench_*"))  # its phantoms and cache
    finally:
        if job.poll() is None:
            os.killpg(job.pid, signal.SIGKILL)
        shutil.rmtree(temporary, ignore_errors=True)
    assert said, stderr
    assert job.returncode == 128 + signal.SIGTERM, stderr
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr
    assert left == []
    assert _processes_left_in_session(job.pid) == []


def _line_said(output, line: str) -> bool:
    """Whether ``output`` says ``line``, read up to it (or to its end)."""
    return any(said.rstrip("\n") == line for said in iter(output.readline, ""))


def _processes_left_in_session(session: int, wait_s: float = 30.0) -> list[str]:
    """The command lines of the processes of ``session`` still running after ``wait_s`` at most: the fork server
    and the resource tracker end a moment after the last worker does."""
    deadline = time.monotonic() + wait_s
    while True:
        left = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:  # "pid (name) state ppid pgrp session ...": the name may hold spaces and parentheses
                fields = stat.read_text().rsplit(")", 1)[1].split()
                if int(fields[3]) == session and fields[0] != "Z":
                    left.append((stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode())
            except (OSError, IndexError, ValueError):  # ended meanwhile
                continue
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.2)


def _the_cpu_as_two_devices(monkeypatch) -> None:
    """``--device cpu cpu:1`` measured as two devices, as a machine with a GPU measures cpu and cuda: the
    refusal of the CPU given twice is lifted for the test, which has no second device."""
    import accelerated_seg.benchmark as benchmark

    monkeypatch.setattr(benchmark, "_refuse_a_device_twice", lambda devices: None)


def _stopped_on_the_second_device(monkeypatch, stop: bool) -> list[str]:
    """The devices benchmark infer measures, listed as each one's measurement ends; with ``stop``, Ctrl-C
    there on the second device (``cpu:1``: the CPU again, under another name, ``_the_cpu_as_two_devices``)."""
    import accelerated_seg.benchmark as benchmark

    measured, real = [], benchmark._host_handover_ms

    def handover(shape, device):  # the last step of each device's measurement
        measured.append(str(device))
        if stop and device.index == 1:
            raise KeyboardInterrupt
        return real(shape, device)

    monkeypatch.setattr(benchmark, "_host_handover_ms", handover)
    return measured


INFER_ON_TWO = ["benchmark", "infer", "--size", "24", "24", "20", "--roi", "16", "--blocks", "1",
                "--device", "cpu", "cpu:1"]


def test_an_inference_benchmark_stopped_on_its_second_device_keeps_the_first_and_the_rerun_measures_the_rest(
        tmp_path, monkeypatch, capsys):
    """The JSON was written once, at the end: a run stopped on the second device lost the first's measurement
    (minutes on a GPU machine) until the ninety-fourth session. Now it is in X.partial.json, and the same
    command run again keeps it and measures only the other device, as benchmark train does."""
    _the_cpu_as_two_devices(monkeypatch)
    from accelerated_seg.cli import EXIT_INTERRUPTED

    out, partial = tmp_path / "infer.json", tmp_path / "infer.partial.json"
    argv = [*INFER_ON_TWO, "--output", str(out)]
    with monkeypatch.context() as stopping:
        _stopped_on_the_second_device(stopping, stop=True)
        assert main(argv) == EXIT_INTERRUPTED
    stopped = json.loads(partial.read_text())
    assert stopped["complete"] is False and list(stopped["devices"]) == ["cpu"] and not out.exists()
    capsys.readouterr()
    measured = _stopped_on_the_second_device(monkeypatch, stop=False)
    assert main(argv) == 0
    assert measured == ["cpu:1"]  # the CPU's entry kept, not measured again
    assert f"picked up cpu from {partial}, measured by a stopped run of this command" in capsys.readouterr().out
    result = json.loads(out.read_text())
    assert result["complete"] is True and list(result["devices"]) == ["cpu", "cpu:1"]
    assert result["devices"]["cpu"] == stopped["devices"]["cpu"]
    # the stopped run's load beside its device, as train's beside its configurations (null until the ninety-fifth
    # session: infer's results recorded no load average)
    assert len(stopped["load_average"]["before"]) == len(result["load_average"]["after"]) == 3
    assert result["resumed_from"] == [{"date": stopped["date"], "devices": 1, "load_average": stopped["load_average"]}]
    assert not partial.exists()


def _stopped_in_the_second_devices_second_block(monkeypatch, stop: BaseException | None) -> list[str]:
    """The devices ours (``mirrored_probabilities``) ran on, call by call: its warm-up, then one call a block
    (--volumes 1). With ``stop``, that is raised in the second device's second block (``cpu:1``,
    ``_the_cpu_as_two_devices``), after its first block was measured: a run stopped between its measurements."""
    import accelerated_seg.inference as inference

    calls, real = [], inference.mirrored_probabilities

    def ours(*args):
        calls.append(str(args[-1]))
        if stop is not None and calls.count("cpu:1") == 3:
            raise stop
        return real(*args)

    monkeypatch.setattr(inference, "mirrored_probabilities", ours)
    return calls


@pytest.mark.parametrize("stop", ["out of memory", "Ctrl-C"])
def test_a_device_stopped_between_its_measurements_is_left_out_and_the_rerun_measures_it_whole(
        stop, tmp_path, monkeypatch, capsys):
    """A GPU that runs out of memory (a CUDA device faked by the CPU under another name: torch's OutOfMemoryError is
    what its allocator raises), or Ctrl-C, in the middle of the second device. Its first block is not kept: the
    partial file holds the first device alone, and the same command run again measures the second whole. The
    out of memory was torch's traceback, which named neither the device nor the file keeping the first one's
    entry, until the ninety-fifth session; now one line, as benchmark train says it."""
    _the_cpu_as_two_devices(monkeypatch)
    from accelerated_seg.cli import EXIT_INTERRUPTED

    out, partial = tmp_path / "infer.json", tmp_path / "infer.partial.json"
    argv = [*INFER_ON_TWO, "--blocks", "2", "--output", str(out)]
    error = torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB.") if stop == "out of memory" \
        else KeyboardInterrupt()
    with monkeypatch.context() as stopping:
        calls = _stopped_in_the_second_devices_second_block(stopping, error)
        assert main(argv) == (1 if stop == "out of memory" else EXIT_INTERRUPTED)
    assert calls == ["cpu"] * 3 + ["cpu:1"] * 3  # warm-up and two blocks each, the second device's last cut short
    stopped = json.loads(partial.read_text())
    assert list(stopped["devices"]) == ["cpu"] and stopped["complete"] is False and not out.exists()
    said = capsys.readouterr().err
    if stop == "out of memory":
        assert said == (f"error: --device cpu:1 ran out of memory (CUDA out of memory. Tried to allocate 2.00 GiB.): "
                        f"lower --size, --roi or --sw-batch-size, or free what another process holds there (the "
                        f"devices measured before it are in {partial}, marked incomplete)\n")
    calls = _stopped_in_the_second_devices_second_block(monkeypatch, None)
    assert main(argv) == 0
    assert calls == ["cpu:1"] * 3  # measured anew, whole: its warm-up again and both blocks
    result = json.loads(out.read_text())
    assert result["devices"]["cpu"] == stopped["devices"]["cpu"] and result["complete"] is True
    assert len(result["devices"]["cpu:1"]["ours"]["volumes_per_s_blocks"]) == 2 and not partial.exists()


def test_a_first_device_out_of_memory_says_nothing_was_measured_and_writes_nothing(tmp_path, monkeypatch, capsys):
    """Nothing measured, nothing written: no partial file, and an earlier result at --output as it was."""
    import accelerated_seg.inference as inference

    def out_of_memory(*args):
        raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 9.00 GiB.")

    monkeypatch.setattr(inference, "mirrored_probabilities", out_of_memory)
    out = tmp_path / "infer.json"
    out.write_text(json.dumps({"benchmark": "infer_2cpu", "complete": True}))
    earlier = out.read_text()
    assert main([*INFER_ON_TWO[:-1], "--output", str(out)]) == 1
    assert capsys.readouterr().err == ("error: --device cpu ran out of memory (CUDA out of memory. Tried to allocate "
                                       "9.00 GiB.): lower --size, --roi or --sw-batch-size, or free what another "
                                       "process holds there (no device was measured before it)\n")
    assert out.read_text() == earlier and list(tmp_path.iterdir()) == [out]


def test_a_device_out_of_the_hosts_memory_is_one_line_as_a_gpus_is(tmp_path, monkeypatch, capsys):
    """The CPU's allocator raises a plain RuntimeError: torch's traceback until the ninety-sixth session."""
    import accelerated_seg.inference as inference

    def out_of_memory(*args):
        torch.empty(2**58, dtype=torch.uint8)  # 256 PiB: the CPU's allocator itself refuses it

    monkeypatch.setattr(inference, "mirrored_probabilities", out_of_memory)
    assert main([*INFER_ON_TWO[:-1], "--output", str(tmp_path / "infer.json")]) == 1
    assert capsys.readouterr().err == (
        "error: --device cpu ran out of the host's memory (DefaultCPUAllocator: can't allocate memory: you tried to "
        "allocate 288230376151711744 bytes. Error code 12 (Cannot allocate memory)): lower --size, --roi or "
        "--sw-batch-size, or free what other processes hold there (no device was measured before it)\n")
    assert list(tmp_path.iterdir()) == []


def test_without_output_the_inference_benchmark_goes_on_in_the_file_its_stopped_run_left(tmp_path, monkeypatch, capsys):
    _the_cpu_as_two_devices(monkeypatch)
    import accelerated_seg.benchmark as benchmark
    from accelerated_seg.cli import EXIT_INTERRUPTED

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(benchmark, "_CLAIMED", {})
    with monkeypatch.context() as stopping:
        _stopped_on_the_second_device(stopping, stop=True)
        assert main(INFER_ON_TWO) == EXIT_INTERRUPTED
    [own] = (tmp_path / "benchmarks" / "results").iterdir()
    stopped = json.loads(own.read_text())
    monkeypatch.setattr(benchmark, "_CLAIMED", {})  # the next process
    measured = _stopped_on_the_second_device(monkeypatch, stop=False)
    assert main(INFER_ON_TWO) == 0
    assert measured == ["cpu:1"] and f"wrote {own.relative_to(tmp_path)}" in capsys.readouterr().out
    assert [own] == list((tmp_path / "benchmarks" / "results").iterdir())  # no _2 file measured anew
    record = json.loads(own.read_text())
    assert record["complete"] is True and record["devices"]["cpu"] == stopped["devices"]["cpu"]


def test_an_inference_benchmarks_stopped_run_of_another_command_line_is_refused_before_measuring(
        tmp_path, monkeypatch, capsys):
    _the_cpu_as_two_devices(monkeypatch)
    out, partial = tmp_path / "infer.json", tmp_path / "infer.partial.json"
    with monkeypatch.context() as stopping:
        _stopped_on_the_second_device(stopping, stop=True)
        main([*INFER_ON_TWO, "--blocks", "2", "--output", str(out)])
    stopped = partial.read_text()
    capsys.readouterr()
    measured = _stopped_on_the_second_device(monkeypatch, stop=False)
    assert main([*INFER_ON_TWO, "--output", str(out)]) == 2
    assert measured == [] and partial.read_text() == stopped and not out.exists()
    error = capsys.readouterr().err
    assert f"{partial} holds 1 device(s) a stopped run measured" in error and "command_line" in error


def test_a_result_names_the_code_that_was_measured(tmp_path):
    """A result recorded the machine and the stack but not this package's commit, which its version (0.1.0
    for every commit) cannot tell: results of sessions apart could not be matched to the code measured,
    where a run's run_info.json names it (code_commit.py)."""
    import accelerated_seg
    from accelerated_seg.benchmark import write_result
    from accelerated_seg.code_commit import run_commit

    machine = json.loads(write_result("data_2cpu", {}, tmp_path / "r.json").read_text())["machine"]
    assert machine["accelerated_seg_version"] == accelerated_seg.__version__
    assert "accelerated_seg_commit" in machine and machine["accelerated_seg_commit"] == run_commit()


def test_a_data_dir_keeps_a_cache_of_its_own_and_phantoms_other_than_asked_are_rewritten(tmp_path):
    """--data-dir removed its 'cache' folder whatever it held, reused phantoms of other --cases or
    sizes without a word, and a patch larger than the cropped phantoms stopped in a MONAI worker with
    a traceback, after ours was measured (seventy-first session's probe)."""
    work = tmp_path / "work"
    (work / "cache").mkdir(parents=True)
    (work / "cache" / "precious.txt").write_text("mine")
    small = dict(size_mm=(24.0, 24.0, 20.0), spacing_mm=2.0, patch=8, workers=0, batch=2, batches=2,
                 samples_per_volume=2, blocks=1, data_dir=str(work))
    with pytest.raises(ValueError, match=r"work/cache is not a cache this benchmark made"):
        benchmark_data(cases=2, **small)
    assert (work / "cache" / "precious.txt").read_text() == "mine"
    (work / "cache" / "precious.txt").unlink()
    (work / "cache").rmdir()
    assert benchmark_data(cases=2, **small)["cases"] == 2
    assert benchmark_data(cases=3, **small)["cases"] == 3  # the 2 phantoms of the run before: rewritten
    with pytest.raises(ValueError, match=r"--patch 12 is larger than the phantoms once cropped to their foreground"):
        benchmark_data(cases=3, **{**small, "patch": 12, "size_mm": (30.0, 24.0, 24.0)})
    # MONAI's crop alone is shorter than the patch: its box of the voxels above their mean, where ours keeps
    # every voxel above 0 (a traceback from MONAI's worker until the ninety-third session)
    with pytest.raises(ValueError, match=r"--patch 16 is larger than the phantoms once cropped to their foreground"):
        benchmark_data(cases=2, **{**small, "patch": 16, "size_mm": (32.0, 32.0, 32.0)})


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_the_inference_benchmark_runs_both_at_the_precision_asked(precision):
    results = benchmark_infer(size=(24, 24, 20), roi=(16, 16, 16), blocks=2, devices=["cpu"], precision=precision,
                              tta="axes")
    assert results["precision"] == precision and results["passes_per_volume"] == 4
    cpu = results["devices"]["cpu"]
    for name in ("ours", "monai_sliding_window_inference", "monai_same_output"):
        assert len(cpu[name]["volumes_per_s_blocks"]) == 2 and cpu[name]["volumes_per_s"] > 0
    assert cpu["ratio_ours_to_monai"] > 0 and len(cpu["ratio_per_block"]) == 2
    # against MONAI written out for the same output (softmax, average, on the host): our wrapping's cost
    assert cpu["ratio_ours_to_monai_same_output"] == pytest.approx(
        cpu["ours"]["volumes_per_s"] / cpu["monai_same_output"]["volumes_per_s"], abs=1e-3)
    assert len(cpu["ratio_same_output_per_block"]) == 2
    assert cpu["host_handover_ms"] is None  # on the CPU nothing is handed over


def test_the_inference_benchmark_command_writes_json_and_refuses_fp16_on_a_cpu(tmp_path, capsys):
    small = ["benchmark", "infer", "--size", "24", "24", "20", "--roi", "16", "--blocks", "1", "--device", "cpu"]
    out = tmp_path / "infer.json"
    assert main([*small, "--precision", "bf16", "--output", str(out)]) == 0
    record = json.loads(out.read_text())
    assert record["benchmark"] == f"infer_{os.cpu_count()}cpu_bf16" and record["precision"] == "bf16"
    assert record["machine"]["torch"] == torch.__version__ and record["command"]
    assert record["machine"]["cpu_capability"] == torch.backends.cpu.get_cpu_capability()
    capsys.readouterr()
    assert main([*small, "--precision", "fp16", "--output", str(tmp_path / "no.json")]) == 2
    assert "fp16 needs a CUDA GPU" in capsys.readouterr().err and not (tmp_path / "no.json").exists()


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_a_result_records_the_command_it_was_given(tmp_path, monkeypatch):
    """main([...]) from Python recorded the caller's sys.argv as the command (pytest's, a script's)
    until the ninety-first session; from the command line it records sys.argv's arguments, as ever."""
    out = tmp_path / "infer.json"
    argv = ["benchmark", "infer", "--size", "24", "24", "20", "--roi", "16", "--blocks", "1", "--device", "cpu",
            "--output", str(out)]
    monkeypatch.setattr("sys.argv", ["/usr/bin/pytest", "-q", "tests/"])
    assert main(argv) == 0
    assert json.loads(out.read_text())["command"] == "accelerated-seg " + shlex.join(argv)
    spaced = tmp_path / "infer (2).json"
    monkeypatch.setattr("sys.argv", ["/venv/bin/accelerated-seg", *argv[:-1], str(spaced)])  # as a shell gives it
    assert main() == 0
    assert json.loads(spaced.read_text())["command"] == f"accelerated-seg {shlex.join(argv[:-1])} '{spaced}'"


def test_a_device_the_machine_lacks_is_one_error_naming_it(tmp_path, capsys):
    assert main(["benchmark", "infer", "--size", "24", "24", "20", "--roi", "16", "--device", "cuda",
                 "--output", str(tmp_path / "no.json")]) == 2
    assert "device 'cuda': this machine has 0 CUDA GPU(s) visible" in capsys.readouterr().err


def test_a_device_given_twice_is_one_error_before_the_measurement(tmp_path, capsys):
    """`--device cpu cpu` measured the CPU twice over, the second replacing the first in the JSON."""
    argv = ["benchmark", "infer", "--size", "24", "24", "20", "--roi", "16", "--blocks", "1",
            "--output", str(tmp_path / "twice.json"), "--device", "cpu"]
    assert main([*argv, "cpu"]) == 2
    assert capsys.readouterr().err.strip() == (
        "error: --device cpu is given twice: each device is measured once, and a second measurement would replace "
        "the first in the result; give it once (more --blocks measure it longer)")
    assert main([*argv, "cpu:0"]) == 2
    assert "--device cpu:0 is cpu again" in capsys.readouterr().err
    assert main([*argv, "cpu:1"]) == 2  # torch takes any index after cpu as the one CPU
    assert "--device cpu:1 is cpu again" in capsys.readouterr().err
    assert not (tmp_path / "twice.json").exists()


@pytest.mark.parametrize("args, named", [
    (["--patch", "0"], "--patch must be at least 1"),
    (["--patch", "200"], "--patch 200 is larger than the phantoms"),
    (["--batch", "0"], "--batch must be at least 1"),
    # EpochSampler's "a global batch of 1 to 4 samples, the epoch (got 8)", after our cache was built
    (["--batch", "8"], "--batch 8 is more patches than an epoch of the phantoms gives (--cases 1, 4 patches from each)"),
    (["--workers", "-1"], "--workers must be at least 0"),
    (["--spacing-mm", "0"], "--spacing-mm must be finite millimetres > 0 (got 0)"),
    (["--spacing-mm", "nan"], "--spacing-mm must be finite millimetres > 0 (got nan)"),  # a traceback before
    # ran on until stopped
    (["--size-mm", "nan", "24", "20"], "--size-mm must be finite millimetres > 0 (got nan 24 20)"),
    (["--size-mm", "-24", "24", "20"], "--size-mm must be finite millimetres > 0 (got -24 24 20)"),
    (["--data-dir", "{tmp_path}/notes.txt/work"],  # named the phantoms' data/ subfolder, not --data-dir
     "--data-dir {tmp_path}/notes.txt/work: {tmp_path}/notes.txt is a file; give a folder for the phantoms"),
    # nothing may be written there, not even by root: mkdir's FileNotFoundError traceback (ninety-third session)
    (["--data-dir", "/proc/phantoms"], "--data-dir /proc/phantoms cannot be written (no file can be made in /proc: "
                                       "FileNotFoundError: No such file or directory)"),
])
def test_a_bad_data_benchmark_setting_is_one_error_before_any_work(tmp_path, capsys, args, named):
    out = tmp_path / "data.json"
    (tmp_path / "notes.txt").write_text("mine\n")  # where a --data-dir is not a folder
    args = [arg.format(tmp_path=tmp_path) for arg in args]
    assert main(["benchmark", "data", "--cases", "1", "--data-dir", str(tmp_path / "work"), *args,
                 "--output", str(out)]) == 2
    assert named.format(tmp_path=tmp_path) in capsys.readouterr().err
    assert not out.exists() and not (tmp_path / "work").exists()


@pytest.mark.parametrize("args, named", [
    (["--size", "0", "24", "20"], r"--size needs sizes of at least 1 voxel, got \(0, 24, 20\)"),
    (["--volumes", "0"], "--volumes must be at least 1"),
    (["--roi", "16", "16"], "--roi takes three edges in voxels .*got 2: 16 16"),  # a 2D patch error before
    (["--roi", "17"], "--roi 17 17 17 does not suit the demo U-Net used without --model: .*divisible by"),
    # a window the demo U-Net halves to one voxel, where instance norm fails: once torch's bare message
    (["--roi", "8"], "--roi 8 8 8 does not suit the demo U-Net used without --model: .*more than one voxel"),
    (["--model", "no_such_export"], "no_such_export/config.json is missing: give a model folder exported"),
])
def test_a_bad_inference_benchmark_setting_is_one_error_naming_it(tmp_path, capsys, args, named):
    out = tmp_path / "infer.json"
    argv = ["benchmark", "infer", "--size", "24", "24", "20", "--roi", "16", "--blocks", "1", "--device", "cpu"]
    assert main([*argv, *args, "--output", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and re.search(named, err[0]), err
    assert not out.exists()


@pytest.mark.parametrize("roi, named", [
    (["17"], r"--roi 17 17 17 does not suit the network of --model .*/model: .*it trains on 32x32x32"),  # a traceback
    (["2"], r"--roi 2 2 2 does not suit the network of --model .*/model: .*more than one voxel"),  # torch's bare line
])
def test_a_window_the_exported_network_cannot_take_is_one_error_naming_roi(tmp_path, capsys, roi, named):
    from test_inference import export  # a U-Net of two down-sampling stages, patch 16

    out = tmp_path / "infer.json"
    assert main(["benchmark", "infer", "--model", str(export(tmp_path / "model")), "--size", "24", "24", "20",
                 "--roi", *roi, "--blocks", "1", "--device", "cpu", "--output", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and re.search(named, err[0]), err
    assert not out.exists()


@pytest.mark.parametrize("target, named", [
    (["infer", "--size", "100000", "100000", "20", "--roi", "16", "--device", "cpu"],  # torch's allocator traceback
     r"--size 100000 100000 20 --roi 16 16 16: the volume \(padded to one window\) and its 3 outputs' probabilities "
     r"hold at least 2980\.23 GiB and .* GiB is available; lower --size or --roi"),
    (["infer", "--size", "24", "24", "20", "--roi", "100000", "--device", "cpu"],  # the window pads the volume: the same
     r"--size 24 24 20 --roi 100000 100000 100000: the volume \(padded to one window\) .* at least 14901161\.19 GiB"),
    (["predict", "--cases", "2", "--size", "100000", "100000", "20", "--roi", "16", "--channels", "4", "8",
      "--device", "cpu"],  # numpy's MemoryError traceback
     r"--size 100000 100000 20, window 16x16x16: writing each random scan, or predicting it, holds at least "
     r"2980\.23 GiB .*; lower --size or --roi"),
    (["predict", "--cases", "2", "--size", "24", "24", "20", "--roi", "100000", "--channels", "4", "8",
      "--device", "cpu"],  # torch's allocator traceback
     r"--size 24 24 20, window 100000x100000x100000: writing each random scan, or predicting it, holds at least "
     r"14901161\.19 GiB"),
    (["data", "--cases", "2", "--size-mm", "100000", "100000", "40", "--spacing-mm", "2", "--patch", "8"],  # the same
     r"--cases 2 --size-mm 100000 100000 40 --spacing-mm 2: the phantoms, as each is written and then in MONAI's "
     r"cache, hold at least 2235\.17 GiB .*; lower --size-mm or --cases, or raise --spacing-mm"),
])
def test_a_volume_beyond_the_hosts_memory_is_one_error_naming_its_size(tmp_path, capsys, target, named):
    out = tmp_path / "result.json"
    assert main(["benchmark", *target, "--blocks", "1", "--output", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and re.search(named, err[0]), err
    assert not out.exists()


TINY_PREDICT = dict(cases=2, size=(24, 24, 20), spacing=(1.5, 1.5, 2.0), roi=16, channels=[4, 8], blocks=2, device="cpu")


def test_the_prediction_benchmark_times_both_ways_and_the_stages_and_compares_their_files():
    results = benchmark_predict(**TINY_PREDICT)
    assert results["same_outputs"] is True  # pipelined and one at a time wrote the same bytes
    for way in ("sequential", "pipelined"):
        assert len(results[way]["cases_per_s_blocks"]) == 2 and results[way]["cases_per_s"] > 0
    assert results["ratio_pipelined_to_sequential"] == pytest.approx(statistics.median(results["ratio_per_block"]))
    assert set(results["stage_ms_median"]) == {"prepare", "network", "write"}
    assert all(len(times) == 2 for times in results["stage_ms_per_case"].values())  # the warm-up case not among them
    # from the per-case times, as the benchmark does: the medians it reports are rounded to 0.1 ms,
    # too coarse for the ratio of stages of a few milliseconds
    medians = {stage: statistics.median(times) for stage, times in results["stage_ms_per_case"].items()}
    assert results["stage_ms_median"] == {stage: pytest.approx(ms, abs=0.051) for stage, ms in medians.items()}
    assert results["stage_bound"] == pytest.approx(sum(medians.values()) / max(medians.values()), abs=2e-3)
    assert results["model"] == "unet channels [4, 8] (random weights)" and results["device"] == "cpu"
    assert results["roi"] == [16, 16, 16]  # the window measured (not recorded before the seventy-first session)
    assert results["transforms_on_device"] is False  # the road that ran: predict's default asks, a CPU declines
    # each stage timed inside both ways' blocks too: which one slows when they run side by side
    for way in ("sequential", "pipelined"):
        assert set(results["stage_ms_in_blocks"][way]) == {"prepare", "network", "write"}
        assert all(ms > 0 for ms in results["stage_ms_in_blocks"][way].values())
    in_blocks = results["stage_ms_in_blocks"]
    assert results["stage_slowdown_pipelined"] == {
        stage: pytest.approx(in_blocks["pipelined"][stage] / in_blocks["sequential"][stage], abs=2e-3)
        for stage in ("prepare", "network", "write")}


def test_the_prediction_benchmark_times_every_stage_call_of_its_blocks_and_puts_the_stages_back(tmp_path):
    import accelerated_seg.inference as inference
    import accelerated_seg.inference_cases as inference_cases
    from accelerated_seg.benchmark_predict import _interleaved, _random_unet_export, _write_scans

    originals = (inference_cases.prepare_case, inference_cases.case_prediction, inference_cases.write_case)
    model, _ = _random_unet_export(tmp_path / "model", 16, [4, 8], seed=0)
    scans = _write_scans(tmp_path / "scans", 3, (24, 24, 20), (1.0, 1.0, 1.0), seed=0)
    rates, in_blocks = _interleaved(model, scans, torch.device("cpu"), inference.PredictOptions(), 2, tmp_path)
    assert {way: len(per_block) for way, per_block in rates.items()} == {"sequential": 2, "pipelined": 2}
    for way in ("sequential", "pipelined"):  # 2 blocks of 3 cases, the untimed first pass left out
        assert {stage: len(times) for stage, times in in_blocks[way].items()} == \
            {"prepare": 6, "network": 6, "write": 6}
    assert (inference_cases.prepare_case, inference_cases.case_prediction, inference_cases.write_case) == originals


def test_the_prediction_benchmark_writes_one_file_per_channel_for_a_model_of_several(tmp_path):
    from test_inference import export  # tests/ is on sys.path, as for conftest

    model = export(tmp_path / "model", in_channels=2)  # a scan per case was grouped as a case lacking channel 1
    results = benchmark_predict(model, cases=2, size=(24, 24, 20), blocks=1, device="cpu")
    assert results["same_outputs"] is True and results["model"] == str(model)
    assert all(len(times) == 2 for times in results["stage_ms_per_case"].values())


def test_the_prediction_benchmark_command_writes_json_and_refuses_bad_settings_first(tmp_path, capsys):
    out = tmp_path / "predict.json"
    small = ["benchmark", "predict", "--cases", "2", "--size", "24", "24", "20", "--blocks", "1", "--device", "cpu"]
    from test_inference import export

    tiny_net = ["--roi", "16", "--channels", "4", "8"]
    assert main([*small, *tiny_net, "--output", str(out)]) == 0
    record = json.loads(out.read_text())
    assert record["benchmark"] == f"predict_cpu_{os.cpu_count()}cpu" and record["same_outputs"] is True
    assert record["command"] and record["machine"]["torch"] == torch.__version__
    for args, named in ((["--cases", "1", *tiny_net], "--cases must be at least 2"),
                        (["--spacing", "0", "1", "1", *tiny_net],
                         "--spacing takes three finite voxel sizes in mm above 0"),
                        (["--spacing", "nan", "1", "1", *tiny_net],  # nibabel's traceback before
                         "--spacing takes three finite voxel sizes"),
                        (["--overlap", "1", *tiny_net], r"--overlap must be in \[0, 1\), got 1.0"),
                        (["--roi", "17", "--channels", "4", "8"], "--roi 17 with --channels 4 8: .*divisible"),
                        (["--roi", "0"], "--roi must be at least 1 \\(got 0\\)"),  # measured the default 64 before
                        (["--model", str(tmp_path / "none")], "none/config.json is missing"),
                        (["--model", str(export(tmp_path / "model")), "--channels", "4", "8"],  # once ignored
                         "--channels sets the default U-Net's channels; with --model the export's network and window"),
                        (["--model", str(tmp_path / "model"), "--roi", "16"],  # ignored until the seventieth session
                         "--roi sets the default U-Net's window edge; with --model the export's network and window")):
        capsys.readouterr()
        assert main([*small, *args, "--output", str(tmp_path / "no.json")]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and re.search(named, err[0]), err
        assert not (tmp_path / "no.json").exists()


@pytest.mark.parametrize("channels", [["4"], ["0", "8"], ["-4", "8"]])
def test_default_unet_channels_it_cannot_have_are_one_error_in_the_commands_words(tmp_path, capsys, channels):
    """One value was told "the length of `channels` should be no less than 2. Change model.args", and a 0 that
    the network "cannot train on data.patch_size (64, 64, 64) with these model.args" after three torch warnings."""
    argv = ["benchmark", "predict", "--cases", "2", "--blocks", "1", "--device", "cpu", "--channels", *channels,
            "--output", str(tmp_path / "no.json")]
    assert main(argv) == 2
    assert capsys.readouterr().err.strip() == (
        f"error: --channels takes the default U-Net's channels, one per stage: two or more of at least 1 (e.g. "
        f"--channels 4 8), got {' '.join(channels)}")
    assert list(tmp_path.iterdir()) == []


def test_a_result_file_is_replaced_whole_or_not_at_all(tmp_path, monkeypatch):
    from accelerated_seg.files import write_text_atomically

    path = write_text_atomically(tmp_path / "deep" / "result.json", '{"old": 1}')
    assert path.read_text() == '{"old": 1}'

    def killed(self, text, encoding=None):  # the process dies half-way through writing
        raise KeyboardInterrupt

    monkeypatch.setattr("pathlib.Path.write_text", killed)
    with pytest.raises(KeyboardInterrupt):
        write_text_atomically(path, '{"new": 2}')
    monkeypatch.undo()
    assert path.read_text() == '{"old": 1}' and [p.name for p in path.parent.iterdir()] == ["result.json"]


@pytest.fixture
def no_measurement(monkeypatch):
    """Every benchmark's measurement fails the test: a check that should come first came after it."""
    import accelerated_seg.benchmark
    import accelerated_seg.benchmark_predict
    import accelerated_seg.benchmark_train

    def measure(*args, **kwargs):
        raise AssertionError("measured before the output path was checked")

    for module, name in ((accelerated_seg.benchmark, "benchmark_data"), (accelerated_seg.benchmark, "benchmark_infer"),
                         (accelerated_seg.benchmark_predict, "benchmark_predict"),
                         (accelerated_seg.benchmark_train, "benchmark_train")):
        monkeypatch.setattr(module, name, measure)


EVERY_TARGET = [["data", "--cases", "1"], ["infer", "--size", "24", "24", "20", "--roi", "16"],
                ["predict", "--cases", "2"],
                ["train", "--patch", "16", "--model-args", '{"channels": [4, 8], "strides": [2]}']]


@pytest.mark.parametrize("target", EVERY_TARGET)
def test_an_output_path_that_cannot_be_written_is_refused_before_the_measurement(tmp_path, capsys, no_measurement,
                                                                                target):
    """A folder at --output was IsADirectoryError's traceback once everything was measured: the
    measurement was lost. Refused first, it costs nothing."""
    assert main(["benchmark", *target, "--blocks", "1", "--output", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip() == f"error: --output {tmp_path} is a folder; give a file path for the JSON"
    # a folder yet to be made: pathlib dropped the '/', and the result was written as a file named results
    assert main(["benchmark", *target, "--blocks", "1", "--output", f"{tmp_path}/results/"]) == 2
    assert capsys.readouterr().err.strip() == (f"error: --output {tmp_path}/results/ ends in '/', so it names a folder; "
                                               f"give a file path for the JSON, such as {tmp_path}/results/result.json")
    assert not (tmp_path / "results").exists()
    # Another file of that name was written over after the measurement before the thirtieth session
    for text in ("# a README\n", '{"training": []}'):  # not JSON; JSON, but a dataset.json, not a result
        (tmp_path / "taken.json").write_text(text)
        assert main(["benchmark", *target, "--blocks", "1", "--output", str(tmp_path / "taken.json")]) == 2
        assert "is not an earlier result of this command (a JSON object with 'benchmark')" in capsys.readouterr().err
        assert (tmp_path / "taken.json").read_text() == text
    # Another benchmark's result: written over before the seventy-third session
    other = '{"benchmark": "deepspeed_without_accelerate"}'
    (tmp_path / "taken.json").write_text(other)
    assert main(["benchmark", *target, "--blocks", "1", "--output", str(tmp_path / "taken.json")]) == 2
    assert (f"holds another command's result (benchmark 'deepspeed_without_accelerate', not {target[0]}_...)"
            in capsys.readouterr().err)
    assert (tmp_path / "taken.json").read_text() == other


@pytest.mark.parametrize("target", EVERY_TARGET)
def test_a_default_output_folder_that_cannot_be_made_or_written_is_refused_before_the_measurement(
        tmp_path, capsys, monkeypatch, no_measurement, target):
    """Without --output only the measurement's end found benchmarks/results unmakeable (a file named
    benchmarks) or unwritable (a read-only working directory): mkdir's traceback lost the results."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "benchmarks").write_text("notes\n")
    assert main(["benchmark", *target, "--blocks", "1"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"error: without --output the result goes into benchmarks/results/ under the working directory {tmp_path}, "
        f"which cannot be made: benchmarks is a file; give --output a file path, or run from another folder")
    monkeypatch.chdir("/proc")  # nothing may be written there, not even by root
    assert main(["benchmark", *target, "--blocks", "1"]) == 2
    assert re.search(r"without --output the result goes into benchmarks/results/ under the working directory /proc, "
                     r"where nothing can be written \(.*\); give --output a path", capsys.readouterr().err)


def test_the_machine_records_package_versions_from_their_distributions_without_importing_them(monkeypatch):
    """machine_info imported accelerate and MONAI to read their __version__: seconds in a fresh process (a
    benchmark's own script, results_so_far), and a module shadowing the installed one (a folder named monai on
    the path) gave its version as the installed package's. The distributions' metadata say it, the keys that
    benchmarks/results/ and cpu_history read unchanged; a package not installed (nor imported) is None."""
    import importlib.abc
    import importlib.metadata
    import sys
    import types

    class NoImport(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] == "accelerate":
                raise AssertionError(f"machine_info imported {name}")
            return None

    monkeypatch.delitem(sys.modules, "accelerate", raising=False)
    monkeypatch.setattr(sys, "meta_path", [NoImport(), *sys.meta_path])
    monkeypatch.setitem(sys.modules, "monai", types.SimpleNamespace(__version__="0.0.shadowed"))
    machine = machine_info()
    assert machine["accelerate"] == importlib.metadata.version("accelerate")
    assert machine["monai"] == importlib.metadata.version("monai") != "0.0.shadowed"
    assert machine["torch"] == importlib.metadata.version("torch")
    assert list(machine) == ["cpu", "cpu_family_model", "cores", "cpu_capability", "cpu_bf16", "gpu", "python",
                             "torch", "cuda", "accelerate", "monai", "accelerated_seg_version",
                             "accelerated_seg_commit"]
    import accelerated_seg.installed_versions as installed_versions

    def not_installed(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(installed_versions, "version", not_installed)
    monkeypatch.delitem(sys.modules, "monai")
    assert machine_info()["monai"] is None and machine_info()["accelerate"] is None


def test_the_machine_record_tells_cpu_generations_apart_that_share_a_model_name():
    # Two hosts this project ran on, both "AMD EPYC" by name, 1.6x apart at unet 64^3: only x86's
    # family and model tell them apart, and "model name" must not be read as "model".
    zen5 = ["processor\t: 0", "vendor_id\t: AuthenticAMD", "cpu family\t: 26", "model\t\t: 2",
            "model name\t: AMD EPYC", "flags\t\t: fpu avx512f avx512_bf16", "", "processor\t: 1",
            "cpu family\t: 26", "model\t\t: 2"]
    assert cpu_generation(zen5) == "26/2"
    assert cpu_generation(["model name\t: AMD EPYC", "cpu family\t: 25"]) is None  # no model line
    assert cpu_generation([]) is None  # no /proc/cpuinfo (macOS, Windows)
    machine = machine_info()
    assert set(machine) >= {"cpu", "cpu_family_model", "cores", "cpu_bf16", "torch", "accelerate", "monai"}


def test_an_inference_benchmark_stopped_again_before_its_next_device_names_the_devices_it_picked_up(
        tmp_path, monkeypatch, capsys):
    """A rerun that picked up X.partial.json's devices and is stopped before it writes anything of its own: its line
    said "nothing written to X ...; the same command measures again" until the hundred-and-twenty-first session's
    review, of the devices the partial file keeps and the same command picks up. Now it names them there."""
    _the_cpu_as_two_devices(monkeypatch)
    out, partial = tmp_path / "infer.json", tmp_path / "infer.partial.json"
    argv = [*INFER_ON_TWO, "--output", str(out)]
    _stopped_on_the_second_device(monkeypatch, stop=True)
    assert main(argv) == 130  # cpu measured (the measurement itself, no stand-in), stopped on cpu:1
    kept = (f"benchmark infer interrupted: the devices measured before it are in {partial}, marked incomplete; the "
            f"same command picks them up and measures the rest")
    assert capsys.readouterr().err.splitlines() == [kept]
    assert main(argv) == 130  # picks up cpu, stopped again on cpu:1
    said = capsys.readouterr()
    assert f"picked up cpu from {partial}" in said.out
    assert said.err.splitlines() == [kept]
    assert list(json.loads(partial.read_text())["devices"]) == ["cpu"] and not out.exists()
