"""The memory this process can still take on the host (host_memory.py): the machine's MemAvailable, or the
room under a job's cgroup limit. Here since the ninety-sixth session; in test_plan.py before."""

import pytest

from accelerated_seg.host_memory import cgroup_room, memory_available


def test_host_memory_is_read_from_meminfo_and_unknown_where_there_is_none(tmp_path):
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       24576000 kB\nMemFree:         1000000 kB\nMemAvailable:   20000000 kB\n")
    no_cgroup = {"cgroup_root": str(tmp_path / "no_cgroup"), "own_cgroup": str(tmp_path / "no_cgroup")}
    assert memory_available(str(meminfo), **no_cgroup) == 20000000 * 1024
    assert memory_available(str(tmp_path / "none"), **no_cgroup) is None


def test_swap_does_not_count_as_memory_available(tmp_path):
    """predict's memory refusal (and the CPU step fit) count what Linux gives without swapping: the refusal's figure
    is a floor, the prediction's peak 8.6-8.7 times it, each stage sweeping the whole volume (docs/inference.md,
    "What the spacing checks judge"), so a volume that fits only with swap would page all of it at every stage."""
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:        8000000 kB\nMemAvailable:    2000000 kB\nSwapTotal:      64000000 kB\n"
                       "SwapFree:       64000000 kB\n")
    no_cgroup = {"cgroup_root": str(tmp_path / "no_cgroup"), "own_cgroup": str(tmp_path / "no_cgroup")}
    assert memory_available(str(meminfo), **no_cgroup) == 2000000 * 1024


def _cgroup_files(folder, **files):
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name.replace("_", ".", 1)).write_text(text)


@pytest.mark.parametrize("version", ["v2", "v1"])
def test_a_jobs_memory_limit_counts_as_the_memory_available(tmp_path, version):
    """A SLURM --mem job (its limit on the job's cgroup, above the step's) is killed at that limit
    however much the machine has free: the room under it, its usage less the reclaimable inactive
    file cache, is the memory available (seventy-third session)."""
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemAvailable:   500000000 kB\n")  # a 512 GB node with ~477 GiB free
    root, gib = tmp_path / "cgroup", 2**30
    if version == "v2":
        (tmp_path / "self").write_text("0::/slurm/job_7/step_0\n")
        job, step = root / "slurm" / "job_7", root / "slurm" / "job_7" / "step_0"
        _cgroup_files(job, memory_max=str(16 * gib), memory_current=str(10 * gib), memory_stat=f"inactive_file {gib}\n")
        _cgroup_files(step, memory_max="max", memory_current=str(9 * gib))
    else:
        (tmp_path / "self").write_text("9:pids:/\n4:memory:/slurm/job_7/step_0\n")
        job, step = root / "memory" / "slurm" / "job_7", root / "memory" / "slurm" / "job_7" / "step_0"
        _cgroup_files(job, memory_limit_in_bytes=str(16 * gib), memory_usage_in_bytes=str(10 * gib),
                      memory_stat=f"total_inactive_file {gib}\n")
        _cgroup_files(step, memory_limit_in_bytes=str(2**63 - 4096), memory_usage_in_bytes=str(9 * gib))
    cgroup = {"cgroup_root": str(root), "own_cgroup": str(tmp_path / "self")}
    assert memory_available(str(meminfo), **cgroup) == 7 * gib  # 16 GiB less a working set of 10 - 1
    assert cgroup_room(**cgroup) == 7 * gib
    (job / ("memory.max" if version == "v2" else "memory.limit_in_bytes")).write_text(
        "max" if version == "v2" else str(2**63 - 4096))  # no limit anywhere: the machine's figure
    assert cgroup_room(**cgroup) is None and memory_available(str(meminfo), **cgroup) == 500000000 * 1024
