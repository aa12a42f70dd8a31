"""Findings of a new user's trial of the app, each a test that failed before its fix."""

from __future__ import annotations

from test_app import assert_clean, figures, open_app, titled, url


def _drawn(at) -> list[str]:
    spec = titled(figures(at), "pooled out-of-fold")
    return [t["name"] for t in spec["data"] if t["type"] == "bar"]


def test_the_reliability_view_draws_the_learned_methods_and_follows_the_sidebar():
    """The first five of the paper's seven left out HEB-U and HEB-M, the paper's own; after
    "The paper's seven smoothers" the old five stayed pinned in the URL and Lidstone and
    KT were not drawn."""
    at = open_app("pages/compare.py", data="builtin:iris", methods="Laplace,KT,HEB-M")
    assert _drawn(at) == ["Laplace", "KT", "HEB-M"]
    at.button(key="paper_seven").click().run()
    assert_clean(at)
    drawn = _drawn(at)
    assert {"HEB-U", "HEB-M"} <= set(drawn) and len(drawn) == 5
    assert "reliability_methods" not in at.query_params  # the default: nothing pinned
    at.multiselect(key="w_reliability_methods").set_value(["TE", "HEB-M"]).run()
    assert _drawn(at) == ["TE", "HEB-M"]
    assert url(at, "reliability_methods") == "TE,HEB-M"


def test_a_link_naming_the_drawn_methods_keeps_them():
    at = open_app(
        "pages/compare.py",
        data="builtin:iris",
        methods="Laplace,KT,HEB-M",
        reliability_methods="KT",
    )
    assert _drawn(at) == ["KT"]


def test_compare_reset_restores_folds_and_what_if_values():
    """Reset to defaults on Compare left the folds and Lidstone's alpha as they were."""
    at = open_app("pages/compare.py", data="builtin:iris", methods="Laplace,Lidstone")
    at.segmented_control(key="w_folds").set_value(5).run()
    at.segmented_control(key="w_whatif_alpha").set_value(1.0).run()
    assert url(at, "folds") == "5" and "alpha" in url(at, "params")
    at.button(key="reset_page_settings").click().run()
    assert_clean(at)
    assert at.session_state["folds"] == 10 and at.session_state["whatif_alpha"] == 0.1
    assert at.segmented_control(key="w1_folds").value == 10
    assert "params" not in at.query_params


def test_the_remedies_diagram_draws_the_methods_the_verdict_names():
    """The verdict said "Best post-hoc: Laplace + isotonic" while the diagram beside it drew
    a fixed "Laplace + temperature" (and a fixed HEB-M+GR as the upstream fix)."""
    import re

    at = open_app("pages/lesson_calibration.py", calib_tab="Remedies side by side")
    spec = titled(figures(at), "verdict's best fixes")
    drawn = {re.sub(r" \(ECE.*", "", t["name"]) for t in spec["data"] if t.get("name")}
    verdict = " ".join(m.value for m in at.markdown if "Best post-hoc" in m.value)
    named = re.findall(r"Best upstream fix: (.+?) \d|Best post-hoc: (.+?) \d", verdict)
    assert named, verdict
    for upstream, post_hoc in named:
        assert (upstream or post_hoc) in drawn, (upstream or post_hoc, drawn)


def test_an_empty_column_is_noted_once():
    """ "Column 'notes' is empty in every row and will be left out." was followed by
    "Dropped (entirely missing): notes."."""
    import pandas as pd
    from test_app import unescape, uploader

    frame = pd.DataFrame(
        {"a": [f"v{i % 4}" for i in range(60)], "notes": [None] * 60, "y": ["p", "q"] * 30}
    )
    at = open_app()
    uploader(at).upload("empty_notes.csv", frame.to_csv(index=False).encode(), "text/csv").run()
    assert_clean(at)
    notes = [unescape(info.value) for info in at.info]
    named = [note for note in notes if "notes" in note]
    assert len(named) == 1 and "empty in every row" in named[0], notes


def test_a_lessons_exported_figure_names_the_lesson_and_its_settings(monkeypatch):
    """A Dirichlet lesson PNG was stamped with the app's dataset, bins and methods, none of
    which it uses, and (at default settings) none of its own settings."""
    from explorer import display, report

    footers = []
    monkeypatch.setattr(display, "view_footer", lambda: footers.append(report.view_footer()) or "")
    open_app("pages/lesson_dirichlet.py", dirichlet_K="20")
    footer = footers[-1]
    assert footer.startswith("HEB Explorer · lesson=dirichlet")
    assert "dirichlet_K=20" in footer and "dirichlet_N=" in footer  # a default named too
    assert "dataset=" not in footer and "methods=" not in footer and "n_bins" not in footer
    footers.clear()
    open_app("pages/lesson_evidence.py", data="builtin:iris")  # counts from the dataset
    assert "lesson=evidence" in footers[-1] and "dataset=builtin:iris" in footers[-1]
    footers.clear()
    open_app("pages/compare.py", data="builtin:iris", methods="Laplace,HEB-M")
    assert "dataset=builtin:iris" in footers[-1] and "methods=Laplace,HEB-M" in footers[-1]


def test_a_kept_browser_serves_the_next_exports():
    """Every PNG / SVG download started Chromium anew (about 2-3 s each, the same figure
    again too); with keep_browser the process keeps kaleido's browser for the next."""
    import subprocess
    import sys

    from peers import require_chromium

    require_chromium()
    script = (
        "import time, plotly.graph_objects as go, kaleido\n"
        "from heb.figures.export import to_image_bytes\n"
        "fig = go.Figure(go.Bar(x=[1, 2], y=[3, 4]))\n"
        "to_image_bytes(fig, fmt='png')\n"
        "print(kaleido._global_server.is_running())\n"
        "to_image_bytes(fig, fmt='png', keep_browser=True)\n"
        "print(kaleido._global_server.is_running())\n"
        "to_image_bytes(fig, fmt='svg', keep_browser=True)\n"  # waits for its start
        "start = time.perf_counter()\n"
        "png = to_image_bytes(fig, fmt='png', keep_browser=True)\n"
        "print(png[:4] == b'\\x89PNG', round(time.perf_counter() - start, 2))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=400
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout.split("\n")
    assert out[0] == "False" and out[1] == "True", out  # kept only when asked
    assert out[2].startswith("True"), out  # the kept browser made a PNG
    print("export through the kept browser, seconds:", out[2].split()[1])


def test_a_kept_browser_whose_thread_ended_is_closed_before_the_next_export(monkeypatch):
    """Its queue would have waited for an answer forever (a download hanging)."""
    import plotly.graph_objects as go

    from heb.figures import export

    class DeadThread:
        def is_alive(self):
            return False

    class Server:
        closed = False
        _thread = DeadThread()

        def is_running(self):
            return not self.closed

        def close(self, silence_warnings=False):
            self.closed = True

    server = Server()
    monkeypatch.setattr(export, "_kept_browser", lambda: server)
    monkeypatch.setattr(go.Figure, "to_image", lambda self, **kwargs: b"\x89PNG")
    assert export.to_image_bytes(go.Figure(), fmt="png") == b"\x89PNG"
    assert server.closed


def test_presenter_tables_are_html_tables_that_take_its_large_type():
    """On a projector the grid's cells stayed at 13 px while the Styler's best cells grew
    with the presenter's type: a short table is an HTML table there (the grid elsewhere)."""
    at = open_app("pages/compare.py", data="builtin:iris", methods="Laplace,HEB-M", present="1")
    tables = [t.value for t in at.table]
    assert any("Accuracy ↑" in t.columns for t in tables), [list(t.columns) for t in tables]
    assert not any("Accuracy ↑" in d.value.columns for d in at.dataframe)
    at = open_app("pages/compare.py", data="builtin:iris", methods="Laplace,HEB-M")
    assert any("Accuracy ↑" in d.value.columns for d in at.dataframe)
    assert not at.table


def test_a_link_to_benchmark_results_shows_them_in_a_new_session():
    """Opened elsewhere (or reloaded), a copied Benchmark link showed the Run button alone."""
    from test_app import _benchmarked

    at = _benchmarked()
    assert url(at, "bench_ran") == "1"
    shown = {m.label: m.value for m in at.metric}
    link = {key: at.query_params[key] for key in at.query_params}
    fresh = open_app(
        "pages/benchmark.py", **{k: v[0] if isinstance(v, list) else v for k, v in link.items()}
    )
    assert {m.label: m.value for m in fresh.metric} == shown and shown
    plain = open_app("pages/benchmark.py")  # no run in the link: the button, no results
    assert not plain.metric


def test_the_heatmaps_class_axis_is_named_after_the_target():
    """With a feature called "class" and the target "churn", the heatmap's class axis read
    "class" beside a feature column "class"."""
    import pandas as pd
    from test_app import uploader

    rows = 200
    frame = pd.DataFrame(
        {
            "class": [("first", "second", "third")[i % 3] for i in range(rows)],
            "plan": [f"p{i % 5}" for i in range(rows)],
            "churn<b>": [("no", "yes")[(i // 3) % 2] for i in range(rows)],
        }
    )
    at = open_app()
    uploader(at).upload("churn.csv", frame.to_csv(index=False).encode(), "text/csv").run()
    assert_clean(at)
    at.switch_page("pages/concentrations.py").run()
    assert_clean(at)
    spec = titled(figures(at), "learned concentration")
    assert spec["layout"]["yaxis"]["title"]["text"] == "churn&lt;b&gt;"  # escaped
    assert "class" in spec["layout"]["xaxis"]["ticktext"]


def test_the_features_table_is_wide_enough_for_its_longest_name():
    """The name column took the header's width: "customer_no" read "customer_no", cut."""
    import json

    import pandas as pd
    from test_app import uploader

    rows = 120
    frame = pd.DataFrame(
        {
            "monthly_spend_in_euros": [f"s{i % 7}" for i in range(rows)],
            "plan": [f"p{i % 3}" for i in range(rows)],
            "churn": [("no", "yes")[i % 2] for i in range(rows)],
        }
    )
    at = open_app()
    uploader(at).upload("spend.csv", frame.to_csv(index=False).encode(), "text/csv").run()
    assert_clean(at)
    table = next(d for d in at.dataframe if "MI with target (nats)" in d.value.columns)
    width = json.loads(table.proto.columns)["feature"]["width"]
    assert width >= 8 * len("monthly_spend_in_euros"), width


def test_the_calibration_lessons_data_names_fit_its_select_box():
    """ "Synthetic: the Naive Bayes assumption holds" was cut at "assumptic"."""
    from heb.lessons.calibration import CALIBRATION_DATASETS

    assert max(len(name) for name in CALIBRATION_DATASETS) <= 33


def test_an_export_the_kept_browser_fails_is_made_again_in_a_browser_of_its_own(monkeypatch):
    """Under load kaleido's kept browser answered "kaleido_scopes is not defined" (its
    page's script not ready): the download failed with the no-Chromium message."""
    import plotly.graph_objects as go

    from heb.figures import export

    class Server:
        closed = False
        _thread = None

        def is_running(self):
            return not self.closed

        def close(self, silence_warnings=False):
            self.closed = True

    server, calls = Server(), []

    def to_image(self, **kwargs):
        calls.append(server.closed)
        if not server.closed:
            raise RuntimeError("ReferenceError: kaleido_scopes is not defined")
        return b"\x89PNG"

    monkeypatch.setattr(export, "_kept_browser", lambda: server)
    monkeypatch.setattr(go.Figure, "to_image", to_image)
    assert export.to_image_bytes(go.Figure(), fmt="png") == b"\x89PNG"
    assert calls == [False, True]  # the kept browser, then afresh without it


def test_an_upload_can_be_benchmarked_beside_the_built_in_datasets():
    """The Datasets list offered built-in and paper datasets only, not the session's
    uploaded file; its target is part of what the stored benchmark answers."""
    import pandas as pd
    from test_app import uploader

    rows = 300
    frame = pd.DataFrame(
        {
            "plan": [f"p{i % 5}" for i in range(rows)],
            "region": [f"r{(i * 7) % 4}" for i in range(rows)],
            "churn": [("no", "yes")[(i // 2) % 2] for i in range(rows)],
        }
    )
    at = open_app(methods="Laplace,HEB-M")
    uploader(at).upload("churners.csv", frame.to_csv(index=False).encode(), "text/csv").run()
    assert_clean(at)
    spec = at.session_state["data_spec"]
    at.switch_page("pages/benchmark.py").run()
    picker = at.multiselect(key="w_bench_datasets")
    assert spec in picker.options or "churners.csv (upload)" in picker.options
    picker.set_value([spec, "builtin:iris"]).run()
    at.button(key="bench_run").click().run()
    assert_clean(at)
    tables = [t.value for t in at.dataframe if "average rank" in t.value.index]
    assert tables and "churners.csv" in tables[0].index, tables
