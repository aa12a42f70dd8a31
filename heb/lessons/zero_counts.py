"""Lesson 1: zero counts, underflow and log-sum-exp, on a toy spam corpus.

Entry points: :func:`toy_spam`, :func:`word_probabilities`, :func:`score_message`,
:func:`underflow_curve`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from heb.counts import CountTable
from heb.nb import NaiveBayes, score_codes

__all__ = [
    "ToySpam",
    "toy_spam",
    "word_probabilities",
    "score_message",
    "underflow_curve",
    "direct_summary",
    "logspace_summary",
]


@dataclass(frozen=True)
class ToySpam:
    """A tiny word-count corpus: how often each word appeared in each class's e-mails.

    Attributes
    ----------
    vocabulary : tuple of str
        The V words.
    classes : tuple of str
        ``("spam", "ham")``.
    word_counts : ndarray (C, V)
        Word occurrences over all training e-mails of each class.
    email_counts : ndarray (C,)
        Training e-mails per class (for the class prior).
    """

    vocabulary: tuple[str, ...]
    classes: tuple[str, ...]
    word_counts: np.ndarray
    email_counts: np.ndarray

    @property
    def table(self) -> CountTable:
        """The corpus as a one-feature count table (the feature is "which word")."""
        return CountTable(
            self.email_counts.astype(float),
            self.word_counts.astype(float),
            np.array([0, len(self.vocabulary)]),
        )


def toy_spam() -> ToySpam:
    """The lesson's corpus: "unsubscribe" never occurs in ham, "agenda" never in spam."""
    vocabulary = (
        "free",
        "winner",
        "money",
        "click",
        "offer",
        "meeting",
        "project",
        "agenda",
        "report",
        "unsubscribe",
    )
    spam = [30, 18, 25, 22, 20, 2, 1, 0, 3, 15]
    ham = [4, 0, 6, 3, 5, 28, 35, 14, 22, 0]
    return ToySpam(vocabulary, ("spam", "ham"), np.array([spam, ham]), np.array([40, 60]))


def _message_codes(corpus: ToySpam, message: Sequence[str]) -> np.ndarray:
    index = {word: i for i, word in enumerate(corpus.vocabulary)}
    unknown = [word for word in message if word not in index]
    if unknown:
        raise ValueError(f"The word {unknown[0]!r} is not in the toy vocabulary.")
    if not message:
        raise ValueError("The message is empty: pick at least one word.")
    return np.array([index[word] for word in message], dtype=np.int64)


def word_probabilities(corpus: ToySpam, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """P(word | class) with pseudo-count ``alpha`` and the log class prior.

    ``alpha = 0`` is the unsmoothed estimate N_cw / N_c (zeros stay zeros); ``alpha > 0``
    is the engine's Lidstone smoother, (N_cw + alpha) / (N_c + alpha V).

    Returns
    -------
    theta : ndarray (C, V)
    log_prior : ndarray (C,)
        log (N_c + 1) / (S + C), as the engine's Naive Bayes.
    """
    if not (np.isfinite(alpha) and alpha >= 0):
        raise ValueError(f"The pseudo-count must be 0 or positive, got {alpha}.")
    table = corpus.table
    # the class prior does not depend on the smoother; alpha = 0 has no engine smoother
    model = NaiveBayes(smoother="lidstone", alpha=alpha if alpha > 0 else 1.0).fit_counts(table)
    if alpha == 0:
        theta = table.counts / table.counts.sum(axis=1, keepdims=True)
    else:
        theta = np.exp(model.feature_log_prob_)
    return theta, model.class_log_prior_


def score_message(corpus: ToySpam, message: Sequence[str], alpha: float) -> dict:
    """Score one message in log space; a class with a zero factor is *vetoed*.

    Returns
    -------
    dict
        ``factors`` (C, W) P(word | class) of each message word; ``vetoed`` (C,) bool, a
        zero factor sends the class's product to 0 (its log score is -inf);
        ``log_score`` (C,) log prior + sum of log factors for the classes not vetoed
        (vetoed entries hold 0.0: read ``vetoed``); ``posterior`` (C,) by log-sum-exp,
        or ``None`` when every class is vetoed (0 / 0: no answer at all).
    """
    codes = _message_codes(corpus, message)
    theta, log_prior = word_probabilities(corpus, alpha)
    with np.errstate(divide="ignore"):
        log_theta = np.log(theta)
    joint = score_codes(log_theta, corpus.table.offsets, codes[:, None]).sum(axis=0) + log_prior
    vetoed = ~np.isfinite(joint)
    posterior = None if vetoed.all() else np.exp(joint - logsumexp(joint))
    return {
        "factors": theta[:, codes],
        "vetoed": vetoed,
        "log_score": np.where(vetoed, 0.0, joint),
        "posterior": posterior,
    }


def underflow_curve(
    corpus: ToySpam, message: Sequence[str], alpha: float, max_copies: int = 200
) -> dict:
    """The message repeated 1..max_copies times: direct products against log space.

    The direct product multiplies the factors in float64, as a naive implementation
    would, and underflows to exactly 0 once it drops below ~4.9e-324; the log-space
    score stays finite and log-sum-exp still gives the posterior.

    Returns
    -------
    dict
        ``n_words`` (L,) message length; ``vetoed`` (C,) a zero factor (see
        :func:`score_message`); ``log10_likelihood`` (C, L) log10 of prior x product from
        logs (0.0 for vetoed classes); ``direct`` (C, L) the float64 product;
        ``underflow`` (C, L) bool, direct product 0 although the exact value is positive;
        ``direct_defined`` (L,) the direct posterior is not 0 / 0; ``direct_posterior``
        (C, L) where defined (uniform placeholder elsewhere); ``posterior`` (C, L) by
        log-sum-exp, or ``None`` when every class is vetoed.
    """
    if max_copies < 1:
        raise ValueError("The message must be repeated at least once.")
    codes = _message_codes(corpus, message)
    theta, log_prior = word_probabilities(corpus, alpha)
    copies = np.arange(1, max_copies + 1)
    sequence = np.tile(theta[:, codes], (1, max_copies))  # (C, L * W), multiplied in order
    direct = np.exp(log_prior)[:, None] * np.cumprod(sequence, axis=1)[:, copies * codes.size - 1]
    with np.errstate(divide="ignore"):
        log_message = np.log(theta[:, codes]).sum(axis=1)
    vetoed = ~np.isfinite(log_message)
    joint = log_prior[:, None] + np.where(vetoed, 0.0, log_message)[:, None] * copies[None, :]
    total = direct.sum(axis=0)
    defined = total > 0
    direct_posterior = np.where(
        defined, direct / np.where(defined, total, 1.0), 1 / direct.shape[0]
    )
    posterior = None
    if not vetoed.all():
        live = np.where(vetoed[:, None], -np.inf, joint)
        posterior = np.exp(live - logsumexp(live, axis=0))
    return {
        "n_words": copies * codes.size,
        "vetoed": vetoed,
        "log10_likelihood": np.where(vetoed[:, None], 0.0, joint / np.log(10.0)),
        "direct": direct,
        "underflow": (direct == 0) & ~vetoed[:, None],
        "direct_defined": defined,
        "direct_posterior": direct_posterior,
        "posterior": posterior,
    }


def direct_summary(curve: dict, corpus: ToySpam, at: int) -> str:
    """The posteriors from direct products at message length index ``at``, as a sentence part.

    A class whose product underflowed to 0 (its exact value is positive) is named as such:
    its 0 is float64's, not the data's, even where log-sum-exp rounds to the same 0.0000.
    """
    if not curve["direct_defined"][at]:
        return "0 / 0: every product is exactly 0"
    return ", ".join(
        f"P({name}) = 0 (underflow)"
        if curve["underflow"][c, at]
        else f"P({name}) = {curve['direct_posterior'][c, at]:.4f}"
        for c, name in enumerate(corpus.classes)
    )


def logspace_summary(curve: dict, corpus: ToySpam, at: int) -> str:
    """The posteriors by log-sum-exp at message length index ``at``, as a sentence part."""
    if curve["posterior"] is None:
        return "0 / 0: every class is vetoed by a zero factor"
    return ", ".join(
        f"P({name}) = {curve['posterior'][c, at]:.4f}" for c, name in enumerate(corpus.classes)
    )
