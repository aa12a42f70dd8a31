"""Work a fresh server does once, started in the background at its first script run.

The engine's source revision (part of every result-cache key: a hash of the code of its
numeric modules) takes seconds to compute on a loaded machine; without a warm-up the
first visitor to Compare waited for it.
"""

from __future__ import annotations

import threading

__all__ = ["warm_up_in_background"]

_STARTED = threading.Event()
_START_LOCK = threading.Lock()


def _warm_up() -> None:
    from heb.evaluate.keys import engine_revision

    engine_revision()  # lru-cached for the process


def warm_up_in_background() -> None:
    """Start the warm-up thread, once per process (later calls do nothing)."""
    with _START_LOCK:  # two first runs at once start one thread
        if _STARTED.is_set():
            return
        _STARTED.set()
    threading.Thread(target=_warm_up, name="heb-warm-up", daemon=True).start()
