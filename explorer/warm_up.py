"""Work a fresh server does once, started in the background at its first script run.

The engine's source revision (part of every result-cache key: a hash of the code of its
numeric modules) takes seconds to compute on a loaded machine; without a warm-up the
first visitor to Compare waited for it. A spare cross-validation worker is started too
(:func:`explorer.worker_pool.start_spare_worker`): it imports the engine and hashes the
revision in its own process, at a lower priority, so the first comparison skips that.
The server imports pandas' Styler here too (it compiles its templates on import: ~0.05 s
of every first table drawn with a style, such as Compare's metrics).
"""

from __future__ import annotations

import threading

__all__ = ["warm_up_in_background"]

_STARTED = threading.Event()
_START_LOCK = threading.Lock()


def _warm_up() -> None:
    from explorer.worker_pool import start_spare_worker
    from heb.evaluate.keys import engine_revision

    start_spare_worker()
    engine_revision()  # lru-cached for the process
    import pandas.io.formats.style  # noqa: F401 - imported once, here, not by a visitor


def warm_up_in_background() -> None:
    """Start the warm-up thread, once per process (later calls do nothing)."""
    with _START_LOCK:  # two first runs at once start one thread
        if _STARTED.is_set():
            return
        _STARTED.set()
    threading.Thread(target=_warm_up, name="heb-warm-up", daemon=True).start()
