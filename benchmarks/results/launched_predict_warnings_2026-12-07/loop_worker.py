"""Launched by probe.py (beside it) under ``accelerate launch`` on 2 CPU processes: predict_distributed called once
per job of a JSON list (a script's loop), this process's warnings noted as they are shown (``warnings._showwarnmsg``
wrapped: the filters untouched) and its changes of the filters counted (``warnings._filters_mutated`` wrapped), each
with the job's index; this rank's notes written to ``<prefix>.rank<N>.json``.

    loop_worker.py PREFIX '[{"model_dir": ..., "inputs": [...], "output": ..., "split": "cases"}, ...]'
"""
import json
import os
import sys
import traceback
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests"))
from faults import write_result_and_exit  # noqa: E402


def main() -> None:
    prefix, jobs = sys.argv[1], json.loads(sys.argv[2])
    rank = int(os.environ.get("RANK", "0"))
    notes = {"rank": rank, "shown": [], "filter_changes": [], "jobs": []}
    job_index = [-1]
    show, mutated = warnings._showwarnmsg, warnings._filters_mutated

    def shown(msg):
        notes["shown"].append([job_index[0], str(msg.message)[:90]])
        show(msg)

    def counted():
        frame, where = sys._getframe(1), "?"
        while frame is not None:
            if not frame.f_code.co_filename.endswith("warnings.py"):
                where = f"{Path(frame.f_code.co_filename).name}:{frame.f_code.co_name}"
                break
            frame = frame.f_back
        notes["filter_changes"].append([job_index[0], where])
        return mutated()

    warnings._showwarnmsg, warnings._filters_mutated = shown, counted
    try:
        from accelerated_seg.inference_distributed import predict_distributed, process_state

        state = process_state()
        for index, job in enumerate(jobs):
            job_index[0] = index
            lines = []
            predict_distributed(job.pop("model_dir"), job.pop("inputs"), job.pop("output"), accelerator=state,
                                progress=lines.append, **job)
            notes["jobs"].append(lines)
    except Exception as error:  # noqa: BLE001 - the probe reads it from the file
        notes["error"] = f"{type(error).__name__}: {error}\n{traceback.format_exc()}"
    write_result_and_exit(prefix, rank, notes)


if __name__ == "__main__":
    main()
