"""The memory this process can still take on the host: the machine's, or less under a job's limit.

Linux's ``MemAvailable`` says what the machine can give without swapping; swap is not added to it (predict's
memory refusal counts a floor of what a case holds, its peak 8.6-8.7 times that, and a volume paged to swap is swept
whole at every stage: docs/inference.md, "What the spacing checks judge"). A job started with a
memory limit (SLURM's ``--mem``, ``docker run --memory``, a Kubernetes limit) is held to its
memory cgroup's limit instead, and the kernel ends it there with SIGKILL however much the machine
has free: on a 512 GiB node a ``--mem=16G`` job was checked against the node (seventy-third
session's probe, from reading the code). So the room left under the cgroup's limit counts too.

That room is the limit less the cgroup's working set: its usage less the inactive file cache,
which the kernel reclaims before it kills (the working set kubelet and cAdvisor compare with the
limit). Both cgroup versions are read: v2's ``memory.max``/``memory.current``, v1's
``memory.limit_in_bytes``/``memory.usage_in_bytes``, at the process's own cgroup path
(``/proc/self/cgroup``) or, in a container whose cgroup namespace hides that path, at the root of
the mount.
"""

from __future__ import annotations

from pathlib import Path

#: A v1 limit at or above this is "no limit" (the kernel writes the largest page-aligned value).
_UNLIMITED = 2**60


def memory_available(meminfo: str = "/proc/meminfo", cgroup_root: str = "/sys/fs/cgroup",
                     own_cgroup: str = "/proc/self/cgroup") -> int | None:
    """Bytes this process can still take: the smaller of the machine's MemAvailable and the room under
    its memory cgroup's limit; None where neither says."""
    known = [b for b in (_meminfo_available(meminfo), cgroup_room(cgroup_root, own_cgroup)) if b is not None]
    return min(known) if known else None


def _meminfo_available(meminfo: str) -> int | None:
    try:
        with open(meminfo) as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024  # kB
    except (OSError, ValueError, IndexError):
        pass
    return None


def cgroup_room(cgroup_root: str = "/sys/fs/cgroup", own_cgroup: str = "/proc/self/cgroup") -> int | None:
    """Bytes left under this process's memory cgroup limits, the tightest of its cgroup's and its
    ancestors' (a SLURM job's limit sits on the job, above the step's cgroup); None without a limit."""
    rooms = []
    for folder, limit_file, usage_file in _memory_cgroups(Path(cgroup_root), own_cgroup):
        limit, usage = _read_bytes(folder / limit_file), _read_bytes(folder / usage_file)
        if limit is None or usage is None or limit >= _UNLIMITED:
            continue
        working_set = max(0, usage - _inactive_file(folder / "memory.stat"))
        rooms.append(max(0, limit - working_set))
    return min(rooms) if rooms else None


def _memory_cgroups(root: Path, own_cgroup: str):
    """(folder, limit file, usage file) of this process's memory cgroup and each of its ancestors, then
    of the mount's root (where a container's namespace shows its own cgroup)."""
    try:
        lines = Path(own_cgroup).read_text().splitlines()
    except OSError:
        lines = []
    for line in lines:  # "hierarchy-id:controllers:path"; v2's is "0::path"
        _, controllers, path = (line.split(":", 2) + ["", ""])[:3]
        if controllers == "":
            base, files = root, ("memory.max", "memory.current")
        elif "memory" in controllers.split(","):
            base, files = root / "memory", ("memory.limit_in_bytes", "memory.usage_in_bytes")
        else:
            continue
        folder = base / path.strip("/")
        for ancestor in (folder, *folder.parents):
            yield ancestor, *files
            if ancestor == base:
                break
    yield root, "memory.max", "memory.current"
    yield root / "memory", "memory.limit_in_bytes", "memory.usage_in_bytes"


def _read_bytes(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    if text == "max":  # v2: no limit
        return _UNLIMITED
    return int(text) if text.isdigit() else None


def _inactive_file(stat: Path) -> int:
    """The cgroup's inactive file cache (v2 ``inactive_file``, v1 ``total_inactive_file``), 0 if unread."""
    try:
        fields = dict(line.split()[:2] for line in stat.read_text().splitlines() if len(line.split()) >= 2)
    except OSError:
        return 0
    value = fields.get("total_inactive_file", fields.get("inactive_file", "0"))
    return int(value) if value.isdigit() else 0
