"""Plotly figure builders (layer 4: no streamlit, no formula of the method).

One module per job: :mod:`~heb.figures.style` (type, colours from the registry, title
and legend placement, escaping of user text), :mod:`~heb.figures.reliability`,
:mod:`~heb.figures.cd` (critical-difference diagram), :mod:`~heb.figures.concentrations`
(heatmap, the paper's Figure 5), :mod:`~heb.figures.dataset` and
:mod:`~heb.figures.compare` (the Explore pages), :mod:`~heb.figures.l1_study` (the
paper's Figure 2), :mod:`~heb.figures.export` (PNG / SVG bytes) and
:mod:`heb.figures.lessons` (one module per lesson). Every builder returns a
``plotly.graph_objects.Figure`` styled for a projector: 16 px type, white background,
the legend under the title, one fixed colour per method.
"""

from heb.figures.cd import cd_diagram, cd_min_width
from heb.figures.compare import fold_boxes, metric_bars
from heb.figures.concentrations import (
    aode_concentration_heatmap,
    concentration_heatmap,
    concentration_scatters,
)
from heb.figures.dataset import (
    class_balance_figure,
    feature_counts_figure,
    rows_per_category_heatmap,
)
from heb.figures.export import to_image_bytes
from heb.figures.l1_study import l1_error_figure
from heb.figures.reliability import (
    MIN_BIN_ROWS,
    RELIABILITY_HEIGHT,
    reliability_diagram,
    reliability_frame,
)
from heb.figures.style import (
    FONT_SIZE,
    TITLE_PAD,
    escape,
    frame_title_and_legend,
    legend_rows,
    method_color,
    method_label,
    metric_title,
    title_height,
)

__all__ = [
    "FONT_SIZE",
    "MIN_BIN_ROWS",
    "RELIABILITY_HEIGHT",
    "TITLE_PAD",
    "aode_concentration_heatmap",
    "cd_diagram",
    "cd_min_width",
    "class_balance_figure",
    "concentration_heatmap",
    "concentration_scatters",
    "escape",
    "feature_counts_figure",
    "fold_boxes",
    "frame_title_and_legend",
    "l1_error_figure",
    "legend_rows",
    "method_color",
    "method_label",
    "metric_bars",
    "metric_title",
    "reliability_diagram",
    "reliability_frame",
    "rows_per_category_heatmap",
    "title_height",
    "to_image_bytes",
]
