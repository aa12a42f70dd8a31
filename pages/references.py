"""References page: the paper and the textbook chapter the lessons cite, by title."""

from __future__ import annotations

import streamlit as st

from explorer.routing import ensure_entry_point, page_footer, page_title
from explorer.style import page_header

ensure_entry_point()

PAPER = (
    "*Hierarchical Empirical-Bayes Naive Bayes: Minimax Smoothing and Calibration with "
    "AODE Extension* (the HEB-NB paper)"
)
TEXTBOOK = "Mike Nguyen, *Advanced Data Analysis*, chapter 18, *Naive Bayes* (the textbook)"
#: (what a lesson cites, where it is) for each citation the lessons make
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
    ("Paper section 5.4", "Calibration and Orthogonality", "Calibration"),
    (
        "Paper section 5.6",
        "Discussion and Limitations (5.6.3: priors along a hierarchy)",
        "Borrowing along a hierarchy",
    ),
    ("Paper Figure 5", "Learned concentrations against N_c and K_f", "Concentrations"),
    ("Paper Tables 1-2", "Accuracy per dataset; Wilcoxon signed-rank tests", "Benchmark"),
]

page_header(
    page_title(__file__),
    "Where the lessons and the Explore pages come from. A citation such as *textbook "
    "18.3.4* or *paper section 4* points to these two texts.",
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
    f"- **The paper**: {PAPER}.\n- **The textbook**: {TEXTBOOK}.\n\n"
    "Also cited: Webb, Boughton and Wang (2005), *Not so naive Bayes: aggregating "
    "one-dependence estimators* (AODE); Minka (2000), *Estimating a Dirichlet "
    "distribution* (the fixed point behind the evidence curve).\n\n"
    "### Every citation, and where it is used\n\n" + CITATION_TABLE
)
page_footer(__file__)
