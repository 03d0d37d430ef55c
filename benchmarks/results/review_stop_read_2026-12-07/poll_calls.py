"""Store calls a watcher's poll makes, and whether a slow store (each call SLOW_S) still gives its message within
ANSWER_S, for the code under PYTHONPATH
(main before h117: /tmp/r105_old, git archive 478c3cdc; h117: 55eba67d; r105: the review's fix).

    PYTHONPATH=<tree> python poll_calls.py
"""
import inspect
import time

import accelerated_seg.ranks_stop_together as rst


class Store:
    def __init__(self, keys, slow_s=0.0):
        self.keys, self.slow_s, self.calls = dict(keys), slow_s, 0

    def check(self, keys):
        self.calls += 1
        time.sleep(self.slow_s)
        return all(key in self.keys for key in keys)

    def get(self, key):
        self.calls += 1
        time.sleep(self.slow_s)
        return self.keys[key].encode()


def poll(store):
    """One poll as the watcher's run makes it (``_within(..., ANSWER_S)``; r105's ``_poll``)."""
    if hasattr(rst, "_poll"):
        return rst._poll(store, {})
    if len(inspect.signature(rst._polled).parameters) == 2:
        return rst._within(lambda: rst._polled(store, {}), rst.ANSWER_S)
    return rst._within(lambda: rst._polled(store), rst.ANSWER_S)


error = {rst.MESSAGE: "process 0: ValueError: a bug"}
sigterm = {rst.MESSAGE: "stopped by SIGTERM", rst.INTERRUPTED: "1", rst.STOPPED_BY: "15"}
for name, keys in [("no stop", {}), ("an error's stop", error), ("a SIGTERM's stop", sigterm)]:
    store = Store(keys)
    poll(store)
    print(f"{name}: {store.calls} store call(s) in the poll")
for slow_s in (0.1, 0.15, 0.2, 0.3):
    for name, keys in [("an error's stop", error), ("a SIGTERM's stop", sigterm)]:
        store, started = Store(keys, slow_s), time.monotonic()
        try:
            said = f"message read: {poll(store)!r}"
        except Exception as error_:  # noqa: BLE001
            said = f"poll raised {type(error_).__name__}: {error_} (the watcher takes the store for broken)"
        print(f"store call {slow_s} s, {name}: {said} after {time.monotonic() - started:.2f} s")
