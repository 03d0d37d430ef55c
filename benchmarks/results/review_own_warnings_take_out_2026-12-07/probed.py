"""The own_warnings.py a probe of this folder runs against: the file given as its first argument, else the package's."""

import importlib.util
import sys


def own_warnings_of_the_argument():
    """own_warnings loaded from ``sys.argv[1]`` where given, else ``accelerated_seg.own_warnings``; its file printed."""
    path = sys.argv[1] if len(sys.argv) > 1 else None
    if path:
        spec = importlib.util.spec_from_file_location("own_warnings_probed", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    else:
        from accelerated_seg import own_warnings as module
    print(f"python {sys.version.split()[0]}; {module.__file__}")
    return module
