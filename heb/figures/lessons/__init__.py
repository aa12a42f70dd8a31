"""Plotly figures of the six classroom lessons, one module per lesson.

Every builder takes the outputs of :mod:`heb.lessons` and returns ``(figure, data)``:
the figure styled for a projector and a DataFrame of the numbers drawn in it (the CSV
download). Shared trace helpers and styling are :mod:`heb.figures.lessons.parts`'.
"""
