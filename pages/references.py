"""References page: the works the lessons cite, in full, and every section they cite.

Each entry's details are those the paper's reference list, the textbook chapter and the
AODE article state (the shared seeds); nothing is added that they do not state (the
textbook chapter gives no year or publisher, so none is written).
"""

from __future__ import annotations

from typing import NamedTuple

import streamlit as st

from explorer.routing import ensure_entry_point, page_footer, page_title
from explorer.style import page_header

ensure_entry_point()


class Work(NamedTuple):
    """One cited work: ``key`` the short form a page uses ("Minka (2000)"), ``entry`` the
    full reference (markdown), ``used`` where the app uses it."""

    key: str
    entry: str
    used: str


PAPER_TITLE = (
    "Hierarchical Empirical-Bayes Naive Bayes: Minimax Smoothing and Calibration with "
    "AODE Extension"
)
#: the two texts every lesson cites by section, then the works the lessons name (by author
#: and year, or by the method named after them), in the order of the lessons
WORKS = (
    Work(
        "the paper",
        "Nguyen Thai Anh, Truong Viet Vu, Tran Thien Thanh, Vo Nguyen Quoc Bao and Ngo Hoang "
        f"Tu (2026). *{PAPER_TITLE}*. Preprint, [arXiv:2608.11162v1]"
        "(https://arxiv.org/abs/2608.11162v1) [cs.LG], 11 August 2026; "
        "submitted to *Knowledge-Based Systems*.",
        "every lesson and Explore page (the HEB-NB paper)",
    ),
    Work(
        "the textbook",
        "Mike Nguyen. *Advanced Data Analysis*, chapter 18: *Naive Bayes* (the chapter "
        "states no year or publisher).",
        "Zero counts, The Dirichlet prior, Calibration",
    ),
    Work(
        "Lidstone (1920)",
        "G. J. Lidstone (1920). Note on the general case of the Bayes-Laplace formula for "
        "inductive or a posteriori probabilities. *Transactions of the Faculty of "
        "Actuaries* 8, 182–192.",
        "The Dirichlet prior, Known truth (Lidstone's α)",
    ),
    Work(
        "Krichevsky and Trofimov (1981)",
        "R. Krichevsky and V. Trofimov (1981). The performance of universal encoding. "
        "*IEEE Transactions on Information Theory* 27, 199–207.",
        "The Dirichlet prior, High cardinality, Known truth (KT, α = ½)",
    ),
    Work(
        "Cestnik (1990)",
        "B. Cestnik (1990). Estimating probabilities: a crucial task in machine learning. "
        "In *Proceedings of the 9th European Conference on Artificial Intelligence (ECAI)*, "
        "pp. 147–149.",
        "High cardinality, Known truth (the m-estimate)",
    ),
    Work(
        "Micci-Barreca (2001)",
        "D. Micci-Barreca (2001). A preprocessing scheme for high-cardinality categorical "
        "attributes in classification and prediction problems. *ACM SIGKDD Explorations "
        "Newsletter* 3, 27–32.",
        "Known truth (TE, target encoding)",
    ),
    Work(
        "Minka (2000)",
        "T. P. Minka (2000). *Estimating a Dirichlet Distribution*. Technical report, "
        "Massachusetts Institute of Technology, Cambridge, MA (revised 2003, 2009 and 2012). "
        "[https://tminka.github.io/papers/dirichlet/](https://tminka.github.io/papers/dirichlet/)",
        "The evidence curve (Type-II ML, the fixed point)",
    ),
    Work(
        "Platt et al. (1999)",
        "J. Platt et al. (1999). Probabilistic outputs for support vector machines and "
        "comparisons to regularized likelihood methods. *Advances in Large Margin "
        "Classifiers* 10, 61–74.",
        "Calibration (Platt scaling)",
    ),
    Work(
        "Zadrozny and Elkan (2002)",
        "B. Zadrozny and C. Elkan (2002). Transforming classifier scores into accurate "
        "multiclass probability estimates. In *Proceedings of the 8th ACM SIGKDD "
        "International Conference on Knowledge Discovery and Data Mining (KDD)*, "
        "pp. 694–699.",
        "Calibration (isotonic regression)",
    ),
    Work(
        "Guo et al. (2017)",
        "C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger (2017). On calibration of modern "
        "neural networks. In *Proceedings of the International Conference on Machine "
        "Learning (ICML)*, PMLR, pp. 1321–1330.",
        "Calibration (temperature scaling)",
    ),
    Work(
        "Jiang et al. (2019)",
        "L. Jiang, L. Zhang, L. Yu and D. Wang (2019). Class-specific attribute weighted "
        "naive Bayes. *Pattern Recognition* 88, 321–330.",
        "Calibration (mutual-information weights, HEB-M+GR; the paper's CAWNB)",
    ),
    Work(
        "Zhang et al. (2016)",
        "L. Zhang, L. Jiang, C. Li and G. Kong (2016). Two feature weighting approaches for "
        "naive Bayes text classifiers. *Knowledge-Based Systems* 100, 137–144.",
        "Calibration (mutual-information weights, with Jiang et al. 2019)",
    ),
    Work(
        "MacKay and Peto (1995)",
        "D. J. C. MacKay and L. C. B. Peto (1995). A hierarchical Dirichlet language model. "
        "*Natural Language Engineering* 1, 289–308.",
        "Borrowing along a hierarchy (the paper's section 5.6.3 points to it)",
    ),
    Work(
        "Webb, Boughton and Wang (2005)",
        "G. I. Webb, J. R. Boughton and Z. Wang (2005). Not so naive Bayes: aggregating "
        "one-dependence estimators. *Machine Learning* 58(1), 5–24. "
        "[doi:10.1007/s10994-005-4258-6](https://doi.org/10.1007/s10994-005-4258-6)",
        "AODE and HEB-AODE (Compare, Benchmark)",
    ),
    Work(
        "Friedman, Geiger and Goldszmidt (1997)",
        "N. Friedman, D. Geiger and M. Goldszmidt (1997). Bayesian network classifiers. "
        "*Machine Learning* 29, 131–163.",
        "TAN and HEB-TAN (Compare, Benchmark)",
    ),
    Work(
        "Demšar (2006)",
        "J. Demšar (2006). Statistical comparisons of classifiers over multiple data sets. "
        "*Journal of Machine Learning Research* 7, 1–30.",
        "Benchmark (the Friedman test, Nemenyi's critical difference and its diagram, the "
        "Wilcoxon signed-rank test)",
    ),
)
#: (what a page cites, the section's title in the cited text, where it is used)
CITED = [
    ("Textbook 18.2", "The Decision Rule", "Zero counts"),
    ("Textbook 18.3.4", "Laplace (Additive) Smoothing", "Zero counts"),
    ("Textbook 18.3.4.1", "Smoothing as a Dirichlet posterior mean", "The Dirichlet prior"),
    ("Textbook 18.4", "Why Naive Bayes Works Despite the Assumption", "Calibration"),
    ("Textbook 18.4.1", "Double-Counting: Why the Probabilities Break", "Calibration"),
    ("Paper section 2", "Related Work (calibration of NB)", "Calibration"),
    (
        "Paper section 3.1",
        "The Proposed HEB-NB Estimator (eq. 5-6, Algorithm 1)",
        "The evidence curve",
    ),
    ("Paper Remark 1", "Empirical-Bayes Data Dependence", "Known truth"),
    (
        "Paper section 4",
        "Theoretical Analysis (Theorems 1-2, Corollary 1)",
        "The Dirichlet prior, High cardinality",
    ),
    ("Paper section 4.3", "Calibration Corollary (Top-1 ECE Bound, Theorem 3)", "Known truth"),
    ("Paper section 5.1.1", "Datasets", "Dataset (all datasets as a table)"),
    ("Paper section 5.2", "Synthetic Verification of Theorem 1", "High cardinality"),
    ("Paper Figure 2", "Synthetic verification of Theorem 1", "High cardinality"),
    ("Paper section 5.4", "Calibration and Orthogonality", "Calibration"),
    (
        "Paper section 5.6",
        "Discussion and Limitations (5.6.3, Theoretical Scope and Future Directions: "
        "priors along a hierarchy)",
        "Borrowing along a hierarchy",
    ),
    (
        "Paper Figure 5",
        "Empirical evidence for the unclamped Type-II ML maximiser's √N_c log K_f scaling",
        "Concentrations",
    ),
    (
        "Paper Tables 1-2",
        "Mean Friedman ranks across the 31 datasets and Friedman omnibus p-values; "
        "paired Wilcoxon signed-rank tests",
        "Benchmark",
    ),
]

page_header(
    page_title(__file__),
    "Where the lessons and the Explore pages come from. A citation such as *textbook "
    "18.3.4* or *paper section 4* points to the first two works; *Minka (2000)* or a "
    "method named after its author (Platt, Lidstone, KT) to the others.",
)
#: the works, one numbered markdown list
WORK_LIST = "\n".join(
    f"{i}. **{work.key}**: {work.entry} — *used in* {work.used}."
    for i, work in enumerate(WORKS, start=1)
)
#: one markdown element (no table widget: the citations need no sorting, and the browser
#: loads no data-grid code for a static table)
CITATION_TABLE = "\n".join(
    [
        "| cited as | section title | used on the page |",
        "| --- | --- | --- |",
        *(f"| {cited} | {title} | {page} |" for cited, title, page in CITED),
    ]
)
st.markdown(
    "## The works\n\n"
    + WORK_LIST
    + "\n\n## Every citation of the paper and the textbook, and where it is used\n\n"
    + CITATION_TABLE
)
page_footer(__file__)
