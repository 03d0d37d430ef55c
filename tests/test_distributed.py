"""Real 2-process DDP runs on the CPU (gloo), launched the way users launch them."""

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from accelerated_seg.train import train

from conftest import made_once_for_the_test_processes, tiny_overrides  # tests/ is on sys.path
from processes import run_bounded

pytestmark = pytest.mark.distributed
WORKER = Path(__file__).with_name("dist_worker.py")
ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch_two(prefix: Path, overrides: list[str], env_extra: dict | None = None, timeout: int = 240,
               fsdp_profile: str | None = None, expect_ok: bool = True) -> list[dict]:
    """``accelerate launch --multi_gpu --num_processes 2`` with ACCELERATE_USE_CPU: real DDP over gloo.
    ``fsdp_profile`` (e.g. "fsdp2_blocks", or a profile file's path): that accelerate profile instead, really
    sharded over the two processes through benchmarks/fsdp_on_cpu.py, in fp32. Each rank's result file."""
    proc = launched_two(prefix, overrides, env_extra, timeout, fsdp_profile)
    results = []
    for rank in range(2):
        path = Path(f"{prefix}.rank{rank}.json")
        assert path.is_file(), (f"rank {rank} wrote no result (exit {proc.returncode}):\n{proc.stdout[-3000:]}\n"
                                f"{proc.stderr[-3000:]}")
        results.append(json.loads(path.read_text()))
    for r in results:
        assert r["ok"] or not expect_ok, r.get("traceback") or r
    return results


def launched_two(prefix: Path, overrides: list[str], env_extra: dict | None = None, timeout: int = 240,
                 fsdp_profile: str | None = None) -> subprocess.CompletedProcess:
    """``launch_two``'s launch, its status and output, for a test of a launch whose ranks write no result."""
    env = {**os.environ, "ACCELERATE_USE_CPU": "true", "OMP_NUM_THREADS": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT), str(WORKER.parent), os.environ.get("PYTHONPATH", "")]),
           **(env_extra or {})}
    launch = [sys.executable, "-m", "accelerate.commands.launch", "--num_processes", "2", "--mixed_precision", "no",
              "--main_process_port", str(_free_port())]
    if fsdp_profile is None:
        cmd = [*launch, "--multi_gpu", "--num_machines", "1", "--dynamo_backend", "no", str(WORKER)]
    else:
        profile = Path(fsdp_profile) if Path(fsdp_profile).is_file() else ROOT / "configs" / "accelerate" / \
            f"{fsdp_profile}.yaml"
        cmd = [*launch, "--config_file", str(profile),
               str(ROOT / "benchmarks" / "fsdp_on_cpu.py"), "-m", WORKER.stem]
    cmd += [str(prefix), *overrides]
    return run_bounded(cmd, env=env, timeout=timeout)


def test_ddp_trains_validates_each_case_once_and_exports(ddp_launch):
    folder, results = ddp_launch
    out = folder / "two"
    assert all("DDP (MULTI_CPU) on 2 process(es)" in r["strategy"] for r in results)
    assert results[0]["is_main_process"] and not results[1]["is_main_process"]
    assert results[0]["global_batch"] == 4  # 2 per device x 2 processes
    metrics = json.loads((out / "metrics.json").read_text())
    # 3 validation cases over 2 ranks (shared by voxel count): each scored once, none twice.
    assert [v["cases"] for v in metrics["validation"]] == [3, 3]
    assert (out / "model" / "model.safetensors").is_file() and (out / "best_model" / "config.json").is_file()
    state = out / "checkpoints" / "step_4"
    assert (state / "random_states_0.pkl").is_file() and (state / "random_states_1.pkl").is_file()
    # each rank's dropout draws from its own stream (of train.seed and the rank): the same masks on every rank before
    from accelerated_seg.preparation import layer_seed

    seeds = [int((folder / f"seed.rank{rank}.txt").read_text()) for rank in range(2)]
    assert seeds == [layer_seed(0, 0), layer_seed(0, 1)] and len({*seeds, 0, layer_seed(1, 0)}) == 4


def test_a_key_the_launch_does_not_know_in_the_profiles_fsdp_config_is_refused_on_every_rank(tiny_dataset, tmp_path):
    """accelerate launch drops a key of fsdp_config it does not know without a word (`fsdp_offload_param` for
    `fsdp_offload_params` ran without offloading), and exports nothing that names it: since the ninety-fourth
    session the ranks read the profile the launcher's command line names (launched_profile.py)."""
    profile = tmp_path / "mine.yaml"
    profile.write_text((ROOT / "configs" / "accelerate" / "fsdp2_blocks.yaml").read_text().replace(
        "  fsdp_offload_params: false", "  fsdp_offload_param: false\n  versoin: 2"))
    out = tmp_path / "run"
    results = launch_two(tmp_path / "result", tiny_overrides(tiny_dataset, out), fsdp_profile=str(profile),
                         expect_ok=False, timeout=180)
    for r in results:
        assert not r["ok"] and r["error"] == (
            f"ConfigError: {profile}: the accelerate config's fsdp_config has fsdp_offload_param (did you mean "
            f"fsdp_offload_params?), versoin (did you mean version?), which accelerate launch does not know and would "
            f"ignore: correct or remove it (`accelerate config` writes the keys it knows); `accelerated-seg plan "
            f"--accelerate-config` checks a profile"), r
    assert not out.exists()  # refused before anything is written


def test_refusals_reach_both_ranks_without_a_hang_one_run_after_another(tiny_config, tiny_dataset, tmp_path):
    """Four refusals, which had a launch each until the ninety-ninth session (each launch's start costs the suite
    seconds of its 2 cores), are four runs of one launch, one after another in the same ranks: each reaches both
    ranks, and leaves them in step for the next (run in order of how far each gets). They are:

    - a folder in use by another run: the main process alone holds the folder's lock (run_lock.py); its refusal
      reaches the other rank;
    - a broken dataset: every rank checks a share of the cases (main process alone, the others waited as long as
      NCCL's timeout for a large cohort); the shares' findings travel to every rank, which all refuse alike;
    - a checkpoint gone after the main process loaded it: another run still training may rotate the checkpoint a
      resume loads away (keep_last) between the ranks' loads: rank 1 met accelerate's ValueError traceback, and the
      main process, loaded, went on to wait for it (until the ninety-second session). Both now refuse it as gone,
      and nothing is written;
    - a save that fails on the main process alone: the main process alone writes the export: its error, raised
      there before the barrier, left rank 1 waiting (gloo: "Connection closed by peer" after our message; NCCL: its
      timeout), the seventy-third session's review."""
    import shutil

    import nibabel as nib
    import numpy as np

    from accelerated_seg.run_lock import hold_run_folder

    busy = tmp_path / "busy"
    data = Path(shutil.copytree(Path(tiny_dataset).parent, tmp_path / "data"))
    listed = json.loads((data / "dataset.json").read_text())["training"]
    broken = [data / entry["label"] for entry in listed[:2]]  # the first case of each rank's share
    for path in broken:
        label = nib.load(path)
        nib.save(nib.Nifti1Image(np.full(label.shape, 7, np.uint8), label.affine), path)
    other, resumed = tmp_path / "other", tmp_path / "resumed"
    train(tiny_config(other, train__max_steps=2, train__val_every=0, train__save_every=1, train__keep_last=2))
    rotating = other / "checkpoints" / "step_1"
    runs = {"broken": tiny_overrides(data / "dataset.json", tmp_path / "broken_run"),
            "gone": tiny_overrides(tiny_dataset, resumed, **{"train.max_steps": 3, "train.val_every": 0,
                                                             "train.resume": str(rotating)}),
            "full_disk": tiny_overrides(tiny_dataset, tmp_path / "full_disk", **{"train.max_steps": 2,
                                                                                 "train.val_every": 0})}
    then = [[str(tmp_path / name), overrides] for name, overrides in runs.items()]
    live = hold_run_folder(busy)
    try:
        results = launch_two(tmp_path / "busy_result", tiny_overrides(tiny_dataset, busy, **{"train.max_steps": 2}),
                             env_extra={"THEN_RUNS": json.dumps(then), "GONE_AFTER_MAIN_LOADS": str(rotating),
                                        "FULL_DISK_AT_EXPORT": "1"}, expect_ok=False, timeout=300)
    finally:
        live.release()
    for r in results:
        assert not r["ok"] and f"{busy} is in use by another run (process {os.getpid()} on" in r["error"], r
    broken_results, gone, full_disk = ([json.loads(Path(f"{tmp_path / name}.rank{rank}.json").read_text())
                                        for rank in range(2)] for name in runs)
    assert broken_results[0]["error"] == broken_results[1]["error"]
    assert broken_results[0]["error"].startswith("DataError: ") and all(
        str(path) in broken_results[0]["error"] for path in broken)
    assert not (tmp_path / "broken_run" / "checkpoints").exists()
    for r in gone:
        assert not r["ok"] and r["error"].startswith(f"ConfigError: train.resume={str(rotating)!r} was removed after "
                                                     f"the resume found it ({other / 'checkpoints'} holds step_2; "), r
    assert not resumed.exists()
    for r in full_disk:
        assert not r["ok"] and r["error"].startswith("CheckpointNotSaved: saving the export model/"), r


# Global batch 4 on both sides; the first variant trains a DynUNet with a deep supervision head
# (losses.py), on both sides: every head's gradient is all-reduced like the rest. Without residual blocks:
# the first one's 1x1x1 shortcut convolution of the one-channel image, ahead of an instance norm, has one
# weight per channel, which the norm cancels, so its gradient is float noise too (as a bias's would be,
# below). The second variant reaches the global batch by accumulating 2 micro-batches of 1 per
# process, and compiles the model (in place, on the DDP wrapper: Dynamo's DDPOptimizer splits the
# graph at bucket boundaries), where skipping the all-reduce in no_sync must still work.
# The first variant's launch also serves test_ddp_trains_validates_each_case_once_and_exports (since the
# ninety-seventh session; each launch's start costs the suite seconds of its 2 cores): 4 steps, validating
# and saving every 2, with DDP options from the experiment config (static graph included), which reach
# DistributedDataParallel and leave its mean gradient as it was. (The deep supervision head had a launch
# of its own, beside a plain U-Net's, before: the compiled variant's U-Net keeps that network's parity.)
TWO_PROCESS_VARIANTS = {
    "ddp_deep_supervision": {
        "train.batch_size": 2, "train.max_steps": 4, "train.val_every": 2, "train.save_every": 2,
        "train.ddp.static_graph": "true", "train.ddp.gradient_as_bucket_view": "true", "train.ddp.bucket_cap_mb": 1,
        "model.name": "dynunet", "model.args": "{filters: [4, 8, 16], deep_supervision: true, res_block: false}"},
    "ddp_compiled_accumulating": {"train.batch_size": 1, "train.grad_accum_steps": 2,
                                  "train.compile.enabled": "true", "train.compile.backend": "aot_eager"},
}
# bias: false -- a conv bias followed by instance norm is cancelled by the normalisation, so its
# true gradient is 0 and only float noise is left, which Adam's m/sqrt(v) turns into full +-lr
# steps whose sign depends on reduction order. Every remaining parameter has a real gradient.
PARITY_COMMON = {"train.max_steps": 3, "train.val_every": 0, "train.save_every": 0,
                 "model.args": "{channels: [4, 8, 16], strides: [2, 2], num_res_units: 1, bias: false}"}
# What the one process takes from a variant: the network and the run's length, validation and saving.
_ONE_PROCESS_KEYS = ("train.max_steps", "train.val_every", "train.save_every")


def _launch_variant(variant: str, tiny_dataset, folder: Path, env_extra: dict | None = None) -> list[dict]:
    """A variant's 2-process run in ``folder``: its run in ``two``, first-step gradients in ``grads_two.rank<N>.pt``."""
    return launch_two(folder / "result",
                      tiny_overrides(tiny_dataset, folder / "two", **{**PARITY_COMMON, **TWO_PROCESS_VARIANTS[variant]}),
                      env_extra={"GRADS_OUT": str(folder / "grads_two"), **(env_extra or {})})


# The training loss's forward calls of the "ddp_deep_supervision" variant's run on each rank: 4 steps, one call per
# output of the network (the full-resolution one and the deep supervision head's).
DEEP_SUPERVISION_FORWARDS = 8


@pytest.fixture(scope="module")
def ddp_launch(tiny_dataset, tmp_path_factory) -> tuple[Path, list[dict]]:
    """The "ddp_deep_supervision" variant's launch, once for the tests of this module that read it; each rank's
    dropout seed in ``seed.rank<N>.txt``. Its processes then train test_non_finite_loss_on_one_rank_...'s run
    (THEN_RUNS; a launch of its own until the hundred-and-tenth session), into ``nan``, its result ``nan_result``:
    rank 1's loss is NaN in that run's second forward, the fault knob counting on from the variant's run; then the
    "ddp_compiled_accumulating" variant's run, as _launch_variant lays it out in ``compiled/`` (a launch of its own
    until the hundred-and-twelfth session; every run compiles its own network). Made once for both test processes
    of `pytest -n 2` (conftest.made_once_for_the_test_processes; until that session's review each made it where
    the tests were split, and the data of both is the same: write_synthetic_dataset's seed)."""
    def launch() -> list:
        folder = tmp_path_factory.mktemp("ddp")
        compiled = folder / "compiled"
        then = [[str(folder / "nan_result"), tiny_overrides(tiny_dataset, folder / "nan", **{
                    "train.max_steps": 3, "train.val_every": 0})],
                [str(compiled / "result"), tiny_overrides(tiny_dataset, compiled / "two", **{
                    **PARITY_COMMON, **TWO_PROCESS_VARIANTS["ddp_compiled_accumulating"]}),
                 {"GRADS_OUT": str(compiled / "grads_two")}]]
        return [str(folder), _launch_variant("ddp_deep_supervision", tiny_dataset, folder, {
            "SEED_OUT": str(folder / "seed"), "NAN_RANK": "1", "NAN_CALLS": str(DEEP_SUPERVISION_FORWARDS + 1),
            "THEN_RUNS": json.dumps(then)})]

    folder, results = made_once_for_the_test_processes(tmp_path_factory, "ddp_launch", launch)
    return Path(folder), results


def _variant_of_the_ddp_launch(ddp_launch, variant: str) -> tuple[Path, list[dict]]:
    """A variant's folder and results, each of ddp_launch's runs."""
    folder, results = ddp_launch
    if variant == "ddp_deep_supervision":
        return folder, results
    results = [json.loads((folder / "compiled" / f"result.rank{rank}.json").read_text()) for rank in range(2)]
    assert all(r["ok"] for r in results), [r.get("traceback") for r in results]
    return folder / "compiled", results


@pytest.mark.parametrize("variant", TWO_PROCESS_VARIANTS)
def test_two_processes_match_one_process_with_the_same_global_batch(tiny_dataset, tmp_path, monkeypatch, ddp_launch,
                                                                    variant):
    folder, results = _variant_of_the_ddp_launch(ddp_launch, variant)
    assert all(r["global_batch"] == 4 for r in results)
    from accelerated_seg.config import load_config

    from faults import record_first_step_gradients

    monkeypatch.setattr(torch.optim.AdamW, "step", torch.optim.AdamW.step)  # so that it is restored afterwards
    record_first_step_gradients(tmp_path / "grads_one.pt")
    one_process = {k: v for k, v in {**PARITY_COMMON, **TWO_PROCESS_VARIANTS[variant]}.items()
                   if k.startswith("model.") or k in _ONE_PROCESS_KEYS}
    summary = train(load_config(None, tiny_overrides(tiny_dataset, tmp_path / "one",
                                                     **{**one_process, "train.batch_size": 4})))

    # The logged loss is the global batch's mean on every rank: each read the sum over ranks
    # (sum_over_ranks.SumOverRanks, started before the backward and waited for after it).
    steps, losses = zip(*summary["losses"])
    for rank, r in enumerate(results):
        assert [step for step, _ in r["losses"]] == list(steps)
        torch.testing.assert_close(torch.tensor([loss for _, loss in r["losses"]]), torch.tensor(losses),
                                   rtol=1e-5, atol=1e-6, msg=f"rank {rank}: logged losses differ")

    # Gradients of the first step: DDP's all-reduced mean over 2 x 2 samples is the 4-sample gradient.
    one = torch.load(tmp_path / "grads_one.pt")
    for rank in range(2):
        two = torch.load(folder / f"grads_two.rank{rank}.pt")
        assert len(two) == len(one)
        for i, (a, b) in enumerate(zip(two, one)):
            torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-6, msg=f"rank {rank}: gradient {i} differs")
    # Parameters after the last fp32 step, within a tenth of one AdamW step (lr 1e-3): a rank that trained on its own
    # gradient, unreduced, moves them by whole steps. Adam's m/sqrt(v) turns the float noise of a gradient near 0
    # into a fraction of a step, which adds up over the steps: 1e-5 held for 3 steps and on the AMD hosts, but the
    # deep supervision variant's 4 steps (since the ninety-eighth session) differed by up to 4.0e-5 (its bottleneck's
    # convolutions) on the Xeon of family 6 model 167, where the first step's gradients still agreed to 1e-4.
    two = load_file(folder / "two" / "model" / "model.safetensors")
    one = load_file(tmp_path / "one" / "model" / "model.safetensors")
    for key in one:
        torch.testing.assert_close(two[key], one[key], rtol=0, atol=1e-4, msg=f"{key} differs")


def test_non_finite_loss_on_one_rank_is_skipped_by_both_without_a_hang(ddp_launch):
    folder, variant = ddp_launch
    out = folder / "nan"
    # the NaN armed for rank 1's forward DEEP_SUPERVISION_FORWARDS + 1 came in this run's second, as it had at
    # NAN_CALLS=1 in a launch of its own
    assert [r["training_forwards"] for r in variant] == [DEEP_SUPERVISION_FORWARDS] * 2, variant
    results = [json.loads((folder / f"nan_result.rank{rank}.json").read_text()) for rank in range(2)]
    assert all(r["ok"] for r in results), [r.get("traceback") for r in results]
    # 3 steps of 4 forwards on both ranks: the one whose loss was NaN on rank 1 skipped by both, and drawn again
    assert all(r["step"] == 3 and r["training_forwards"] == 4 for r in results), results
    weights = load_file(out / "model" / "model.safetensors")
    assert all(torch.isfinite(w).all() for w in weights.values())


_SCALER_RACE = '''
import json, os, sys, time
from pathlib import Path
import torch
import torch.multiprocessing as mp

OUT, PORT = Path(sys.argv[1]), sys.argv[2]


def worker(rank):
    os.environ.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE="2", LOCAL_WORLD_SIZE="2",
                      MASTER_ADDR="127.0.0.1", MASTER_PORT=PORT)
    from accelerate import Accelerator
    from accelerated_seg.checkpoint import save_training_state
    accelerator = Accelerator(cpu=True)
    model = torch.nn.Linear(4, 4)
    model, optimizer = accelerator.prepare(model, torch.optim.SGD(model.parameters(), lr=0.1))
    accelerator.scaler = torch.amp.GradScaler("cpu")  # accelerate's for fp16 on a GPU: every rank saves scaler.pt
    real, marks = torch.save, OUT / "marks"

    def wait_for(name):
        deadline = time.monotonic() + 60
        while not (marks / name).exists() and time.monotonic() < deadline:
            time.sleep(0.01)

    def save(obj, f, *args, **kwargs):  # rank 1 writes scaler.pt after the main process, and slowly
        if rank == 1 and str(f).endswith("scaler.pt"):
            wait_for("main wrote its scaler.pt")
            open(f, "wb").close()  # torch.save's open(f, "wb"): empty until written
            (marks / "rank 1 is writing").touch()
            time.sleep(2)
        real(obj, f, *args, **kwargs)
        if rank == 0 and str(f).endswith("scaler.pt"):
            (marks / "main wrote its scaler.pt").touch()
        if rank == 0 and str(f).endswith("random_states_0.pkl"):
            wait_for("rank 1 is writing")
    torch.save = save
    marks.mkdir(parents=True, exist_ok=True)
    save_training_state(accelerator, OUT / "checkpoints", 1, 1, "a: 1\\n")
    accelerator.end_training()
    # its files written, the rank leaves as the package's ranks do (cli.end_process): DDP keeps gloo's threads past
    # the group's end, and one aborted at interpreter exit, "terminate called without an active exception"
    # (SIGABRT, process 1, in the hundred-and-seventeenth session's interim CI beside four agents)
    from accelerated_seg.cli import end_process
    end_process(0)


if __name__ == "__main__":
    mp.spawn(worker, nprocs=2)
'''


def test_state_sizes_are_recorded_once_every_rank_has_written_its_files(tmp_path):
    """Every rank writes scaler.pt (fp16) and its random states: the main process, done with its own files,
    measured a scaler.pt another rank was still writing, recorded 0 bytes, and a resume then refused the
    sound checkpoint as damaged ("scaler.pt (1383 bytes where 0 were written)")."""
    from accelerated_seg.checkpoint_files import check_checkpoint_files

    script = tmp_path / "scaler_race.py"
    script.write_text(_SCALER_RACE)
    env = {**os.environ, "OMP_NUM_THREADS": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = run_bounded([sys.executable, str(script), str(tmp_path / "run"), str(_free_port())], env=env, timeout=240)
    assert proc.returncode == 0, proc.stderr[-3000:]
    step = tmp_path / "run" / "checkpoints" / "step_1"
    recorded = json.loads((step / "strategy.json").read_text())["state_bytes"]
    assert recorded["scaler.pt"] == (step / "scaler.pt").stat().st_size > 0
    check_checkpoint_files(step, whole_state=True)
