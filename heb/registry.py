"""The one registry of smoothers, methods and metrics: plain data every layer reads.

Smoothing, :class:`~heb.nb.NaiveBayes`'s validation, the CV protocol, the figures, the
CLI tables, the lessons and the app's pages all read these tables; none keeps its own
list of names, labels, colours, defaults or directions.

Adding a smoother touches two places: a :class:`Smoother` entry here (its NB method,
label, colour and Compare knob follow from it) and, only when its formula is new, a
rule registered with :func:`heb.smoothing.register_rule` (a parameter under a new name
also needs an argument of :class:`~heb.nb.NaiveBayes`, whose constructor scikit-learn
wants explicit; ``alpha``, ``m`` and ``k0`` exist). Adding a metric touches two
places: its function and a :class:`Metric` entry. At run time
:func:`register_smoother` / :func:`register_method` / :func:`register_metric` do the same.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

from heb import metrics as _metrics

__all__ = [
    "Param",
    "Smoother",
    "Method",
    "Metric",
    "SMOOTHERS",
    "METHODS",
    "METRICS",
    "FAMILIES",
    "TABLE1_METHODS",
    "register_smoother",
    "register_method",
    "register_metric",
    "smoother",
    "method",
    "metric",
    "method_of_smoother",
    "resolve_method_name",
    "method_names",
    "method_overrides",
    "overrides_of_run",
    "compute_metrics",
    "smoother_param_names",
    "HIGHER_IS_BETTER",
    "METRIC_LABELS",
    "unregister",
]

#: model families an entry of :data:`METHODS` can name
FAMILIES = ("nb", "aode", "tan", "reference")
#: prior means a smoother can shrink toward (:func:`heb.smoothing.prior_mean`)
PRIORS = ("uniform", "marginal")


@dataclass(frozen=True)
class Param:
    """A numeric hyper-parameter: default, accepted closed range, what-if choices."""

    name: str
    default: float
    low: float
    high: float
    label: str
    #: the values the Compare page's what-if control offers
    choices: tuple[float, ...] = ()

    def check(self, value: float, owner: str) -> float:
        """``value`` as a float, or a ValueError naming ``owner`` and the range.

        Text and booleans are refused, as ``n0`` and the clamp are: ``float`` read
        ``alpha="0.5"`` as 0.5 and ``alpha=True`` as 1.
        """
        try:
            if isinstance(value, str | bytes | bool | np.bool_):
                raise TypeError
            number = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"{owner}: {self.name} must be a number, got {value!r}.") from None
        if not (self.low <= number <= self.high):  # also refuses NaN
            raise ValueError(
                f"{owner}: {self.name} must lie in [{self.low:g}, {self.high:g}], got {value!r}."
            )
        return number


@dataclass(frozen=True)
class Smoother:
    """A smoother of :mod:`heb.smoothing`: which rule, toward which prior mean.

    ``fixed`` holds rule inputs that are not user parameters (Laplace is the additive
    rule with alpha fixed at 1). ``colour`` and ``description`` describe its NB method.
    """

    name: str
    label: str
    rule: str
    prior: str
    colour: str
    description: str
    params: tuple[Param, ...] = ()
    fixed: Mapping[str, float] = field(default_factory=dict)
    #: shown among the paper's seven (Table 1) smoothers
    paper: bool = False

    def defaults(self) -> dict[str, float]:
        """Parameter defaults by name."""
        return {p.name: p.default for p in self.params}


@dataclass(frozen=True)
class Method:
    """A named method of the CV protocol, the app and the CLI.

    ``params`` are the estimator's constructor arguments. ``knob`` names the one
    parameter the Compare page offers as a what-if control (``None``: no control).
    """

    name: str
    family: str
    params: Mapping[str, object]
    colour: str
    description: str
    knob: Param | None = None
    aliases: tuple[str, ...] = ()
    #: a model an analyst would otherwise use, shown as a reference (not smoothing)
    reference: bool = False


@dataclass(frozen=True)
class Metric:
    """A fold metric: ``compute(y, proba) -> float``, its labels and direction."""

    name: str
    label: str
    title: str
    higher_is_better: bool
    compute: Callable
    description: str


_SMOOTHERS: dict[str, Smoother] = {}
_METHODS: dict[str, Method] = {}
_METRICS: dict[str, Metric] = {}
#: read-only views: register through the functions below
SMOOTHERS: Mapping[str, Smoother] = MappingProxyType(_SMOOTHERS)
METHODS: Mapping[str, Method] = MappingProxyType(_METHODS)
METRICS: Mapping[str, Metric] = MappingProxyType(_METRICS)


def register_smoother(entry: Smoother, *, with_method: bool = True) -> Smoother:
    """Add a smoother (and, by default, its NB method under ``entry.label``)."""
    if entry.prior not in PRIORS:
        raise ValueError(f"{entry.name}: prior must be one of {PRIORS}, got {entry.prior!r}.")
    if entry.name in _SMOOTHERS:
        raise ValueError(f"A smoother named {entry.name!r} is registered already.")
    _SMOOTHERS[entry.name] = entry
    if with_method:
        register_method(
            Method(
                name=entry.label,
                family="nb",
                params={"smoother": entry.name},
                colour=entry.colour,
                description=entry.description,
                knob=entry.params[0] if entry.params else None,
                aliases=(entry.name,),
            )
        )
    return entry


def register_method(entry: Method) -> Method:
    """Add a method; its name and aliases must be new."""
    if entry.family not in FAMILIES:
        raise ValueError(f"{entry.name}: family must be one of {FAMILIES}, got {entry.family!r}.")
    taken = {_key(n) for m in _METHODS.values() for n in (m.name, *m.aliases)}
    for name in (entry.name, *entry.aliases):
        if _key(name) in taken:
            raise ValueError(f"A method named {name!r} is registered already.")
    _METHODS[entry.name] = entry
    return entry


def register_metric(entry: Metric) -> Metric:
    """Add a fold metric."""
    if entry.name in _METRICS:
        raise ValueError(f"A metric named {entry.name!r} is registered already.")
    _METRICS[entry.name] = entry
    return entry


def unregister(kind: str, name: str) -> None:
    """Remove an entry (``kind`` is ``"smoother"``, ``"method"`` or ``"metric"``); for tests."""
    table = {"smoother": _SMOOTHERS, "method": _METHODS, "metric": _METRICS}[kind]
    table.pop(name, None)
    if kind == "smoother":
        for key in [k for k, m in _METHODS.items() if m.params.get("smoother") == name]:
            _METHODS.pop(key)


def _key(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum() or ch == "+")


def smoother(name: str) -> Smoother:
    """The smoother called ``name``, or a ValueError listing the known ones.

    Case, spaces, hyphens and underscores do not matter: ``"HEB-M"`` (the display
    label), ``"heb_m"`` and ``"heb-m"`` are one smoother.
    """
    try:
        return _SMOOTHERS[name]
    except (KeyError, TypeError):
        wanted = _key(name) if isinstance(name, str) else None
        for entry in _SMOOTHERS.values():
            if wanted == _key(entry.name):
                return entry
        known = ", ".join(_SMOOTHERS)
        hint = _not_a_smoother(name) if isinstance(name, str) else ""
        raise ValueError(f"Unknown smoother {name!r}; choose one of {known}.{hint}") from None


#: the estimator class of each method family that is not a Naive Bayes smoother
_FAMILY_CLASS = {"aode": "heb.AODE", "tan": "heb.TAN"}


def _not_a_smoother(name: str) -> str:
    """What to write instead when ``name`` is a method of the app, not a smoother:
    ``NaiveBayes(smoother="TAN")`` and ``NaiveBayes(smoother="HEB-M+GR")`` said only
    "Unknown smoother", though both are in the app's own list of methods."""
    if _key(name) == _key("heb"):  # AODE's and TAN's name of their HEB smoothing
        return (
            " 'heb' is AODE's and TAN's name of HEB smoothing; a NaiveBayes smoother "
            "says its prior mean: 'heb-m' (pooled marginal) or 'heb-u' (uniform)."
        )
    try:
        entry = _METHODS[resolve_method_name(name)]
    except ValueError:
        return ""
    args = ", ".join(f"{key}={value!r}" for key, value in entry.params.items())
    if entry.family == "nb":
        return f" {entry.name} is NaiveBayes({args})."
    if entry.family in _FAMILY_CLASS:
        return f" {entry.name} is a model of its own: {_FAMILY_CLASS[entry.family]}({args})."
    return f" {entry.name} is a reference model (scikit-learn), not a smoother."


def resolve_method_name(name: str) -> str:
    """The registered display name for ``name`` or one of its aliases (case-insensitive)."""
    wanted = _key(str(name))
    for entry in _METHODS.values():
        if wanted in {_key(n) for n in (entry.name, *entry.aliases)}:
            return entry.name
    raise ValueError(f"Unknown method {name!r}; choose from {', '.join(_METHODS)}.")


def method_names(names: Iterable[str]) -> list[str]:
    """The registered display names of ``names`` (aliases, any case), each once, in order.

    ``["laplace", "Laplace", "lidstone"]`` gives ``["Laplace", "Lidstone"]``; one name
    alone is one method (``"HEB-M"``, not its letters); an unknown name is a ValueError
    listing the known ones.
    """
    if isinstance(names, str):
        names = [names]
    return list(dict.fromkeys(resolve_method_name(name) for name in names))


def method_overrides(
    params: Mapping[str, Mapping[str, Any]] | None, keep: Iterable[str] = ()
) -> dict[str, dict[str, Any]]:
    """Per-method parameter overrides keyed by registered display names.

    A key in ``keep`` (a caller's own label) stays as it is; any other key is resolved
    as :func:`resolve_method_name` does (so ``{"lidstone": ...}`` reaches "Lidstone",
    and a misspelt method is a ValueError, never an override silently dropped). Keys
    naming one method are merged, later keys winning.
    """
    labels = set(keep)
    out: dict[str, dict[str, Any]] = {}
    for name, values in (params or {}).items():
        key = name if name in labels else resolve_method_name(name)
        out[key] = {**out.get(key, {}), **dict(values or {})}
    return out


def overrides_of_run(
    params: Mapping[str, Mapping[str, Any]] | None,
    methods: Iterable[str],
    keep: Iterable[str] = (),
) -> dict[str, dict[str, Any]]:
    """:func:`method_overrides` of ``params`` for a run of ``methods`` (registered names
    or labels in ``keep``), refusing values for a method the run leaves out.

    ``cross_validate(data, ["Laplace"], params={"Lidstone": {"alpha": 0.5}})`` ran
    Laplace alone and dropped the alpha without a word, so the value seemed used. A key
    with no values sets nothing and passes, and so does any key of a run of no method
    (the caller's "choose a method" says what is wrong).

    Raises
    ------
    ValueError
        One sentence naming the methods given values but not run, and those run.
    """
    run = list(methods)
    out = method_overrides(params, keep)
    extra = [name for name, values in out.items() if values and name not in run]
    if extra and run:
        one = len(extra) == 1
        raise ValueError(
            f"params set {', '.join(extra)}, which {'is' if one else 'are'} not among the "
            f"methods run ({', '.join(run)}): add {'it' if one else 'them'} to methods or "
            f"leave {'its' if one else 'their'} values out of params."
        )
    return out


def method(name: str) -> Method:
    """The method called ``name`` (display name or alias)."""
    return _METHODS[resolve_method_name(name)]


def metric(name: str) -> Metric:
    """The metric called ``name``."""
    try:
        return _METRICS[name]
    except KeyError:
        raise ValueError(f"Unknown metric {name!r}; choose from {', '.join(_METRICS)}.") from None


def method_of_smoother(name: str) -> Method:
    """The plain NB method of smoother ``name``."""
    return method(smoother(name).label)


def smoother_param_names() -> frozenset[str]:
    """Every hyper-parameter name some registered smoother takes."""
    return frozenset(p.name for s in _SMOOTHERS.values() for p in s.params)


def compute_metrics(y, proba) -> dict[str, float]:
    """Every registered metric of one fold, by name, in registry order.

    The built-in metrics come from one validated pass of :func:`heb.metrics.all_metrics`
    (while their entries still hold the built-in functions); any other metric is
    computed by its own ``compute``.
    """
    fast = _metrics.all_metrics(y, proba)
    return {
        name: fast[name]
        if _BUILTIN_COMPUTE.get(name) is entry.compute
        else float(entry.compute(y, proba))
        for name, entry in _METRICS.items()
    }


class _FieldView(Mapping):
    """A live, read-only ``name -> getattr(entry, field)`` view of a registry table."""

    def __init__(self, table: Mapping, field_name: str):
        self._table, self._field = table, field_name

    def __getitem__(self, name: str):
        return getattr(self._table[name], self._field)

    def __iter__(self):
        return iter(self._table)

    def __len__(self) -> int:
        return len(self._table)


#: metric name -> True when higher is better (live view of :data:`METRICS`)
HIGHER_IS_BETTER: Mapping[str, bool] = _FieldView(_METRICS, "higher_is_better")
#: metric name -> its short label in tables and figures (live view of :data:`METRICS`)
METRIC_LABELS: Mapping[str, str] = _FieldView(_METRICS, "label")


# --------------------------------------------------------------------------- entries
_ALPHA = Param(
    "alpha", 0.1, 1e-6, 1e3, "Lidstone's alpha", (0.01, 0.03, 0.1, 0.3, 0.5, 1.0, 2.0, 5.0)
)
_M = Param("m", 2.0, 1e-6, 1e6, "m-estimate's m", (0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0))
_K0 = Param("k0", 10.0, 1e-6, 1e6, "TE's k0", (1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0))

for _entry in (
    Smoother(
        "laplace", "Laplace", "additive", "uniform", "#1f77b4",
        "add one to every count: (N_cfv + 1) / (N_c + K_f)", fixed={"alpha": 1.0}, paper=True,
    ),
    Smoother(
        "lidstone", "Lidstone", "additive", "uniform", "#17becf",
        "add alpha to every count: (N_cfv + a) / (N_c + a K_f)", params=(_ALPHA,), paper=True,
    ),
    Smoother(
        "kt", "KT", "additive", "uniform", "#8c564b",
        "Krichevsky-Trofimov: Lidstone with alpha = 1/2", fixed={"alpha": 0.5}, paper=True,
    ),
    Smoother(
        "m-estimate", "m-estimate", "fixed-m", "marginal", "#9467bd",
        "m virtual rows spread as the pooled marginal: (N_cfv + m tbar_v) / (N_c + m)",
        params=(_M,), paper=True,
    ),
    Smoother(
        "te", "TE", "target-encoding", "marginal", "#7f7f7f",
        "target-encoding shrinkage of P(c | v) toward P(c) with strength k0",
        params=(_K0,), paper=True,
    ),
    Smoother(
        "heb-u", "HEB-U", "type-ii-ml", "uniform", "#ff7f0e",
        "learned m_cf (Type-II ML) toward the uniform mean 1/K_f", paper=True,
    ),
    Smoother(
        "heb-m", "HEB-M", "type-ii-ml", "marginal", "#d62728",
        "learned m_cf (Type-II ML) toward the pooled marginal N_fv / S", paper=True,
    ),
    Smoother(
        "heb-h", "HEB-H", "nested-type-ii-ml", "marginal", "#6b6ecf",
        "nested Dirichlet along a category hierarchy, every level's m by Type-II ML "
        "(HEB-M where a feature has no hierarchy)",
    ),
):  # fmt: skip
    register_smoother(_entry)

for _entry in (
    Method(
        "Laplace+GR", "nb", {"smoother": "laplace", "weighting": "sqrt-mi"}, "#0b3a6e",
        "Laplace with sqrt-mutual-information feature weights", aliases=("laplace-gr",),
    ),
    Method(
        "HEB-M+GR", "nb", {"smoother": "heb-m", "weighting": "sqrt-mi"}, "#8b0a1a",
        "HEB-M with sqrt-mutual-information feature weights", aliases=("heb-m-gr",),
    ),
    Method(
        "AODE", "aode", {"smoother": "laplace"}, "#2ca02c",
        "averaged one-dependence estimators (Webb et al. 2005), Laplace smoothing",
    ),
    Method(
        "HEB-AODE", "aode", {"smoother": "heb"}, "#e377c2",
        "AODE with learned concentrations shared over each parent's values",
    ),
    Method(
        "TAN", "tan", {"smoother": "laplace"}, "#bcbd22",
        "tree-augmented NB (Friedman et al. 1997), Weka's estimator: (N + 0.5) / (N_u + 0.5 K)",
    ),
    Method(
        "HEB-TAN", "tan", {"smoother": "heb"}, "#5c3c92",
        "TAN with learned concentrations shared over each tree parent's values",
    ),
    Method(
        "CategoricalNB", "reference", {"model": "CategoricalNB"}, "#4d4d4d",
        "reference: scikit-learn's CategoricalNB, alpha = 1 (a missing or unseen code is one "
        "extra category per feature)", reference=True,
    ),
    Method(
        "TargetEncoder+LR", "reference", {"model": "TargetEncoder+LR"}, "#a6761d",
        "reference: scikit-learn's TargetEncoder (smooth='auto', its internal cross fitting) "
        "then LogisticRegression (an unseen category gets the target mean)", reference=True,
    ),
    Method(
        "HistGradientBoosting", "reference", {"model": "HistGradientBoosting"}, "#1b9e77",
        "reference: scikit-learn's HistGradientBoostingClassifier, native categorical "
        "features (codes >= 254 folded into one 'other' category: its 255-bin limit; missing "
        "and unseen codes are missing values)", reference=True,
    ),
):  # fmt: skip
    register_method(_entry)

for _entry in (
    Metric("accuracy", "Accuracy", "Accuracy", True, _metrics.accuracy,
           "share of rows whose most probable class is the true one"),
    Metric("f1_macro", "F1-macro", "F1 (macro)", True, _metrics.f1_macro,
           "F1 averaged over classes with equal weight"),
    Metric("log_loss", "Log-loss", "Log-loss", False, _metrics.log_loss,
           "mean -log P(true class), p clipped to 1e-15"),
    Metric("brier", "Brier", "Brier score", False, _metrics.brier,
           "mean over classes of the one-vs-rest squared error"),
    Metric("auc", "AUC", "AUC", True, _metrics.auc_ovr,
           "macro one-vs-rest area under the ROC curve"),
    Metric("ece", "ECE", "ECE (top-1, 10 bins)", False, _metrics.ece_top1,
           "top-1 expected calibration error over 10 equal-width bins"),
):  # fmt: skip
    register_metric(_entry)

del _entry
#: the functions behind the built-in metrics (``compute_metrics``'s one-pass fast path)
_BUILTIN_COMPUTE = {name: entry.compute for name, entry in _METRICS.items()}

#: the paper's seven smoothers (Table 1), as method names, in the paper's order
TABLE1_METHODS: tuple[str, ...] = tuple(s.label for s in _SMOOTHERS.values() if s.paper)
