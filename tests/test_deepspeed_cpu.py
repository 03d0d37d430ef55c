"""DeepSpeed's path through the training loop, run for real on the CPU, launched with the shipped
profiles as a user launches them: one process, and ZeRO-2/ZeRO-3 really sharded over two.

accelerate puts DeepSpeed in effect without a GPU as long as ACCELERATE_USE_CPU is unset, and
DeepSpeed's CPU accelerator then talks over gloo. With several processes accelerate 1.15 picks no
process-group backend on a CPU and would record each rank as a lone process;
strategy.join_deepspeed_ranks_over_gloo names gloo first, so the ranks form one run. DeepSpeed's
shared-memory all-reduce op, for inference only, is not compiled
(accelerate_workarounds.skip_deepspeeds_shared_memory_op): in each new environment its build cost
the first launch 75-145 s on 2 cores, and the other test process waited for it.

These runs found three bugs that unit tests could not: bf16 profiles failing at the first forward,
ZeRO-1/2 refusing an odd bucket size, and (ZeRO offload) a schedule lost after a resume; the unit
tests in test_train.py and test_fsdp_cpu.py pin each fix.
"""

import hashlib
import json
import re
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from safetensors.torch import load_file

from conftest import (assert_checkpoint_exports_as_training_did, logged_scalars,
                      made_once_for_the_test_processes, tiny_overrides)
from processes import run_bounded

pytest.importorskip("deepspeed", reason="the test extra installs DeepSpeed")
pytestmark = pytest.mark.distributed  # launched processes, minutes: the slow tier

ROOT = Path(__file__).resolve().parents[1]
TINY_ODD = '{"channels": [4, 8], "strides": [2], "num_res_units": 0}'  # 1,961 parameters


@pytest.fixture(autouse=True)
def _with_transformers(monkeypatch):
    """accelerate's DeepSpeed path imports transformers, which conftest.py hides from the processes
    of the other tests (tests/startup/sitecustomize.py)."""
    monkeypatch.delenv("ACCELERATED_SEG_TESTS_WITHOUT_TRANSFORMERS", raising=False)


# The environment's interpreter where its folder is a link (checkouts sharing one environment through a
# linked .venv): ZeRO offload's Adam is compiled on its first use (deepspeed's cpu_adam op, 100-250 s on
# 2 busy cores) into ~/.cache/torch_extensions, under a build file that names the headers by the path the
# interpreter was started from, so a launch from another checkout's link built it all over again.
_PYTHON = Path(sys.executable).parent.resolve() / Path(sys.executable).name
# What the launches compile (the offload tests' CPU Adam), they compile without optimization or debug information:
# 98 CPU-seconds became 55 (tests/cxx_for_test_extensions says why that checks the same), into a folder of
# the tests' own, so that the optimized build of a user's runs in the same environment is neither used nor replaced;
# its objects/ keeps each object by its preprocessed source, for the next checkout's build (the compiler says why).
_EXTENSION_BUILDS = {"CXX": str(ROOT / "tests" / "cxx_for_test_extensions"),
                     "TORCH_EXTENSIONS_DIR": str(Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
                                                 / "torch_extensions" / "accelerated_seg_tests")}



def test_the_launches_build_extensions_unoptimized_with_a_compiler_torch_takes_for_gcc(tmp_path):
    """_EXTENSION_BUILDS' compiler: torch's extension builds accept it as gcc, and its -O0 -g0 win over the -O3 -g
    that DeepSpeed gives (no __OPTIMIZE__, no debug information), where the plain c++ so given optimizes and
    writes it."""
    from torch.utils.cpp_extension import check_compiler_ok_for_platform

    cxx = _EXTENSION_BUILDS["CXX"]
    assert check_compiler_ok_for_platform(cxx)
    source = tmp_path / "one.cpp"
    source.write_text("int one() { return 1; }\n")
    for compiler, optimized in ((cxx, False), ("c++", True)):
        macros = subprocess.run([compiler, "-O3", "-g", "-dM", "-E", str(source)], capture_output=True, text=True,
                                check=True).stdout
        assert ("#define __OPTIMIZE__ 1" in macros) == optimized, compiler
        subprocess.run([compiler, "-O3", "-g", "-c", str(source), "-o", str(tmp_path / "one.o")], check=True)
        assert (b".debug_info" in (tmp_path / "one.o").read_bytes()) == optimized, compiler


def test_the_launches_compile_a_source_once_wherever_its_checkout_lies(tmp_path):
    """_EXTENSION_BUILDS' compiler keeps each object under TORCH_EXTENSIONS_DIR/objects by what it is compiled from:
    the same source and headers under another checkout's path (a fresh clone's environment, which made every CI run
    compile CPU Adam again) are compiled once, the second object a copy of the first, byte for byte (__FILE__ written
    relative to site-packages), each depfile naming its own checkout's files, as ninja reads them; a changed header
    is compiled anew."""
    cxx, objects = _EXTENSION_BUILDS["CXX"], tmp_path / "extensions" / "objects"
    build = tmp_path / "extensions" / "op"
    build.mkdir(parents=True)
    for checkout in ("a", "b"):
        site = tmp_path / checkout / "lib" / "site-packages"
        (site / "include").mkdir(parents=True)
        (site / "include" / "where.h").write_text("#define WHERE __FILE__\n")
        (site / "op.cpp").write_text('#include "where.h"\nconst char *where() { return WHERE; }\n')

    def compile_in(checkout: str) -> bytes:
        site = tmp_path / checkout / "lib" / "site-packages"
        subprocess.run([cxx, "-MMD", "-MF", "op.o.d", f"-I{site / 'include'}", "-fPIC", "-O3", "-g", "-c",
                        str(site / "op.cpp"), "-o", "op.o"], cwd=build, check=True,
                       env={**os.environ, "TORCH_EXTENSIONS_DIR": str(tmp_path / "extensions")})
        depfile = (build / "op.o.d").read_text()
        assert depfile.startswith("op.o:") and str(site / "include" / "where.h") in depfile, depfile
        return (build / "op.o").read_bytes()

    first = compile_in("a")
    assert len(list(objects.glob("*.o"))) == 1
    assert b"site-packages/op.cpp" in first and str(tmp_path).encode() not in first
    # the kept object, marked and named by its new digest (which a hit checks): checkout b's build copies it (a
    # compile would give b the unmarked bytes)
    kept = next(objects.glob("*.o"))
    kept.unlink()
    kept.with_name(f"{kept.name.split('.')[0]}.{hashlib.sha256(first + b'kept').hexdigest()}.o").write_bytes(
        first + b"kept")
    assert compile_in("b") == first + b"kept" and len(list(objects.glob("*.o"))) == 1
    (tmp_path / "b" / "lib" / "site-packages" / "include" / "where.h").write_text("#define WHERE \"elsewhere\"\n")
    assert b"elsewhere" in compile_in("b") and len(list(objects.glob("*.o"))) == 2


def test_the_launches_compile_anew_for_another_hosts_target_options_and_where_objects_cannot_be_kept(tmp_path):
    """_EXTENSION_BUILDS' compiler keys an object by every target option -march=native turns on, not by the -march=
    name alone: this host's gcc names its CPU "cooperlake" and turns on AMX and AVX512-FP16, which a real Cooper
    Lake lacks, so an object kept here and copied there (a ~/.cache shared between hosts) would stop at an illegal
    instruction; until the hundred-and-twelfth session's review only the name was keyed. A c++ in PATH that reports
    one target option more stands for the other host. And the objects folder only speeds a build up: where it
    cannot be made (a file in its place, as a read-only or full disk) the build still compiles."""
    cxx, extensions = _EXTENSION_BUILDS["CXX"], tmp_path / "extensions"
    source = tmp_path / "op.cpp"
    source.write_text("int op() { return 1; }\n")
    shim = tmp_path / "bin" / "c++"
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\ncase " $* " in *" --help=target "*) {shutil.which("c++")} "$@"; '
                    'printf "  %s\\n" ${EXTRA_TARGET_OPTION:-}; exit ;; esac\n'
                    f'exec {shutil.which("c++")} "$@"\n')
    shim.chmod(0o755)

    def compile_with(**env) -> Path:
        subprocess.run([cxx, "-march=native", "-c", str(source), "-o", str(tmp_path / "op.o")], check=True,
                       env={**os.environ, "PATH": f"{shim.parent}{os.pathsep}{os.environ['PATH']}", **env})
        return tmp_path / "op.o"

    compile_with(TORCH_EXTENSIONS_DIR=str(extensions))
    compile_with(TORCH_EXTENSIONS_DIR=str(extensions), EXTRA_TARGET_OPTION="-mextra-feature-elsewhere")
    assert len(list((extensions / "objects").glob("*.o"))) == 2
    unwritable = tmp_path / "unwritable"
    unwritable.mkdir()
    (unwritable / "objects").write_text("not a folder")
    (tmp_path / "op.o").unlink()
    assert compile_with(TORCH_EXTENSIONS_DIR=str(unwritable)).stat().st_size > 0


@pytest.mark.parametrize("damage", ["cut short", "one bit flipped", "kept by its key alone"])
def test_a_damaged_kept_object_is_compiled_anew_with_one_line_said(tmp_path, damage):
    """_EXTENSION_BUILDS' compiler checks a kept object's bytes against the digest its name gives before the build
    uses it: one cut short (a copy of ~/.cache cut off, a disk's error) was linked as it was, failing the link, and
    one with a flipped bit could change CPU Adam's steps without a word, until the hundred-and-thirteenth session.
    It is deleted, said in one line, and compiled anew, the build's object the same as a fresh compile's; the next
    build reuses the mended one. An object named by its key alone (kept before that session), which no hit can
    check, is not used, and goes once the object is kept anew."""
    cxx, objects = _EXTENSION_BUILDS["CXX"], tmp_path / "extensions" / "objects"
    source, built = tmp_path / "op.cpp", tmp_path / "op.o"
    source.write_text("int op(int x) { return 3 * x + 1; }\n")

    def compile_once() -> str:
        return subprocess.run([cxx, "-fPIC", "-c", str(source), "-o", str(built)], capture_output=True, text=True,
                              check=True, env={**os.environ, "TORCH_EXTENSIONS_DIR": str(objects.parent)}).stderr

    assert compile_once() == ""
    compiled = built.read_bytes()
    [kept] = objects.glob("*.o")
    key = kept.name.split(".")[0]
    assert kept.read_bytes() == compiled
    middle = len(compiled) // 2
    if damage == "cut short":
        kept.write_bytes(compiled[:middle])
    elif damage == "one bit flipped":
        kept.write_bytes(compiled[:middle] + bytes([compiled[middle] ^ 1]) + compiled[middle + 1:])
    else:
        kept.rename(objects / f"{key}.o")
        (objects / f"{key}.o").write_bytes(compiled[:middle])
    built.unlink()  # else a build that wrote nothing would leave the first compile's object there, as if mended
    said = compile_once()
    assert built.read_bytes() == compiled, damage
    lines = said.splitlines()
    if damage == "kept by its key alone":
        assert lines == [] and not (objects / f"{key}.o").exists(), said
    else:
        assert len(lines) == 1 and lines[0].startswith(f"tests/cxx_for_test_extensions: {kept} is damaged"), said
        assert "compiled anew" in lines[0], said
    [mended] = objects.glob("*.o")
    assert mended.read_bytes() == compiled
    inode = mended.stat().st_ino
    built.unlink()
    # the mended object, reused: a compile would have kept its own in a new file
    assert compile_once() == "" and built.read_bytes() == compiled
    assert [path.stat().st_ino for path in objects.glob("*.o")] == [inode]


def _launch(profile: str, *args: str, env_extra: dict | None = None, processes: int = 1) -> subprocess.CompletedProcess:
    """``profile``: a shipped profile's name, or the path of one of the user's own; ``processes``: its ranks."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k != "ACCELERATE_USE_CPU"}  # it would switch DeepSpeed off
    env.update({**_EXTENSION_BUILDS, **(env_extra or {})})
    env["PYTHONPATH"] = f"{ROOT}{os.pathsep}{ROOT / 'tests'}{os.pathsep}{env.get('PYTHONPATH', '')}"
    config_file = profile if Path(profile).is_file() else ROOT / "configs" / "accelerate" / f"{profile}.yaml"
    cmd = [str(_PYTHON), "-m", "accelerate.commands.launch", "--config_file", str(config_file),
           "--num_processes", str(processes), "--main_process_port", str(port), *args]
    return run_bounded(cmd, cwd=ROOT, env=env, timeout=480)


# With activation checkpointing the wrapped blocks' parameters have a prefix in named_parameters that
# the state dict leaves out: the fp32 master weights must still go under the state dict's names.
def test_the_zero2_profile_trains_in_bf16_validates_and_exports_float32(tiny_dataset, tmp_path):
    """Without activation checkpointing and with it: two runs of one launch (dist_worker's THEN_RUNS), a launch
    each (the test parametrized) until the hundred-and-ninth session."""
    from accelerated_seg.exported_model import load_exported

    def overrides(activation_checkpointing):
        return tiny_overrides(tiny_dataset, tmp_path / f"run_{activation_checkpointing}", train__max_steps=4,
                              train__val_every=2, train__trackers="tensorboard",
                              train__activation_checkpointing=activation_checkpointing)

    extensions = tmp_path / "torch_extensions"
    then = [[str(tmp_path / "run_true_result"), overrides("true")]]
    proc = _launch("deepspeed_zero2", str(ROOT / "tests" / "dist_worker.py"), str(tmp_path / "run_false_result"),
                   *overrides("false"), env_extra={"TORCH_EXTENSIONS_DIR": str(extensions),
                                                   "THEN_RUNS": json.dumps(then)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    # DeepSpeed's shared-memory op, for inference only, was not compiled (minutes on 2 cores;
    # accelerate_workarounds.skip_deepspeeds_shared_memory_op)
    assert not extensions.exists() and "shm_comm" not in proc.stdout + proc.stderr
    for activation_checkpointing in ("false", "true"):
        out = tmp_path / f"run_{activation_checkpointing}"
        outcome = json.loads((tmp_path / f"run_{activation_checkpointing}_result.rank0.json").read_text())
        assert outcome["ok"], outcome.get("traceback") or outcome
        info = json.loads((out / "run_info.json").read_text())
        assert info["strategy"].startswith("DeepSpeed (DEEPSPEED)") and "mixed precision bf16" in info["strategy"]
        assert (out / "checkpoints" / "step_4" / "strategy.json").is_file()
        summary = json.loads((out / "summary.json").read_text())
        assert summary["step"] == 4 and summary["best_step"] in (2, 4) and summary["best_dice"] >= 0
        weights = load_file(out / "model" / "model.safetensors")
        assert all(w.dtype == torch.float32 and torch.isfinite(w).all() for w in weights.values())
        # The optimizer's fp32 master weights, not the engine's bf16 copy written as float32 (until the
        # thirteenth session every exported value was a bf16 value).
        assert any((w != w.bfloat16().float()).any() for w in weights.values())
        load_exported(out / "model")  # strictly into the plain MONAI network
        # The last checkpoint exported offline: the same fp32 master weights, from the optimizer's partition.
        assert_checkpoint_exports_as_training_did(out, tmp_path / f"exported_{activation_checkpointing}")
        # The engine clips by itself; its norm is still logged, read at log steps (every step here).
        grad_norms = logged_scalars(out, "train/grad_norm")
        assert sorted(grad_norms) == [1, 2, 3, 4] and all(0 < v < float("inf") for v in grad_norms.values()), \
            grad_norms


def test_under_accelerate_use_cpu_the_zero2_profile_is_said_to_run_ddp_in_deepspeeds_place(tiny_dataset, tmp_path):
    """ACCELERATE_USE_CPU switches DeepSpeed off: accelerate runs one gloo rank, its model wrapped in DDP,
    which the run called "single process (MULTI_CPU)" (ninety-second session)."""
    out = tmp_path / "run"
    proc = _launch("deepspeed_zero2", "--mixed_precision", "no", str(ROOT / "examples" / "train.py"), "--no-report",
                   *tiny_overrides(tiny_dataset, out, train__max_steps=2, train__val_every=0,
                                   train__allow_strategy_fallback="true"),
                   env_extra={"ACCELERATE_USE_CPU": "true"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = ("DDP (MULTI_CPU) on 1 process(es), device cpu:0, mixed precision no, in place of DeepSpeed, which "
            "accelerate does not set up under ACCELERATE_USE_CPU=true")
    assert f"strategy: {line}\n" in proc.stdout and "Launch without ACCELERATE_USE_CPU" in proc.stdout
    assert json.loads((out / "checkpoints" / "step_2" / "strategy.json").read_text())["strategy"] == line


def test_zero3_with_activation_checkpointing_exports_the_plain_networks_fp32_weights(tiny_dataset, tmp_path):
    # ZeRO-3's consolidated state dict names parameters with the checkpoint wrappers' prefix, which
    # no plain network has: until the thirteenth session this export failed its strict load.
    from accelerated_seg.exported_model import load_exported

    out = tmp_path / "run"
    proc = _launch("deepspeed_zero3", str(ROOT / "examples" / "train.py"), "--no-report",
                   *tiny_overrides(tiny_dataset, out, train__max_steps=2, train__val_every=0,
                                   train__activation_checkpointing="true"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    weights = load_file(out / "model" / "model.safetensors")
    assert not any("_checkpoint_wrapped_module" in name for name in weights)
    assert any((w != w.bfloat16().float()).any() for w in weights.values())  # the fp32 master weights
    load_exported(out / "model")  # strictly into the plain MONAI network
    # From the checkpoint too: zero_to_fp32 names the parameters with the wrappers' prefix, left out alike.
    assert_checkpoint_exports_as_training_did(out, tmp_path / "exported")


def test_a_zero3_profile_made_with_accelerate_configs_defaults_still_exports(tiny_dataset, tmp_path):
    """accelerate config's default answer to "save 16-bit model weights" is no: the run trained, then
    its first export failed in get_state_dict ("Cannot get 16bit model weights"), leaving no checkpoint
    and no model (seventy-fifth session's probe). The run turns the gather on, and says so."""
    from accelerated_seg.exported_model import load_exported

    shipped = (ROOT / "configs" / "accelerate" / "deepspeed_zero3.yaml").read_text()
    assert "zero3_save_16bit_model: true" in shipped
    profile = tmp_path / "my_zero3.yaml"
    profile.write_text(shipped.replace("zero3_save_16bit_model: true", "zero3_save_16bit_model: false"))
    out = tmp_path / "run"
    proc = _launch(str(profile), str(ROOT / "examples" / "train.py"), "--no-report",
                   *tiny_overrides(tiny_dataset, out, train__max_steps=2, train__val_every=2))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "zero_optimization.stage3_gather_16bit_weights_on_model_save False -> true" in proc.stdout
    # and the run's record keeps it (printed alone, it was lost with the launch's log)
    note = json.loads((out / "run_info.json").read_text())["strategy_note"]
    assert note.startswith("note: the experiment config decides DeepSpeed's") and "False -> true" in note
    load_exported(out / "model")
    load_exported(out / "best_model")


@pytest.fixture(scope="module")
def zero3_fp32_runs(tiny_dataset, tmp_path_factory) -> SimpleNamespace:
    """One launch of deepspeed_zero3.yaml in fp32 for the two tests below, three runs of tests/dist_worker.py
    one after another in its rank (THEN_RUNS; a launch each until the hundred-and-ninth session): ``nan``, whose
    loss is NaN at its second forward (NAN_CALLS counts on over the runs, so the others never meet it), then
    ``leaves_false`` and ``leaves_true`` (train.zero3_leaf_blocks), gathering each layer first: the blocks are
    marked on the network's own modules (deepspeed's set_z3_leaf_module), which each run builds anew; then
    ``head_only``, fine-tuning ``first`` (trained here) with train.head_only_steps; then ``zero3_checkpoint`` (2
    steps), the fp32 ZeRO-3 checkpoint zero3_offload_runs resumes in this run's folder, to step 4 (a launch of that
    fixture's own until the hundred-and-thirteenth session).
    ``printed``: each run's lines, from its own "strategy:" line on. Made once for both test processes of
    `pytest -n 2` (conftest.made_once_for_the_test_processes; until the hundred-and-twelfth session's review each
    made it where the tests were split)."""
    def launch() -> dict:
        work = tmp_path_factory.mktemp("zero3_fp32")
        runs = {"nan": tiny_overrides(tiny_dataset, work / "nan", **{"train.max_steps": 3, "train.val_every": 0})}
        for leaves in ("false", "true"):
            runs[f"leaves_{leaves}"] = tiny_overrides(tiny_dataset, work / f"leaves_{leaves}", train__max_steps=3,
                                                      train__val_every=0, train__save_every=0,
                                                      train__zero3_leaf_blocks=leaves, **ZERO3_LEAF_NETWORK)
        from accelerated_seg.config import load_config
        from accelerated_seg.train import train

        first = work / "first"  # a 3-class export, which the head_only run fine-tunes on the binarized phantoms
        train(load_config(None, tiny_overrides(tiny_dataset, first, train__max_steps=1, train__val_every=0)))
        runs["head_only"] = tiny_overrides(tiny_dataset, work / "head_only", train__max_steps=3, train__val_every=0,
                                           train__save_every=2, train__init_from=str(first / "model"),
                                           train__head_only_steps=2, data__binarize="true", optim__lr=1e-2,
                                           optim__warmup_steps=0)
        runs["zero3_checkpoint"] = tiny_overrides(tiny_dataset, work / "zero3_checkpoint", train__max_steps=2,
                                                  train__val_every=0)
        then = [[str(work / f"{name}_result"), overrides] for name, overrides in list(runs.items())[1:]]
        with pytest.MonkeyPatch.context() as monkeypatch:  # as _with_transformers, which a module's fixture precedes
            monkeypatch.delenv("ACCELERATED_SEG_TESTS_WITHOUT_TRANSFORMERS", raising=False)
            proc = _launch("deepspeed_zero3", "--mixed_precision", "no", str(ROOT / "tests" / "dist_worker.py"),
                           str(work / "nan_result"), *runs["nan"],
                           env_extra={"NAN_RANK": "0", "NAN_CALLS": "1", "THEN_RUNS": json.dumps(then)})
        printed = re.split(r"^strategy: ", proc.stdout, flags=re.M)[1:]
        assert len(printed) == len(runs), proc.stdout[-3000:] + proc.stderr[-3000:]
        results = {name: json.loads((work / f"{name}_result.rank0.json").read_text()) for name in runs}
        return {"work": str(work), "printed": dict(zip(runs, printed)), "results": results,
                "proc": {"returncode": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr}}

    made = made_once_for_the_test_processes(tmp_path_factory, "zero3_fp32_runs", launch)
    return SimpleNamespace(**{**made, "work": Path(made["work"]), "proc": SimpleNamespace(**made["proc"])})


# The blocks ZeRO-3 gathers whole: DynUNet's 5 basic blocks, all but the first, which takes the image (4).
# DynUNet (the MLPerf U-Net's family) also registers its layers twice, which the gathered export must
# write once: the hardest of the registry's cases, and the one kept here (the U-Net was dropped from CI
# in the seventh session to keep the suite's time; the benchmark below covers every network).
ZERO3_LEAF_NETWORK = {"model.name": "dynunet", "model.args": "{filters: [8, 16, 32]}"}


def test_zero3_gathering_blocks_whole_trains_exactly_as_gathering_each_layer(zero3_fp32_runs):
    """train.zero3_leaf_blocks (on by default) changes how ZeRO-3 gathers, not what it computes
    (benchmarks/verify_zero3_leaf_blocks.py checks all six registry networks)."""
    exports = {}
    for leaves in ("false", "true"):
        outcome = zero3_fp32_runs.results[f"leaves_{leaves}"]
        assert outcome["ok"] and outcome["step"] == 3, outcome.get("traceback") or outcome
        printed = zero3_fp32_runs.printed[f"leaves_{leaves}"]
        assert ("ZeRO-3 gathers 4 block(s) whole" in printed) == (leaves == "true"), printed[-2000:]
        exports[leaves] = load_file(zero3_fp32_runs.work / f"leaves_{leaves}" / "model" / "model.safetensors")
    assert all(torch.equal(exports["true"][k], exports["false"][k]) for k in exports["false"])


def test_the_benchmark_measures_zero2_on_a_network_with_an_odd_parameter_count(tmp_path):
    out = tmp_path / "bench.json"
    proc = _launch("deepspeed_zero2", "-m", "accelerated_seg.cli", "benchmark", "train", "--model", "unet",
                   "--model-args", TINY_ODD, "--patch", "16", "--batch", "2", "--steps", "2", "--blocks", "1",
                   "--precision", "bf16", "--output", str(out))
    assert proc.returncode == 0, proc.stderr[-3000:]
    record = json.loads(out.read_text())
    assert "deepspeed_zero2.yaml" in record["launch"]["launcher_command"]  # the profile, in the result
    run = record["runs"][0]
    assert run["parameters"] % 2 == 1 and run["distributed_type"] == "DEEPSPEED"
    assert run["sharding"]["zero_stage"] == 2 and run["ours"]["samples_per_s"] > 0
    assert run["sharding"]["zero3_leaf_blocks"] == 0  # ZeRO-2 gathers nothing


def test_the_benchmark_refuses_a_precision_its_deepspeed_json_keeps_from_running(tmp_path):
    """A json's "bf16": {"enabled": false} keeps --precision bf16 from running (accelerate fills only a missing or
    "auto" block): DeepSpeed trained fp32 in a row labelled bf16 (strategy "mixed precision no"), the ninety-seventh
    session's probe. The Accelerator's precision is read before the configuration is measured, and nothing written."""
    json_file, profile, out = tmp_path / "ds.json", tmp_path / "my_zero2.yaml", tmp_path / "bench.json"
    json_file.write_text(json.dumps({"bf16": {"enabled": False}, "zero_optimization": {"stage": 2}}))
    profile.write_text("distributed_type: DEEPSPEED\nnum_machines: 1\nnum_processes: 1\nmachine_rank: 0\n"
                       f"deepspeed_config:\n  deepspeed_config_file: {json_file}\n  zero3_init_flag: false\n")
    proc = _launch(str(profile), "-m", "accelerated_seg.cli", "benchmark", "train", "--model", "unet",
                   "--model-args", TINY_ODD, "--patch", "16", "--batch", "2", "--steps", "1", "--blocks", "1",
                   "--precision", "bf16", "--output", str(out))
    assert proc.returncode != 0 and not out.exists(), proc.stdout[-2000:]
    assert ("error: benchmark train's --precision bf16 asks for mixed precision bf16, and bf16.enabled is false in "
            f"the DeepSpeed json {json_file}, so accelerate would train fp32") in proc.stderr, proc.stderr[-3000:]


def test_zero2_and_zero3_shard_over_two_processes_agree_with_one_process_and_resume_exactly(
        tiny_dataset, tmp_path, monkeypatch):
    """Several DeepSpeed ranks without a GPU (strategy.join_deepspeed_ranks_over_gloo): ZeRO-2 and
    ZeRO-3 over 2 gloo processes train as one fp32 process does on the same global batch, save per-rank
    partitions, resume from half way to the very same weights, and export full weights. The one process
    trains in this one: until the ninety-seventh session a launch of the cpu profile, whose start (a
    launcher and a rank importing the stack) the suite's worker, with the stack imported, does not pay.
    One launch per stage: the resume is the second run of its two processes (dist_worker's THEN_RUNS, as the
    preemption tests resume), from the first run's step_2 into a folder of its own; until the hundred-and-ninth
    session each resume was a launch of its own (benchmarks/verify_strategies.py's resume check), 4 launches."""
    import importlib.util

    from accelerated_seg.config import load_config
    from accelerated_seg.train import train

    spec = importlib.util.spec_from_file_location("verify_strategies", ROOT / "benchmarks" / "verify_strategies.py")
    verify_strategies = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(verify_strategies)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    overrides = tiny_overrides(tiny_dataset, "unused", **{
        "train.max_steps": 4, "train.val_every": 0, "train.save_every": 2, "train.keep_last": 4,
        "train.global_batch_size": 4, "train.batch_size": "null",
        "model.args": "{channels: [4, 8, 16], strides: [2, 2], num_res_units: 1, bias: false}"})
    overrides = [o for o in overrides if not o.startswith("--train.output_dir")]
    # The reference: one fp32 process on the global batch of 4, saving half way as the launches do.
    one = tmp_path / "one_process"
    train(load_config(None, [*overrides, f"--train.output_dir={one}"]))
    info = json.loads((one / "run_info.json").read_text())
    assert "single process" in info["strategy"] and not info["strategy_warning"], info["strategy"]
    assert verify_strategies.checkpoint_export_identical(one)
    reference = verify_strategies.export_outputs(one / "model")  # loaded strictly into the plain network
    # Resumed under each ZeRO stage (the one-process reference's resume is tested in test_fit).
    for profile, stage in (("deepspeed_zero2", 2), ("deepspeed_zero3", 3)):
        straight, resumed = tmp_path / profile, tmp_path / f"{profile}_resumed"
        step = straight / "checkpoints" / "step_2"
        then = [[str(resumed) + "_result", [*overrides, f"--train.output_dir={resumed}", f"--train.resume={step}"]]]
        proc = _launch(profile, "--mixed_precision", "no", str(ROOT / "tests" / "dist_worker.py"),
                       str(straight) + "_result", *overrides, f"--train.output_dir={straight}", processes=2,
                       env_extra={"THEN_RUNS": json.dumps(then)})
        for prefix in (straight, resumed):
            for rank in range(2):
                result = Path(f"{prefix}_result.rank{rank}.json")
                assert result.is_file(), f"{profile}: {result.name} missing (exit {proc.returncode}):\n" \
                                         f"{proc.stderr[-3000:]}"
                outcome = json.loads(result.read_text())
                assert outcome["ok"] and outcome["step"] == 4, outcome.get("traceback") or outcome
        info = json.loads((straight / "run_info.json").read_text())
        assert "DeepSpeed (DEEPSPEED) on 2 process(es)" in info["strategy"] and not info["strategy_warning"], info
        outputs = verify_strategies.export_outputs(straight / "model")  # loaded strictly into the plain network
        # Both ranks' partitions gathered in this one process: the model that the launch exported.
        assert verify_strategies.checkpoint_export_identical(straight), profile
        diff = float((outputs - reference).abs().max())
        assert diff <= 1e-4, (profile, diff)
        assert f"resumed from {step}" in proc.stdout, proc.stdout[-3000:]
        assert float((verify_strategies.export_outputs(resumed / "model") - outputs).abs().max()) == 0.0, profile
        layout = json.loads((step / "strategy.json").read_text())
        assert (layout["format"], layout["zero_stage"], layout["num_processes"]) == ("deepspeed", stage, 2)
        optimizer_partitions = sorted(p.name for p in step.rglob("*optim_states.pt"))
        assert len(optimizer_partitions) == 2, optimizer_partitions  # one per rank: really sharded


def test_a_non_finite_loss_skips_the_step_under_deepspeed(zero3_fp32_runs):
    """accelerate's DeepSpeed backward also steps the engine, before the loop can skip the step; what
    keeps the NaN gradients out of the weights is DeepSpeed's own check ("OVERFLOW! Skipping step"),
    in fp32 too. The loop's agreement then skips the same step, so the two never disagree. (ZeRO-2,
    and ZeRO-3 in bf16, behaved the same when checked by hand in the seventh session.) ZeRO-3 in fp32:
    the first run of zero3_fp32_runs' launch."""
    result = zero3_fp32_runs.results["nan"]
    assert result["ok"], result.get("traceback") or zero3_fp32_runs.proc.stderr[-3000:]
    assert result["step"] == 3 and "DeepSpeed" in result["strategy"]
    assert "non-finite loss on some rank, step skipped (1/5 in a row)" in zero3_fp32_runs.printed["nan"]
    weights = load_file(zero3_fp32_runs.work / "nan" / "model" / "model.safetensors")
    assert all(torch.isfinite(w).all() for w in weights.values())


@pytest.fixture(scope="module")
def zero3_offload_runs(tiny_dataset, tmp_path_factory, zero3_fp32_runs) -> SimpleNamespace:
    """One launch of deepspeed_zero3_offload.yaml in fp32 for the three tests below, four runs of tests/dist_worker.py
    one after another in its rank (THEN_RUNS; until the hundred-and-twelfth session a launch each, but ``resumed``):
    ``zero3`` (ZeRO-3's checkpoint without offload, the step_2 of zero3_fp32_runs' ``zero3_checkpoint`` run, ``made``,
    whose fp32 launch of deepspeed_zero3.yaml carries it since the hundred-and-thirteenth session, a launch of this
    fixture's own before; then refused a resume in bf16 by a launch: ``refused``) resumed to step 4 in the fresh
    processes, with --train.resume=latest in that run's own folder (``zero3``: a rerun of a stopped run, as before
    the merge; its review found it resumed into a folder of its own), ``straight`` (4 steps, saving at 2),
    ``resumed`` (from straight's step_2), and ``sgd``. Where no
    launch of this environment has, the offloaded runs compile DeepSpeed's CPU Adam first (_PYTHON): most of its
    time then.
    ``printed``: each offloaded run's lines, from its own "strategy:" line on. The launches are made once for
    both test processes of `pytest -n 2` (conftest.made_once_for_the_test_processes), which split the three tests
    and each made them until the hundred-and-twelfth session's review."""
    work = tmp_path_factory.mktemp("zero3_offload")
    zero3, train_py = zero3_fp32_runs.work / "zero3_checkpoint", str(ROOT / "examples" / "train.py")

    def resumable(out, *extra):
        return [*tiny_overrides(tiny_dataset, out, train__max_steps=4, train__val_every=0, train__save_every=2,
                                optim__lr=3e-3), *extra]

    straight = work / "straight"
    # the ZeRO-3 checkpoint's resume first: the suite's resume under DeepSpeed in a fresh process (README)
    runs = {"zero3": [*tiny_overrides(tiny_dataset, zero3, train__max_steps=4, train__val_every=0),
                      "--train.resume=latest"],
            "straight": resumable(straight),
            "resumed": resumable(work / "resumed", f"--train.resume={straight / 'checkpoints' / 'step_2'}"),
            "sgd": tiny_overrides(tiny_dataset, work / "sgd", train__max_steps=3, train__val_every=0,
                                  optim__optimizer="sgd", optim__lr=0.01, optim__schedule="poly")}
    then = [[str(work / f"{name}_result"), overrides] for name, overrides in list(runs.items())[1:]]
    def launches() -> dict:
        def kept(proc):
            return {"returncode": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr}

        with pytest.MonkeyPatch.context() as monkeypatch:  # as _with_transformers, which a module's fixture precedes
            monkeypatch.delenv("ACCELERATED_SEG_TESTS_WITHOUT_TRANSFORMERS", raising=False)
            refused = _launch("deepspeed_zero3", "--mixed_precision", "bf16", train_py, "--no-report",
                              *tiny_overrides(tiny_dataset, zero3, train__max_steps=4, train__val_every=0),
                              "--train.resume=latest")
            proc = _launch("deepspeed_zero3_offload", "--mixed_precision", "no",
                           str(ROOT / "tests" / "dist_worker.py"), str(work / "zero3_result"), *runs["zero3"],
                           env_extra={"THEN_RUNS": json.dumps(then)})
        results = {name: Path(work / f"{name}_result.rank0.json") for name in runs}
        results = {name: json.loads(path.read_text()) if path.is_file() else {
            "ok": False, "error": f"{path.name} missing (exit {proc.returncode}):\n{proc.stderr[-3000:]}"}
            for name, path in results.items()}
        sections = re.split(r"^strategy: ", proc.stdout, flags=re.M)[1:]
        # a run that died before its "strategy:" line would hand its section to the next: then none is told apart
        printed = dict(zip(runs, sections)) if len(sections) == len(runs) else {
            name: f"({len(sections)} 'strategy:' sections for {len(runs)} runs: none told apart)\n{proc.stdout[-3000:]}"
            for name in runs}
        return {"work": str(work), "refused": kept(refused), "proc": kept(proc),
                "printed": printed, "results": results}

    # the launches once for both test processes of `pytest -n 2` (both ran them where the tests were split)
    made = made_once_for_the_test_processes(tmp_path_factory, "zero3_offload_runs", launches)
    return SimpleNamespace(**{**made, "work": Path(made["work"]), "zero3": zero3,
                              "made": zero3_fp32_runs.results["zero3_checkpoint"],
                              **{key: SimpleNamespace(**made[key]) for key in ("refused", "proc")}})


def test_the_offload_launches_are_made_once_for_both_test_processes(tmp_path, monkeypatch):
    """conftest.made_once_for_the_test_processes, as zero3_offload_runs calls it from `pytest -n 2`'s two test
    processes at once (each with its own temporary folder under the session's): one makes, the other waits and
    reads the same value. Until the hundred-and-twelfth session's review each made the fixture's three launches
    (`pytest -n 2 -k offload`: two setups of 63 s, 59.3 CPU-s)."""
    import threading
    import time

    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    made, values = [], {}
    value = {"work": str(tmp_path / "popen-gw0" / "zero3_offload0"), "results": {"sgd": {"ok": True}}}

    def make():
        made.append(threading.get_ident())
        time.sleep(0.5)  # the launches, while the other process asks
        return value

    def test_process(worker: str):
        factory = SimpleNamespace(getbasetemp=lambda: tmp_path / f"popen-{worker}")
        values[worker] = made_once_for_the_test_processes(factory, "zero3_offload_runs", make)

    processes = [threading.Thread(target=test_process, args=(worker,)) for worker in ("gw0", "gw1")]
    for process in processes:
        process.start()
    for process in processes:
        process.join()
    assert len(made) == 1 and values["gw0"] == values["gw1"] == value, (made, values)


def test_zero_offload_trains_with_sgd_not_the_adam_accelerate_would_put_in_its_place(zero3_offload_runs):
    """accelerate replaced an offloaded SGD by DeepSpeedCPUAdam without a word; the optimizer state
    DeepSpeed saves shows which one stepped. The last run of zero3_offload_runs' launch (a launch of its own until
    the hundred-and-twelfth session)."""
    out, outcome = zero3_offload_runs.work / "sgd", zero3_offload_runs.results["sgd"]
    assert outcome["ok"] and outcome["step"] == 3, outcome.get("traceback") or outcome
    assert "ZeRO offload steps SGD on the cpu" in zero3_offload_runs.printed["sgd"]
    partitions = sorted((out / "checkpoints" / "step_3").rglob("*optim_states.pt"))
    assert len(partitions) == 1, partitions
    saved = torch.load(partitions[0], map_location="cpu", weights_only=False)
    state_keys = set()

    def collect(node):
        if isinstance(node, dict):
            state_keys.update(key for key in node if isinstance(key, str))
            for value in node.values():
                collect(value)
        elif isinstance(node, (list, tuple)):
            for value in node:
                collect(value)

    collect(saved)
    assert "momentum_buffer" in state_keys and "exp_avg" not in state_keys
    load_file(out / "model" / "model.safetensors")


def test_a_zero3_checkpoint_resumes_under_offload_and_refuses_another_precision(zero3_offload_runs):
    """Resumed under deepspeed_zero3_offload.yaml, a ZeRO-3 checkpoint said "resumed from", then every
    rank failed at the first step with KeyError 'bias_correction' (DeepSpeedCPUAdam stepping AdamW's
    saved groups); resumed in bf16, an fp32 one failed in load_state with FileNotFoundError (DeepSpeed
    names bf16's optimizer files otherwise). Seventy-second session's probe. The bf16 resume is refused
    before the data work since the ninety-sixth session. The offloaded resume is the first run of
    zero3_offload_runs' launch (a launch of its own until the hundred-and-twelfth session)."""
    made, refused = zero3_offload_runs.made, zero3_offload_runs.refused
    assert made["ok"] and made["step"] == 2, made.get("traceback") or made
    assert refused.returncode != 0 and "bf16 False -> True" in refused.stdout + refused.stderr, refused.stderr[-3000:]
    assert "FileNotFoundError" not in refused.stderr
    assert "preprocessed cache" not in refused.stdout  # refused before the data work (since the ninety-sixth session)
    outcome, out = zero3_offload_runs.results["zero3"], zero3_offload_runs.zero3
    assert outcome["ok"], outcome.get("traceback") or outcome
    assert f"resumed from {out / 'checkpoints' / 'step_2'} at step 2" in zero3_offload_runs.printed["zero3"]
    assert json.loads((out / "summary.json").read_text())["step"] == 4


def test_a_zero3_offload_resume_ends_bit_identical_to_the_uninterrupted_run(zero3_offload_runs):
    """DeepSpeedCPUAdam keeps beta^t as float32 running products and recomputes them with pow in a
    new optimizer, so the first step after a resume (here t = 3, where 1 - 0.999^t rounds otherwise)
    corrected its bias otherwise: the resumed run ended up to 2e-4 from the uninterrupted one until
    the eighty-first session (accelerate_workarounds.replay_cpu_adams_step_count). The resume is the third
    run of zero3_offload_runs' launch, after its reference, and builds its own DeepSpeedCPUAdam as a fresh process
    does; a launch of its own until the hundred-and-ninth session."""
    for name in ("straight", "resumed"):
        outcome = zero3_offload_runs.results[name]
        assert outcome["ok"] and outcome["step"] == 4, outcome.get("traceback") or outcome
    step = zero3_offload_runs.work / "straight" / "checkpoints" / "step_2"
    assert f"resumed from {step}" in zero3_offload_runs.printed["resumed"], zero3_offload_runs.proc.stdout[-3000:]
    a, b = (load_file(zero3_offload_runs.work / run / "model" / "model.safetensors") for run in ("straight", "resumed"))
    assert {key: (a[key] - b[key]).abs().max().item() for key in a if not torch.equal(a[key], b[key])} == {}


def test_head_only_steps_hold_the_rest_of_the_network_through_zero3s_partitions(zero3_fp32_runs, tmp_path):
    """train.head_only_steps' two param groups under ZeRO-3, which partitions each group's fp32 master
    weights on its own and steps them with our schedule: at step 2 every tensor but the new output
    layers is still the export's, bit for bit; step 3 trains them too. The last run of zero3_fp32_runs'
    launch (a launch of its own until the hundred-and-ninth session)."""
    from accelerated_seg.checkpoint_export import export_checkpoint

    outcome = zero3_fp32_runs.results["head_only"]
    assert outcome["ok"] and outcome["step"] == 3, outcome.get("traceback") or outcome
    exported = load_file(zero3_fp32_runs.work / "first" / "model" / "model.safetensors")
    out = zero3_fp32_runs.work / "head_only"
    export_checkpoint(out / "checkpoints" / "step_2", tmp_path / "at_step_2")
    at_step_2, at_step_3 = load_file(tmp_path / "at_step_2" / "model.safetensors"), load_file(
        out / "model" / "model.safetensors")
    heads = {key for key in exported if exported[key].shape != at_step_3[key].shape}
    assert heads == {"model.2.0.conv.weight", "model.2.0.conv.bias", "model.2.1.conv.unit0.conv.weight",
                     "model.2.1.conv.unit0.conv.bias"}
    assert all(torch.equal(at_step_2[key], exported[key]) for key in exported.keys() - heads)
    assert all(not torch.equal(at_step_3[key], at_step_2[key]) for key in at_step_3)  # then all of it trains
