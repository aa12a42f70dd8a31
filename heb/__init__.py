"""HEB Explorer: hierarchical empirical-Bayes smoothing for Naive Bayes."""

from heb.nb import NaiveBayes

__version__ = "0.1.0"
__all__ = ["NaiveBayes", "__version__"]
