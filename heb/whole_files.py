"""Files written whole or not at all: a temporary file beside the target, renamed over it.

``heb bench`` writes its tables, ``folds.csv`` and figures into a folder the user reads
while a run may still be stopped (Ctrl-C, SIGTERM, a full disk): a file written in place
was left half-written, a CSV cut mid-row that read as a shorter table. ``os.replace`` is
atomic within one filesystem, so a reader finds the earlier file or the new one, whole.
The figure cache, ``make-data``'s parquet file and Spark's log settings are written so too.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

__all__ = ["copy_whole", "whole_file"]


@contextlib.contextmanager
def whole_file(path: str | Path) -> Iterator[Path]:
    """A hidden temporary path beside ``path`` to write to, renamed to ``path`` when the
    block ends without an exception and removed when it raises (Ctrl-C too; an OSError of
    the temporary file is raised as one of ``path``).

    Its name keeps no suffix of ``path`` (``.folds.csv.<hex>.part``), so pandas infers
    no compression from it.
    """
    path = Path(path)
    temp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:12]}.part")
    try:
        yield temp
        os.replace(temp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            temp.unlink()
        if isinstance(exc, OSError) and exc.filename in (str(temp), temp):
            # the error names the file the user asked for, not its temporary name
            raise OSError(exc.errno, exc.strerror, str(path)) from exc
        raise


def copy_whole(source: str | Path, path: str | Path) -> None:
    """``shutil.copyfile(source, path)``, with ``path`` written whole or not at all."""
    with whole_file(path) as temp:
        shutil.copyfile(source, temp)
