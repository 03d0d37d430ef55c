"""Run by the distributed prediction tests under ``accelerate launch``: ``predict_distributed`` for
each job of a JSON list, then write this rank's outcome to ``<prefix>.rank<N>.json``.

    infer_worker.py PREFIX '[{"model_dir": ..., "inputs": [...], "output": ..., "split": "cases"}, ...]'
"""

import json
import os
import sys
import traceback

from accelerated_seg.collector import importing_without_collection
from faults import write_result_and_exit  # tests/ is this script's folder


def main() -> None:
    prefix, jobs = sys.argv[1], json.loads(sys.argv[2])
    rank = int(os.environ.get("RANK", "0"))
    result = {"ok": True, "rank": rank, "jobs": []}
    try:
        with importing_without_collection():  # as predict imports the stack (collector.py says why)
            from accelerated_seg.inference_distributed import predict_distributed, process_state

        state = process_state()
        result.update(num_processes=state.num_processes, device=str(state.device))
        for job in jobs:
            lines = []
            written = predict_distributed(job.pop("model_dir"), job.pop("inputs"), job.pop("output"),
                                          accelerator=state, progress=lines.append, **job)
            result["jobs"].append({"written": [str(p) for p in written], "lines": lines})
    except Exception as error:  # noqa: BLE001 - the test reads the error from the file
        result = {"ok": False, "error": f"{type(error).__name__}: {error}", "traceback": traceback.format_exc()}
    write_result_and_exit(prefix, rank, result)


if __name__ == "__main__":
    main()
