"""HEB Explorer: hierarchical empirical-Bayes smoothing for Naive Bayes."""

from heb.aode import AODE
from heb.nb import NaiveBayes

__version__ = "0.1.0"
__all__ = ["AODE", "NaiveBayes", "__version__"]
