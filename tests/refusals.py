"""A command's refusal checked for what it imported first: the command runs as the interpreter runs
it, then prints which of torch, MONAI and accelerate it had imported. A refusal from the arguments or
the file system alone imports none of them, so it comes at once rather than after the 8-15 s that
importing them takes each process on 2 cores."""

from __future__ import annotations

import json
import os
import subprocess
import sys

STACK = ("torch", "monai", "accelerate")
_PROBE = """import json, runpy, sys
kind, target = sys.argv[1:3]
sys.argv = sys.argv[2:]
try:
    if kind == "module":
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    else:
        runpy.run_path(target, run_name="__main__")
finally:
    print(json.dumps(sorted(set(%r) & set(sys.modules))))
""" % (STACK,)


def run_probing_imports(target: str, *args: str, module: bool = False,
                        env: dict | None = None) -> tuple[subprocess.CompletedProcess, list[str]]:
    """Run the script ``target`` (or, with ``module``, ``python -m target``) with ``args``; return the
    finished process and the stack's modules it had imported by the end."""
    proc = subprocess.run([sys.executable, "-c", _PROBE, "module" if module else "path", target, *args],
                          env=env or os.environ, capture_output=True, text=True, timeout=120)
    lines = proc.stdout.strip().splitlines()
    imported = json.loads(lines[-1]) if lines else None
    return proc, imported
