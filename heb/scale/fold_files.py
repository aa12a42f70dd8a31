"""Scoring on an in-process engine: every row's slots spilled once, one file per fold.

Scoring a fold needs its own models (seven smoothers over ~10^6 columns take hundreds of
MB per fold), so holding every fold's models through one scan does not fit in memory, and
scanning the source once per group of folds re-reads and re-encodes every row each time.
On DuckDB, whose batches arrive in this process anyway, the scoring scan instead writes
each row's *slots* (:class:`~heb.scale.encoding.FeatureValues`: the fold-independent index
of its raw value, so a row is encoded once) and its class as int32 to the file of its
fold. Each fold is then fitted, scored chunk by chunk from its file (a fold's code of a
slot is one gather, ``FoldEncoding.test_code[slot]``, the same code
``FoldEncoding.codes`` gives the raw value) and its metrics finished before the next fold
is fitted: one fold's models and accumulators live at a time. The files live in a
temporary folder (4 (F + 1) bytes per row), removed when the scoring is done.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pandas as pd

from heb.scale.counting import class_codes
from heb.scale.encoding import FeatureValues

__all__ = ["FoldFiles"]


class FoldFiles:
    """Per-fold files of (slot per feature, class index) rows, int32.

    Parameters
    ----------
    values : list of FeatureValues
        Every feature's slots (their dictionaries are enough).
    classes : ndarray (C,)
        The target's classes, in the histograms' order.
    n_folds : int
    folder : str or Path, optional
        Where to create the temporary folder (default: the system's temporary folder).
    """

    def __init__(self, values: list[FeatureValues], classes, n_folds: int, folder=None):
        self.values = values
        self.class_index = pd.Index(classes)
        self.n_folds = int(n_folds)
        self.width = len(values) + 1  # slots, then the class
        self.folder = Path(tempfile.mkdtemp(prefix="heb_folds_", dir=folder))
        self.rows = np.zeros(self.n_folds, dtype=np.int64)

    def path(self, fold: int) -> Path:
        """The file of one fold's rows."""
        return self.folder / f"fold_{int(fold)}.i32"

    def write(self, batches, on_batch: Callable[[int], None] | None = None) -> None:
        """Spill the rows of ``batches`` (Arrow batches of ``rows_query``) to their folds' files.

        ``on_batch(rows so far)`` follows every batch; raise from it to cancel.
        """
        handles = [open(self.path(k), "ab") for k in range(self.n_folds)]  # noqa: SIM115
        try:
            for batch in batches:
                fold = batch.column("__fold").to_numpy().astype(np.int64)
                block = np.empty((batch.num_rows, self.width), dtype=np.int32)
                for j, values in enumerate(self.values):
                    block[:, j] = values.slots_of_arrow(batch.column(values.name))
                y = batch.column("__y").to_pandas().to_numpy()
                block[:, -1] = class_codes(self.class_index, y)
                order = np.argsort(fold, kind="stable")
                sizes = np.bincount(fold, minlength=self.n_folds)
                ends = np.cumsum(sizes)
                for k in np.flatnonzero(sizes):
                    block[order[ends[k] - sizes[k] : ends[k]]].tofile(handles[k])
                self.rows += sizes
                if on_batch is not None:
                    on_batch(int(self.rows.sum()))
        finally:
            for handle in handles:
                handle.close()

    def chunks(
        self, fold: int, chunk_rows: int = 262_144
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """(slots (n, F), class indices (n,)) of a fold's rows, ``chunk_rows`` at a time."""
        path = self.path(fold)
        if not path.exists() or path.stat().st_size == 0:
            return  # a fold without rows
        stored = np.memmap(path, dtype=np.int32, mode="r").reshape(-1, self.width)
        for start in range(0, stored.shape[0], int(chunk_rows)):
            block = np.array(stored[start : start + int(chunk_rows)])
            yield block[:, :-1], block[:, -1]
        del stored

    def close(self) -> None:
        """Remove the files."""
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> FoldFiles:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
