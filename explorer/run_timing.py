"""Server-side time of each script run, for the browser test's timing table.

With the environment variable ``HEB_RUN_TIMES`` naming a file, every full script run of
``app.py`` appends one JSON line: the page's URL path, the wall-clock seconds and the CPU
seconds of the script's own thread (on a loaded machine the CPU time is the steadier
figure). Without the variable nothing is measured or written.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = ["RUN_TIMES_ENV", "ScriptRun", "record_run"]

RUN_TIMES_ENV = "HEB_RUN_TIMES"
_WRITE_LOCK = threading.Lock()


@dataclass
class ScriptRun:
    """One script run being timed; ``page`` is filled in once the route is known."""

    page: str = ""


@contextmanager
def record_run() -> Iterator[ScriptRun]:
    """Time the enclosed script run and append it to ``$HEB_RUN_TIMES`` (when set)."""
    run = ScriptRun()
    path = os.environ.get(RUN_TIMES_ENV)
    if not path:
        yield run
        return
    wall, cpu = time.perf_counter(), time.thread_time()
    try:
        yield run
    finally:  # a st.rerun / st.stop ends the run too
        line = {
            "page": run.page,
            "wall_s": round(time.perf_counter() - wall, 4),
            "cpu_s": round(time.thread_time() - cpu, 4),
        }
        with _WRITE_LOCK, open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(line) + "\n")
