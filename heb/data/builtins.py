"""Offline datasets (no network, no ``../shared``): zip-codes, known-truth, sklearn's."""

from __future__ import annotations

import numpy as np
import pandas as pd

from heb.data.dataset import DataError, Dataset, finalize, quote
from heb.synthetic import high_cardinality_preset, sample_naive_bayes

# ---------------------------------------------------------------------------- built-ins
BUILTIN_DATASETS: tuple[str, ...] = (
    "zip-codes",
    "known-truth",
    "iris",
    "wine",
    "breast-cancer",
    "digits",
)
DEFAULT_DATASET = "zip-codes"

_WEEKDAYS = np.array(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"], dtype=object)
_CHANNELS = np.array(["web", "app", "phone", "store"], dtype=object)
_DEVICES = np.array(["desktop", "mobile", "tablet"], dtype=object)


def _zip_codes_dataset(n_samples: int = 5000, seed: int = 0) -> Dataset:
    codes, y, truth = high_cardinality_preset(n_samples=n_samples, seed=seed)
    names = truth["feature_names"]
    n_cat = dict(zip(names, truth["n_categories"].tolist(), strict=True))
    rng = np.random.default_rng([seed, 5])
    zips = 1001 + rng.choice(98_000, size=n_cat["zip_code"], replace=False)
    zip_labels = np.array([f"{z:05d}" for z in zips], dtype=object)
    hashes = rng.choice(16**8, size=n_cat["ip_hash"], replace=False)
    hash_labels = np.array([f"{h:08x}" for h in hashes], dtype=object)
    column = {name: codes[:, f] for f, name in enumerate(names)}
    frame = pd.DataFrame(
        {
            "zip_code": pd.array(zip_labels[column["zip_code"]], dtype="str"),
            "user_id": 100_000 + column["user_id"],
            "store_id": 1 + column["store_id"],
            "product_id": 500_000 + 7 * column["product_id"],
            "ip_hash": pd.array(hash_labels[column["ip_hash"]], dtype="str"),
            # ordered: the week's order, which the evidence lesson draws its bars in (the
            # encoder's codes stay sorted: Fri, Mon, Sat, ...)
            "weekday": pd.Categorical.from_codes(column["weekday"], _WEEKDAYS, ordered=True),
            "channel": pd.array(_CHANNELS[column["channel"]], dtype="str"),
            "device": pd.array(_DEVICES[column["device"]], dtype="str"),
            "bought": pd.array(np.array(["no", "yes"], dtype=object)[y], dtype="str"),
        }
    )
    return finalize(
        frame,
        "bought",
        name="zip-codes",
        source="builtin:zip-codes",
        description=(
            f"{n_samples:,} synthetic shop visits: did the visitor buy? ZIP code, user, store, "
            "product and IP hash with thousands of Zipf-distributed categories each, where "
            "learned smoothing matters most."
        ),
        truth=truth,
    )


def _known_truth_dataset(n_samples: int = 3000, seed: int = 0) -> Dataset:
    n_categories = (2, 3, 5, 10, 25, 50, 100, 250)
    codes, y, truth = sample_naive_bayes(
        n_samples,
        n_categories,
        n_classes=3,
        alpha_dir=0.5,
        class_weights=(0.5, 0.3, 0.2),
        seed=seed,
    )
    columns = {}
    for f, k in enumerate(n_categories):
        labels = np.array([f"v{v:03d}" for v in range(k)], dtype=object)
        columns[f"x{f + 1}_K{k}"] = pd.array(labels[codes[:, f]], dtype="str")
    columns["class"] = pd.array(np.array(["A", "B", "C"], dtype=object)[y], dtype="str")
    truth = {**truth, "feature_names": list(columns)[:-1], "class_names": ["A", "B", "C"]}
    return finalize(
        pd.DataFrame(columns),
        "class",
        name="known-truth",
        source="builtin:known-truth",
        description=(
            f"{n_samples:,} rows drawn from a Naive Bayes model with known parameters "
            "(3 classes, 8 features with 2 to 250 categories, Dirichlet(0.5) conditionals)."
        ),
        truth=truth,
    )


_SKLEARN_TITLES = {
    "iris": "Iris plants (150 flowers, 4 measurements, 3 species)",
    "wine": "Wine recognition (178 wines, 13 chemical measurements, 3 cultivars)",
    "breast-cancer": "Breast cancer Wisconsin (569 tumours, 30 measurements, 2 diagnoses)",
    "digits": "handwritten digits (1,797 images of 8 x 8 pixels, 10 digits)",
}


def _sklearn_dataset(name: str) -> Dataset:
    from sklearn import datasets as skd

    loader = {
        "iris": skd.load_iris,
        "wine": skd.load_wine,
        "breast-cancer": skd.load_breast_cancer,
        "digits": skd.load_digits,
    }[name]
    bunch = loader(as_frame=True)
    frame = bunch.frame.copy()
    target_column = bunch.target.name
    names = np.asarray(bunch.target_names).astype(str)
    if name != "digits":
        frame[target_column] = pd.array(names[bunch.target.to_numpy()], dtype="str")
    return finalize(
        frame,
        target_column,
        name=name,
        source=f"builtin:{name}",
        description=f"scikit-learn's bundled {_SKLEARN_TITLES[name]} dataset.",
    )


def load_builtin(name: str = DEFAULT_DATASET) -> Dataset:
    """An offline dataset that needs neither network nor ``../shared``.

    Parameters
    ----------
    name : str
        One of :data:`BUILTIN_DATASETS`: ``"zip-codes"`` (5,000 rows, the high-cardinality
        preset and the app's default), ``"known-truth"`` (a Naive Bayes sample with its true
        parameters in ``Dataset.truth``), or scikit-learn's ``"iris"``, ``"wine"``,
        ``"breast-cancer"``, ``"digits"``.
    """
    if name == "zip-codes":
        return _zip_codes_dataset()
    if name == "known-truth":
        return _known_truth_dataset()
    if name in BUILTIN_DATASETS:
        return _sklearn_dataset(name)
    raise DataError(
        f"There is no built-in dataset named {quote(name)}; choose one of "
        f"{', '.join(BUILTIN_DATASETS)}."
    )
