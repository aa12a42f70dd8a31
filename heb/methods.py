"""The catalogue of named methods and metrics (no heavy imports: the CLI reads it first)."""

from __future__ import annotations

__all__ = ["METHODS", "TABLE1_METHODS", "METRICS", "METRIC_TITLES", "HIGHER_IS_BETTER"]

#: display name -> model family and estimator parameters
METHODS: dict[str, dict] = {
    "Laplace": {"model": "nb", "params": {"smoother": "laplace"}},
    "Lidstone": {"model": "nb", "params": {"smoother": "lidstone"}},
    "KT": {"model": "nb", "params": {"smoother": "kt"}},
    "m-estimate": {"model": "nb", "params": {"smoother": "m-estimate"}},
    "TE": {"model": "nb", "params": {"smoother": "te"}},
    "HEB-U": {"model": "nb", "params": {"smoother": "heb-u"}},
    "HEB-M": {"model": "nb", "params": {"smoother": "heb-m"}},
    "Laplace+GR": {"model": "nb", "params": {"smoother": "laplace", "weighting": "sqrt-mi"}},
    "HEB-M+GR": {"model": "nb", "params": {"smoother": "heb-m", "weighting": "sqrt-mi"}},
    "AODE": {"model": "aode", "params": {"smoother": "laplace"}},
    "HEB-AODE": {"model": "aode", "params": {"smoother": "heb"}},
}
TABLE1_METHODS = ("Laplace", "Lidstone", "KT", "m-estimate", "TE", "HEB-U", "HEB-M")
METRICS = ("accuracy", "f1_macro", "log_loss", "brier", "auc", "ece")
#: how each metric is named in tables and figures
METRIC_TITLES = {
    "accuracy": "Accuracy",
    "f1_macro": "F1-macro",
    "log_loss": "Log-loss",
    "brier": "Brier",
    "auc": "AUC",
    "ece": "ECE",
}
HIGHER_IS_BETTER = {
    "accuracy": True,
    "f1_macro": True,
    "auc": True,
    "log_loss": False,
    "brier": False,
    "ece": False,
}
