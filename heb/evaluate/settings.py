"""One frozen description of a run: what the cache keys on and what the app's URL holds.

:class:`RunSettings` names the dataset and every setting that changes a result (binning,
missing values, subsample size, folds, seed, per-method parameter overrides). Its
:meth:`~RunSettings.key` is the cache key of the run (with the engine revision folded in
by :func:`heb.evaluate.cache.cache_key`), and :meth:`~RunSettings.to_query` /
:meth:`~RunSettings.from_query` turn it into a flat dict of strings and back, so a URL
and a cache entry describe the same run the same way.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from heb import registry
from heb.data.binning import check_n_bins
from heb.evaluate.hierarchy_specs import hierarchies_text, parse_hierarchies
from heb.evaluate.keys import cache_key

__all__ = ["RunSettings", "MISSING_POLICIES"]

#: how missing values are encoded (:class:`heb.data.Preprocessor`)
MISSING_POLICIES = ("impute", "category")
_OVERRIDE_SEP, _PARAM_SEP, _VALUE_SEP = ";", ":", "="


def _whole(value: Any, name: str, low: int) -> int:
    """``value`` as an int no less than ``low``, or a one-sentence ValueError."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a whole number, got {value!r}.") from None
    if not math.isfinite(number) or number != int(number) or number < low:
        raise ValueError(f"{name} must be a whole number of at least {low}, got {value!r}.")
    return int(number)


def _freeze(overrides: Mapping[str, Mapping[str, float]] | None) -> tuple:
    """Per-method overrides as a sorted tuple of (method, ((param, value), ...))."""
    for method, params in (overrides or {}).items():
        if not isinstance(params, Mapping):
            raise ValueError(f"The overrides of {method!r} must map parameter names to values.")
    frozen = []
    # keyed by registered names: {"lidstone": ...} must reach Lidstone, a typo is refused
    for method, params in registry.method_overrides(overrides).items():
        pairs = []
        for name, value in params.items():
            try:
                number = float(value)
            except (TypeError, ValueError):
                raise ValueError(f"{method}: {name} must be a number, got {value!r}.") from None
            pairs.append((str(name), number))
        if pairs:
            frozen.append((method, tuple(sorted(pairs))))
    return tuple(sorted(frozen))


@dataclass(frozen=True)
class RunSettings:
    """Every input of a cross-validation run but the data itself.

    Parameters
    ----------
    dataset : str
        Where the data comes from (a spec such as ``"builtin:zip-codes"``); the URL holds it.
    fingerprint : str
        sha256 of the data (:meth:`heb.data.Dataset.fingerprint`): what the cache keys on
        when known. Computed, so never in the URL.
    n_bins : int
        Bins of numeric columns (at least 2).
    missing : str
        One of :data:`MISSING_POLICIES`.
    max_rows : int or None
        Stratified subsample size; ``None`` (or 0, read as ``None``) keeps every row.
    n_splits : int
        Folds (at least 2; fewer are used when a class is rarer).
    seed : int
        Seed of the fold shuffle.
    overrides : dict
        Method -> parameter overrides (``{"Lidstone": {"alpha": 0.5}}``); stored frozen
        and sorted, so equal settings hash equal in any order.
    hierarchies : str
        Declared category hierarchies (:mod:`heb.evaluate.hierarchy_specs`), canonical
        JSON; only the methods whose smoother takes a hierarchy (HEB-H) read them.
    """

    dataset: str = ""
    fingerprint: str = ""
    n_bins: int = 10
    missing: str = "impute"
    max_rows: int | None = 20_000
    n_splits: int = 10
    seed: int = 42
    overrides: tuple = field(default=())
    hierarchies: str = ""

    def __post_init__(self) -> None:
        set_ = object.__setattr__  # frozen: normalise in place once
        set_(self, "dataset", str(self.dataset))
        set_(self, "fingerprint", str(self.fingerprint))
        set_(self, "n_bins", check_n_bins(_whole(self.n_bins, "n_bins", 2)))  # <= MAX_BINS
        if self.missing not in MISSING_POLICIES:
            raise ValueError(
                f"missing must be one of {', '.join(MISSING_POLICIES)}, got {self.missing!r}."
            )
        if self.max_rows is not None:
            set_(self, "max_rows", _whole(self.max_rows, "max_rows", 0) or None)
        set_(self, "n_splits", _whole(self.n_splits, "n_splits", 2))
        set_(self, "seed", _whole(self.seed, "seed", 0))
        if isinstance(self.overrides, Mapping):
            set_(self, "overrides", _freeze(self.overrides))
        else:
            set_(self, "overrides", _freeze({m: dict(p) for m, p in self.overrides}))
        set_(self, "hierarchies", hierarchies_text(parse_hierarchies(self.hierarchies)))

    # ------------------------------------------------------------------ views
    def params(self) -> dict[str, dict[str, float]]:
        """The overrides as a plain ``{method: {param: value}}`` dict."""
        return {method: dict(pairs) for method, pairs in self.overrides}

    def data_settings(self) -> dict[str, Any]:
        """What the prepared folds depend on: the data and every setting but the overrides."""
        out = asdict(self)
        del out["overrides"], out["dataset"], out["hierarchies"]
        out["data"] = self.fingerprint or self.dataset
        del out["fingerprint"]
        return out

    def replace(self, **changes: Any) -> RunSettings:
        """A copy with ``changes`` applied (and validated)."""
        if "overrides" in changes and isinstance(changes["overrides"], Mapping):
            changes["overrides"] = _freeze(changes["overrides"])
        return replace(self, **changes)

    # ------------------------------------------------------------------ keys
    def key(self, *parts: Any) -> str:
        """The cache key of this run (and of ``parts``, e.g. one method's spec)."""
        extra = (self.hierarchies,) if self.hierarchies else ()
        return cache_key("run", self.data_settings(), self.params(), *extra, *parts)

    def data_key(self) -> str:
        """The key of the prepared folds: the overrides do not change them."""
        return cache_key("run-data", self.data_settings())

    def method_key(self, *parts: Any) -> str:
        """The key of one method's result (``parts``: its spec): other methods' overrides
        do not enter, so changing one method's parameter recomputes that method alone."""
        return cache_key("run-method", self.data_settings(), *parts)

    # ------------------------------------------------------------------ URL state
    def to_query(self) -> dict[str, str]:
        """A flat dict of strings for a URL (the fingerprint is computed, so left out)."""
        overrides = _OVERRIDE_SEP.join(
            f"{method}{_PARAM_SEP}{name}{_VALUE_SEP}{value!r}"
            for method, pairs in self.overrides
            for name, value in pairs
        )
        query = {
            "dataset": self.dataset,
            "n_bins": str(self.n_bins),
            "missing": self.missing,
            "max_rows": str(self.max_rows or 0),
            "folds": str(self.n_splits),
            "seed": str(self.seed),
        }
        if overrides:
            query["params"] = overrides
        if self.hierarchies:
            query["hierarchies"] = self.hierarchies
        return query

    @classmethod
    def from_query(cls, query: Mapping[str, str], **defaults: Any) -> RunSettings:
        """Settings from :meth:`to_query`'s dict; absent keys take ``defaults`` or the default.

        A malformed value is a one-sentence ValueError naming it.
        """
        values: dict[str, Any] = dict(defaults)
        for name, attribute in (
            ("dataset", "dataset"),
            ("n_bins", "n_bins"),
            ("missing", "missing"),
            ("max_rows", "max_rows"),
            ("folds", "n_splits"),
            ("seed", "seed"),
            ("hierarchies", "hierarchies"),
        ):
            if name in query:
                values[attribute] = query[name]
        if query.get("params"):
            values["overrides"] = _parse_overrides(str(query["params"]))
        return cls(**values)


def _parse_overrides(text: str) -> dict[str, dict[str, float]]:
    """``"Lidstone:alpha=0.5;TE:k0=3"`` -> ``{"Lidstone": {"alpha": 0.5}, "TE": {"k0": 3.0}}``."""
    out: dict[str, dict[str, float]] = {}
    for item in filter(None, text.split(_OVERRIDE_SEP)):
        method, sep, assignment = item.partition(_PARAM_SEP)
        name, eq, value = assignment.partition(_VALUE_SEP)
        if not (sep and eq and method and name):
            raise ValueError(f"A parameter override must read 'Method:name=value', got {item!r}.")
        try:
            out.setdefault(method, {})[name] = float(value)
        except ValueError:
            raise ValueError(f"{method}: {name} must be a number, got {value!r}.") from None
    return out
