"""Build a network with its parameters on the meta device, in this thread alone.

An export's check builds its network to compare shapes with the file's header, without the weights' memory or
their initialisation. accelerate's ``init_empty_weights`` does it by replacing ``nn.Module.register_parameter``
for the whole process while it lasts, so a network built meanwhile in another thread (another model's load, a
predict's) got its parameters on the meta device too, and failed at its first predict in torch's "Cannot copy out
of meta tensor"; two such checks at once could even leave the replacement in place for good, each putting back
what it found. torch's own ``with torch.device("meta")`` is per thread but puts the buffers there too, and MONAI's
SwinUNETR computes with some of its buffers as it is built (``.item()``, which meta cannot do).

So one replacement, put in by the first thread that needs it and taken out by the last, under a lock, asks a
per-thread flag: the threads inside ``parameters_on_meta`` get their parameters moved to meta as they are
registered (buffers stay real, as with ``init_empty_weights``); every other thread's go through torch's own.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator

from torch import nn

_lock = threading.Lock()
_this_thread = threading.local()  # .inside: how deep this thread is in parameters_on_meta
_users = 0  # threads inside, the replacement in place while there is one
_torchs_own = None  # nn.Module.register_parameter as found by the first of them


def _register_parameter(module: nn.Module, name: str, param) -> None:
    _torchs_own(module, name, param)
    if param is not None and getattr(_this_thread, "inside", 0):
        registered = module._parameters[name]
        module._parameters[name] = type(registered)(registered.to("meta"), requires_grad=param.requires_grad)


@contextmanager
def parameters_on_meta() -> Iterator[None]:
    """Inside it, the parameters of the modules this thread builds are on the meta device; other threads' are
    not touched."""
    global _users, _torchs_own
    with _lock:
        if _users == 0:
            _torchs_own = nn.Module.register_parameter
            nn.Module.register_parameter = _register_parameter
        _users += 1
    _this_thread.inside = getattr(_this_thread, "inside", 0) + 1
    try:
        yield
    finally:
        _this_thread.inside -= 1
        with _lock:
            _users -= 1
            if _users == 0:
                nn.Module.register_parameter = _torchs_own
