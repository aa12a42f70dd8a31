"""The paper's 31 benchmark datasets (section 5.1.1): names, OpenML ids, groups, targets."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from heb.data.shared import shared_dataset_names

# ---------------------------------------------------------------------------- catalogue
GROUPS = ("low-cardinality", "medium-numeric", "mixed", "high-cardinality")


@dataclass(frozen=True)
class CatalogueEntry:
    """One of the paper's 31 benchmark datasets.

    ``in_shared`` says whether ``../shared/datasets`` carries a copy (the manifest's 26);
    the others load from OpenML when online (or from a filled OpenML cache).
    """

    name: str
    openml_id: int | None
    group: str
    target: str | None
    in_shared: bool


def _entry(name: str, openml_id: int, group: str, target: str, in_shared: bool = True):
    return CatalogueEntry(name, openml_id, group, target, in_shared)


#: The paper's datasets (section 5.1.1 and its footnote), ids from the shared manifest
#: where it has them; splice, audiology, primary-tumor, nomao and click-prediction have no
#: shared copy (their ids and targets are OpenML's: 46, 7, 171, 1486, 1220).
CATALOGUE: list[CatalogueEntry] = [
    _entry("mushroom", 24, "low-cardinality", "class"),
    _entry("nursery", 26, "low-cardinality", "class"),
    _entry("kr-vs-kp", 3, "low-cardinality", "class"),
    _entry("splice", 46, "low-cardinality", "Class", in_shared=False),
    _entry("car", 21, "low-cardinality", "class"),
    _entry("tic-tac-toe", 50, "low-cardinality", "Class"),
    _entry("monks-problems-2", 334, "low-cardinality", "class"),
    _entry("vote", 56, "low-cardinality", "Class"),
    _entry("soybean", 42, "low-cardinality", "class"),
    _entry("audiology", 7, "low-cardinality", "class", in_shared=False),
    _entry("hayes-roth", 329, "low-cardinality", "class"),
    _entry("primary-tumor", 171, "low-cardinality", "class", in_shared=False),
    _entry("cmc", 23, "low-cardinality", "Contraceptive_method_used"),
    _entry("optdigits", 28, "medium-numeric", "class"),
    _entry("pendigits", 32, "medium-numeric", "class"),
    _entry("segment", 36, "medium-numeric", "class"),
    _entry("letter", 6, "medium-numeric", "class"),
    _entry("phoneme", 1489, "medium-numeric", "Class"),
    _entry("page-blocks", 30, "medium-numeric", "class"),
    _entry("sick", 38, "medium-numeric", "Class"),
    _entry("connect-4", 40668, "medium-numeric", "class"),
    _entry("wine-quality-white", 40498, "medium-numeric", "class"),
    _entry("bank-marketing", 1461, "medium-numeric", "Class"),
    _entry("electricity", 151, "medium-numeric", "class"),
    _entry("kropt", 184, "medium-numeric", "game"),
    _entry("magic", 1120, "medium-numeric", "class:"),
    _entry("adult", 1590, "mixed", "class"),
    _entry("credit-g", 31, "mixed", "class"),
    _entry("nomao", 1486, "high-cardinality", "Class", in_shared=False),
    _entry("amazon-employee-access", 4135, "high-cardinality", "target"),
    _entry("click-prediction", 1220, "high-cardinality", "click", in_shared=False),
]
CATALOGUE_BY_NAME = {entry.name: entry for entry in CATALOGUE}


def catalogue_frame(datasets_dir: str | Path | None = None) -> pd.DataFrame:
    """The catalogue as a table, with ``available`` = a shared copy exists right now."""
    present = set(shared_dataset_names(datasets_dir))
    frame = pd.DataFrame([entry.__dict__ for entry in CATALOGUE])
    frame["openml_id"] = frame["openml_id"].astype("Int64")
    frame["available"] = frame["name"].isin(present)
    return frame
