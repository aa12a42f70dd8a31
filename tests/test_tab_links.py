"""Concentrations' view tabs and Benchmark's metric tabs are page settings: a copied link
opens the tab its sender had open (they opened on the first tab)."""

from __future__ import annotations

from heb import registry
from tests.test_app import _cd_titles, assert_clean, figures, open_app, table_with, url


def test_a_concentrations_link_opens_the_table_tab_with_the_colouring_it_carries():
    at = open_app("pages/concentrations.py")
    assert url(at, "conc_tab") is None  # the first tab is the default: not in the link
    at.session_state["conc_tab"] = "Table"
    at.run()
    assert url(at, "conc_tab") == "Table"
    at.session_state["conc_tab"] = "Heatmaps"
    at.run()
    at.radio(key="w_heat_value").set_value("rho").run()
    at.session_state["conc_tab"] = "Table"
    at.run()
    # the heatmaps' colouring stays in the link while their tab is closed
    assert (url(at, "conc_tab"), url(at, "heat_value")) == ("Table", "rho")
    fresh = open_app("pages/concentrations.py", conc_tab="Table", heat_value="rho")
    assert not figures(fresh)  # the table, not the heatmap
    assert len(table_with(fresh, "rho")) > 0
    fresh.session_state["conc_tab"] = "Heatmaps"
    fresh.run()
    assert fresh.radio(key="w_heat_value").value == "rho"


def test_a_concentrations_link_opens_the_scatters_and_a_bad_tab_falls_back():
    at = open_app("pages/concentrations.py", conc_tab="Figure 5 scatters")
    assert len(figures(at)) == 2  # the two Figure 5 scatters
    bad = open_app("pages/concentrations.py", conc_tab="<b>nope</b>")
    assert figures(bad)[0]["data"][0]["type"] == "heatmap"
    note = [c.value for c in bad.caption if "not a value the control below offers" in c.value]
    assert note and "<b>" not in note[0], note


def test_the_hierarchy_views_tab_is_kept_in_the_link_too():
    at = open_app("pages/concentrations.py", conc_model="HEB-H", conc_tab="Table")
    assert_clean(at)
    assert not figures(at)  # the level table, not the heatmap
    assert len(table_with(at, "m")) > 0
    assert url(at, "conc_tab") == "Table"


def test_a_benchmark_link_opens_the_metric_tab_it_was_copied_on():
    query = {"methods": "Laplace,HEB-M,KT", "bench_datasets": "builtin:iris,builtin:wine"}
    at = open_app("pages/benchmark.py", **query)
    at.button(key="bench_run").click().run()
    assert_clean(at)
    log_loss = registry.metric("log_loss").title
    at.session_state["bench_metric_tab"] = log_loss
    at.run()
    assert url(at, "bench_metric_tab") == log_loss
    assert [t.split(":")[0] for t in _cd_titles(at)] == ["Log-loss"]
    link = {name: url(at, name) for name in at.query_params}
    fresh = open_app("pages/benchmark.py", **link)
    assert [t.split(":")[0] for t in _cd_titles(fresh)] == ["Log-loss"]
