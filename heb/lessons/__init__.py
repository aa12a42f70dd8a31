"""The computations behind the six classroom lessons (layer 4: no plotly, no streamlit).

One module per lesson: :mod:`~heb.lessons.zero_counts`, :mod:`~heb.lessons.dirichlet`,
:mod:`~heb.lessons.evidence`, :mod:`~heb.lessons.high_cardinality`,
:mod:`~heb.lessons.calibration` (with the scikit-learn adaptor and post-hoc calibrators
in :mod:`~heb.lessons.calibrators`) and :mod:`~heb.lessons.known_truth`; what they
share is in :mod:`~heb.lessons.common`. Every number a lesson page shows is computed
here, from the engine wherever the engine already has it; inputs are small, so each call
answers in milliseconds. The figures are :mod:`heb.figures.lessons`'.
"""
