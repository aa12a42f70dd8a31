"""Trial V: a keyboard-only reader with a screen magnifier, and a colleague with red-green
colour blindness.

Checked here without a browser: the text colours of our figures (WCAG contrast against
the figure's white paper: 4.5:1 for body text, 3:1 for large text, 24 px or 18.67 px
bold), and the footer strip's own HTML (its status is announced, its boxes' borders
can be seen).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest
from streamlit.testing.v1 import AppTest

from explorer import routing
from heb.figures.footer import with_footer
from heb.figures.style import FONT_SIZE

PAGES = Path(__file__).resolve().parents[1] / "pages"
#: WCAG 2.x: body text, and large text (24 px, or 18.67 px bold)
BODY, LARGE = 4.5, 3.0


def luminance(colour: str) -> float:
    """WCAG relative luminance of ``#rrggbb``, ``#rgb``, ``rgb(...)`` or ``white``."""
    colour = colour.strip().lower()
    if colour == "white":
        colour = "#ffffff"
    if colour.startswith("rgb"):
        channels = [float(v) for v in re.findall(r"[\d.]+", colour)[:3]]
    else:
        digits = colour.lstrip("#")
        if len(digits) == 3:
            digits = "".join(d * 2 for d in digits)
        channels = [int(digits[i : i + 2], 16) for i in (0, 2, 4)]
    linear = [
        c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
        for c in (v / 255 for v in channels)
    ]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(text: str, background: str = "#ffffff") -> float:
    high, low = sorted((luminance(text), luminance(background)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_contrast_matches_known_wcag_values():
    assert contrast("#000000") == pytest.approx(21.0)
    assert contrast("#767676") == pytest.approx(4.54, abs=0.01)
    assert contrast("#9e9e9e") < BODY


def _fonts(node, path: str = ""):
    """Every (path, font dict) in a plotly figure spec."""
    if isinstance(node, dict):
        for key, value in node.items():
            where = f"{path}.{key}"
            if key in {"font", "tickfont", "textfont"} and isinstance(value, dict):
                yield where, value
            yield from _fonts(value, where)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _fonts(value, f"{path}[{index}]")


def low_contrast_text(spec: dict) -> list[str]:
    """The figure's text colours under the WCAG minimum against its paper (white by
    default), each as 'path colour ratio'."""
    layout = spec.get("layout", {})
    paper = layout.get("paper_bgcolor") or "#ffffff"
    base = layout.get("font", {}).get("size") or FONT_SIZE
    found = []
    for where, font in _fonts(spec):
        colours = font.get("color")
        if colours is None:
            continue
        size = font.get("size") or base
        bold = str(font.get("weight", "")).lower() in {"bold", "700", "800", "900"}
        large = size >= 24 or (bold and size >= 18.67)
        need = LARGE if large else BODY
        for colour in colours if isinstance(colours, list) else [colours]:
            if not isinstance(colour, str) or not colour.startswith(("#", "rgb")):
                continue
            if colour.startswith("rgba"):
                continue  # a translucent colour: no single ratio
            ratio = contrast(colour, paper)
            if ratio < need:
                found.append(f"{where} {colour} {ratio:.2f} < {need}")
    return found


def page_figures(name: str, **state) -> list[dict]:
    app = AppTest.from_file(str(PAGES / f"{name}.py"), default_timeout=90)
    for key, value in state.items():
        app.session_state[key] = value
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    specs = [json.loads(chart.proto.spec) for chart in app.get("plotly_chart")]
    assert specs, f"{name} drew no figure"
    return specs


def test_the_checker_flags_faint_text():
    fig = go.Figure(layout={"annotations": [{"text": "clamp", "font": {"color": "#9e9e9e"}}]})
    assert low_contrast_text(json.loads(fig.to_json()))
    bold = go.Figure(go.Bar(x=[1], y=[0], text=["0"], textfont={"size": 20, "color": "#d55e00"}))
    assert low_contrast_text(json.loads(bold.to_json()))  # 3.9:1 at 20 px plain
    bold.update_traces(textfont_weight="bold")
    assert not low_contrast_text(json.loads(bold.to_json()))  # large text: 3:1


@pytest.mark.parametrize(
    ("page", "state"),
    [
        ("lesson_zero_counts", {}),  # the zeros' labels in the classes' colours
        ("lesson_calibration", {}),  # the ECE axis in the slider's colour
        ("lesson_evidence", {}),  # the clamp's labels
        ("lesson_dirichlet", {}),
    ],
)
def test_figure_text_is_readable(page, state):
    faint = [
        f"{page} figure {i}: {line}"
        for i, spec in enumerate(page_figures(page, **state))
        for line in low_contrast_text(spec)
    ]
    assert not faint, faint


def test_an_exported_figures_footer_is_readable():
    fig = with_footer(go.Figure(), "dataset=builtin:zip-codes · seed 42")
    assert not low_contrast_text(json.loads(fig.to_json()))


# ------------------------------------------------------------------ the footer strip
def _style_of(html: str, element_id: str) -> str:
    match = re.search(rf'id="{element_id}"[^>]*?style="([^"]*)"', html, re.S)
    assert match, element_id
    return match.group(1)


def test_the_copy_status_is_announced():
    """'copied' appears without a focus change: a live region says it to a screen reader."""
    html = routing._link_and_keys()
    tag = re.search(r'<span id="heb-done"[^>]*>', html).group(0)
    assert 'role="status"' in tag or 'aria-live="polite"' in tag, tag


@pytest.mark.parametrize("element_id", ["heb-copy", "heb-link"])
def test_the_copy_boxes_borders_can_be_seen(element_id):
    """WCAG 1.4.11: a control's boundary at least 3:1 against the white page (#ccc and
    #ddd were 1.6:1 and 1.4:1: the link's box was all but invisible at 200 %)."""
    style = _style_of(routing._link_and_keys(), element_id)
    border = re.search(r"border:\s*1px solid (#[0-9a-fA-F]{3,6})", style).group(1)
    assert contrast(border) >= LARGE, (element_id, border)


# ------------------------------------------------------------------ text alternatives
def test_every_compare_figure_offers_its_numbers():
    """Each figure of Compare's Per class tab offers a CSV of its numbers beside its image:
    the confusion matrix did; the one-vs-rest reliability and the ROC offered no CSV, and
    no table on the page gives their numbers."""
    from tests.test_app import open_app

    link = {"dataset": "builtin:iris", "methods": "Laplace,HEB-M", "folds": "5"}
    at = open_app("pages/compare.py", compare_tab="Per class", **link)
    assert not at.exception, [e.value for e in at.exception]
    n_figures = len(at.get("plotly_chart"))
    labels = [button.proto.label for button in at.get("download_button")]
    assert n_figures >= 3 and labels.count("CSV") >= n_figures, labels


def test_the_per_class_csvs_hold_what_is_drawn():
    """One row per (class, bin) with every row counted once per class; one per ROC point,
    from (0, 0) to (1, 1), with the method's AUC."""
    from explorer.diagnostics import class_reliability_frame, roc_frame
    from heb.figures import diagnostics as dg
    from heb.metrics import class_reliability

    y = np.array([0, 0, 1, 1, 2, 2])
    proba = np.eye(3)[[0, 1, 1, 1, 2, 0]] * 0.8 + 0.2 / 3
    frame = class_reliability_frame(class_reliability(y, proba), ["a", "b", "c"])
    assert list(frame["class"].unique()) == ["a", "b", "c"]
    assert frame.groupby("class")["rows"].sum().tolist() == [6, 6, 6]
    curve = dg.roc_curve(y, proba, 0)
    roc = roc_frame({"Laplace": curve})
    assert roc[["fpr", "tpr"]].iloc[0].tolist() == [0.0, 0.0]
    assert roc[["fpr", "tpr"]].iloc[-1].tolist() == [1.0, 1.0]
    assert set(roc["auc"]) == {curve["auc"]} and set(roc["method"]) == {"Laplace"}
