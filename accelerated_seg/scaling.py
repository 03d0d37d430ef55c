"""Expected DDP weak-scaling efficiency from one device's measured step: a ring all-reduce of the
gradients, overlapped with backward in DDP's buckets.

``accelerated-seg benchmark train`` measures the inputs (our loop's step time, the plain loop's
backward time, the gradients' bytes); ``benchmarks/scaling_projection.py`` turns them into the
2/4/8-GPU table in docs/performance.md for a given interconnect bandwidth.
"""

from __future__ import annotations

# DDP's default bucket size: the last bucket's all-reduce starts only after backward ends.
DDP_BUCKET_BYTES = 25 * 2**20


def ring_allreduce_seconds(gradient_bytes: float, gpus: int, bus_gb_s: float) -> float:
    """Bandwidth term of a ring all-reduce: each GPU sends and receives 2(N-1)/N of the bytes.
    Latency (microseconds per call) is left out: it is small next to tens of MB of gradients."""
    if gpus < 2:
        return 0.0
    return 2 * (gpus - 1) / gpus * gradient_bytes / (bus_gb_s * 1e9)


def weak_scaling_projection(step_s: float, backward_s: float, gradient_bytes: float, gpus: int, bus_gb_s: float,
                            bucket_bytes: float = DDP_BUCKET_BYTES) -> dict:
    """Expected DDP weak-scaling efficiency (per-GPU batch fixed) from one GPU's step.

    Without overlap, the step grows by the whole all-reduce. With overlap (DDP's buckets), the
    all-reduce runs during backward; what is left exposed is what does not fit into backward, and at
    least the last bucket, whose all-reduce can start only when backward ends. An upper bound: it
    assumes communication slows no computation and a bandwidth-bound all-reduce.
    """
    comm = ring_allreduce_seconds(gradient_bytes, gpus, bus_gb_s)
    last_bucket = ring_allreduce_seconds(min(bucket_bytes, gradient_bytes), gpus, bus_gb_s)
    exposed = max(comm - backward_s, last_bucket) if gpus > 1 else 0.0
    return {"gpus": gpus, "allreduce_ms": float(f"{comm * 1000:.4g}"),
            "efficiency_no_overlap": step_s / (step_s + comm), "efficiency_overlap": step_s / (step_s + exposed)}
