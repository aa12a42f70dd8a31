"""HEB Explorer: hierarchical empirical-Bayes smoothing for Naive Bayes.

``from heb import NaiveBayes, AODE, TAN, HierarchicalNaiveBayes`` works; the estimators are
imported on first use, so ``import heb`` itself loads no scikit-learn (``python -m heb`` does:
its commands read data).
"""

from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["AODE", "HierarchicalNaiveBayes", "NaiveBayes", "TAN", "__version__"]


def __getattr__(name: str):
    if name == "NaiveBayes":
        from heb.nb import NaiveBayes

        return NaiveBayes
    if name == "AODE":
        from heb.aode import AODE

        return AODE
    if name == "TAN":
        from heb.tan import TAN

        return TAN
    if name == "HierarchicalNaiveBayes":  # the README names it beside AODE and TAN
        from heb.hierarchical_nb import HierarchicalNaiveBayes

        return HierarchicalNaiveBayes
    raise AttributeError(f"module 'heb' has no attribute {name!r}")
