"""HEB-H in the app: hierarchies detected and declared on the Dataset page, carried in the
run settings and the URL, resolved on each fold, used by HEB-H on Compare; lesson 7."""

from __future__ import annotations

import base64
import json

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest
from test_app import assert_clean, open_app, uploader, url  # the app suite's helpers

from explorer.errors import escape
from explorer.hierarchies import SELF_PARENT
from heb import data as hdata
from heb.data import Preprocessor
from heb.evaluate import RunSettings, cross_validate, method_spec
from heb.evaluate.folds import prepare_folds
from heb.evaluate.hierarchy_specs import (
    Declared,
    attach_hierarchies,
    fold_hierarchies,
    hierarchies_text,
    parse_hierarchies,
)
from heb.hierarchy import fit_nested
from heb.hierarchy_sources import levels_from_chain, levels_from_parent_column, prefix_levels
from heb.lessons.hierarchy import hierarchy_lesson
from heb.nb import NaiveBayes

ZIP_PREFIX = '[{"feature":"zip_code","prefix":[2]}]'


def table_with(at: AppTest, column: str) -> pd.DataFrame:
    hits = [frame.value for frame in at.dataframe if column in frame.value.columns]
    assert len(hits) == 1, [list(frame.value.columns) for frame in at.dataframe]
    return hits[0]


# --------------------------------------------------------------------------- declarations
def test_declarations_round_trip_and_refuse_bad_text():
    items = parse_hierarchies(
        '[{"feature":"b","parents":["c","d"]},{"feature":"a","prefix":[3,1]}]'
    )
    assert items == (Declared("b", parents=("c", "d")), Declared("a", prefix=(3, 1)))
    text = hierarchies_text(items)
    assert text == '[{"feature":"a","prefix":[3,1]},{"feature":"b","parents":["c","d"]}]'
    assert parse_hierarchies(text) == tuple(sorted(items, key=lambda d: d.feature))
    assert RunSettings(hierarchies=text).hierarchies == text
    for bad in (
        "not json",
        '{"feature":"a"}',
        '[{"feature":"a"}]',
        '[{"feature":"a","prefix":[1,3]}]',
        '[{"feature":"a","prefix":[0]}]',
        '[{"feature":"a","parents":["a"]}]',
        '[{"feature":"a","prefix":[2],"parents":["b"]}]',
        '[{"feature":"a","prefix":["2"]}]',
    ):
        with pytest.raises(ValueError):
            parse_hierarchies(bad)


def test_hierarchies_key_heb_h_only_and_travel_in_the_url():
    plain = RunSettings(dataset="builtin:zip-codes")
    declared = plain.replace(hierarchies=ZIP_PREFIX)
    assert declared.data_key() == plain.data_key()  # the folds are shared
    assert declared.key("x") != plain.key("x")
    assert plain.key("x") == RunSettings(dataset="builtin:zip-codes").key("x")
    specs = {name: method_spec(name) for name in ("HEB-M", "HEB-H")}
    attached = attach_hierarchies(specs, declared.hierarchies)
    assert attached["HEB-M"] == specs["HEB-M"]
    assert attached["HEB-H"] != specs["HEB-H"]
    assert declared.method_key(attached["HEB-M"]) == plain.method_key(specs["HEB-M"])
    query = declared.to_query()
    assert query["hierarchies"] == ZIP_PREFIX
    assert RunSettings.from_query(query) == declared
    assert "hierarchies" not in plain.to_query()


def test_fold_levels_equal_a_preprocessor_on_the_training_rows():
    dataset = hdata.load_builtin("zip-codes")
    text = hierarchies_text(
        [Declared("zip_code", prefix=(2, 1)), Declared("user_id", parents=("store_id",))]
    )
    prepared = prepare_folds(dataset, RunSettings(n_splits=3))
    fold = prepared.folds[1]
    levels = fold_hierarchies(text, fold)
    pre = Preprocessor(categorical=dataset.categorical)
    train_codes = pre.fit_transform(dataset.X.iloc[fold.train_index])
    names = pre.feature_names_out_
    z, u, s = (names.index(n) for n in ("zip_code", "user_id", "store_id"))
    expected = prefix_levels(pre.categories_[z], (2, 1))
    assert len(levels[z]) == 2
    for got, want in zip(levels[z], expected, strict=True):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(
        levels[u][0],
        levels_from_parent_column(train_codes[:, u], train_codes[:, s], pre.n_categories_[u]),
    )
    # the prefix groups are the labels' first characters
    labels = np.array(pre.categories_[z])
    for group in np.unique(levels[z][0])[:5]:
        assert len({label[:2] for label in labels[levels[z][0] == group]}) == 1


# --------------------------------------------------------------------------- Dataset page
def test_dataset_page_lists_the_amazon_dependencies(datasets_dir):
    at = open_app(dataset="shared:amazon-employee-access", dataset_tab="Hierarchies")
    shown = table_with(at, "violating share")
    pairs = set(zip(shown["child A"], shown["parent B"], strict=True))
    assert {("ROLE_TITLE", "ROLE_FAMILY"), ("ROLE_CODE", "ROLE_FAMILY")} <= pairs
    assert (shown["violating rows"] == 0).all()  # exact dependencies at tolerance 0
    at.select_slider(key="w_fd_tolerance").set_value(0.05).run()
    assert_clean(at)
    shown = table_with(at, "violating share").set_index(["child A", "parent B"])
    rollup = shown.loc[("ROLE_ROLLUP_2", "ROLE_ROLLUP_1")]
    assert 0 < rollup["violating share"] < 0.05
    assert url(at, "fd_tolerance") == "0.05"
    # confirm it: in use for HEB-H, in the session and the URL
    pick = [o for o in at.selectbox(key="fd_pick").options if o.startswith("ROLE_ROLLUP_2 (")]
    at.selectbox(key="fd_pick").set_value(pick[0])
    at.button(key="fd_confirm").click().run()
    assert_clean(at)
    wanted = '[{"feature":"ROLE_ROLLUP_2","parents":["ROLE_ROLLUP_1"]}]'
    assert at.session_state["hierarchies"]["shared:amazon-employee-access"] == wanted
    assert url(at, "hierarchies") == wanted
    assert (
        table_with(at, "violating share")
        .set_index(["child A", "parent B"])
        .loc[("ROLE_ROLLUP_2", "ROLE_ROLLUP_1"), "in use"]
    )


def test_declared_prefix_on_zip_codes():
    at = open_app(dataset_tab="Hierarchies")
    at.selectbox(key="hier_feature").set_value("zip_code")
    at.radio(key="hier_kind").set_value("prefix of the label")
    at.text_input(key="hier_L").set_value("2, 1")
    next(b for b in at.button if b.label == "Declare").click().run()
    assert_clean(at)
    wanted = '[{"feature":"zip_code","prefix":[2,1]}]'
    assert at.session_state["hierarchies"]["builtin:zip-codes"] == wanted
    assert url(at, "hierarchies") == wanted
    zips = hdata.load_builtin("zip-codes").X["zip_code"].astype(str)
    sizes = [zips.nunique(), zips.str[:2].nunique(), zips.str[:1].nunique()]
    row = table_with(at, "nodes per level (leaves first)").iloc[0]
    assert row["nodes per level (leaves first)"] == " -> ".join(f"{n:,}" for n in sizes)
    assert row["used"]
    # a bad length is one message, nothing stored
    at.text_input(key="hier_L").set_value("1, 2")
    next(b for b in at.button if b.label == "Declare").click().run()
    assert [e.value for e in at.error] and not at.exception
    assert at.session_state["hierarchies"]["builtin:zip-codes"] == wanted
    # removed again
    at.button(key="hier_remove").click().run()
    assert at.session_state["hierarchies"]["builtin:zip-codes"] == ""
    assert url(at, "hierarchies") is None


def test_the_hidden_labels_of_the_hierarchy_pickers_name_what_their_button_acts_on():
    """Their labels are collapsed, so a screen reader says them beside "Remove" and "Use it
    for HEB-H": the remove picker read "Declared", which said nothing of removing."""
    at = open_app(dataset_tab="Hierarchies")
    at.selectbox(key="hier_feature").set_value("zip_code")
    at.radio(key="hier_kind").set_value("prefix of the label")
    at.text_input(key="hier_L").set_value("2")
    next(b for b in at.button if b.label == "Declare").click().run()
    assert_clean(at)
    assert at.selectbox(key="hier_remove_pick").label == "Declared hierarchy to remove"


def test_the_parent_picker_starts_on_another_column_and_a_self_parent_is_refused():
    """Issue 12: the parent column defaulted to the child itself (zip_code -> zip_code)."""
    at = open_app(dataset_tab="Hierarchies")
    names = list(at.selectbox(key="hier_feature").options)
    assert at.selectbox(key="hier_feature").value == names[0]
    assert at.selectbox(key="hier_parent").value == names[1]  # the first other column
    # declared anyway as its own parent: one message, nothing stored
    at.selectbox(key="hier_feature").set_value(names[1])
    next(b for b in at.button if b.label == "Declare").click().run()
    assert not at.exception
    assert [e.value for e in at.error] == [escape(SELF_PARENT.format(feature=names[1]))]
    assert at.session_state["hierarchies"]["builtin:zip-codes"] == ""
    # a real parent is taken
    at.selectbox(key="hier_parent").set_value(names[0])
    next(b for b in at.button if b.label == "Declare").click().run()
    assert_clean(at)
    wanted = hierarchies_text([Declared(names[1], parents=(names[0],))])
    assert at.session_state["hierarchies"]["builtin:zip-codes"] == wanted


def test_the_parent_picker_is_another_column_after_a_dataset_switch():
    """The picker kept its value across datasets: zip-codes' parent user_id stayed, and
    became the child itself on an upload whose first column is user_id."""
    at = open_app(dataset_tab="Hierarchies")
    assert at.selectbox(key="hier_parent").value == "user_id"
    rows = [f"u{i % 40},{'red' if i % 3 else 'blue'},{'a' if i % 2 else 'b'}" for i in range(120)]
    upload = "\n".join(["user_id,colour,label", *rows]).encode()
    uploader(at).upload("ids.csv", upload, "")
    at.run()
    assert_clean(at)
    assert at.selectbox(key="hier_feature").value == "user_id"
    assert at.selectbox(key="hier_parent").value == "colour"


def test_user_text_in_a_declaration_is_escaped():
    name = "[click](https://example.com) **bold** <b>x</b>"
    text = json.dumps([{"feature": name, "prefix": [2]}])
    at = open_app(hierarchies=text, dataset_tab="Hierarchies")
    note = f"{name} -> prefix 2: no column {name!r} here, left out."
    captions = [c.value for c in at.caption]
    assert escape(note) in captions
    assert not any("](https://" in c for c in captions)


# --------------------------------------------------------------------------- Compare
def test_heb_h_on_compare_uses_the_declared_hierarchy():
    query = {"methods": "HEB-M,HEB-H", "folds": "3"}
    without = open_app("pages/compare.py", **query)
    plain = table_with(without, "ECE ↓").set_index("method")
    # equal numbers said, not left to look like a mistake (the Dataset page alone said it)
    said = [i.value for i in without.info if "no category hierarchy" in i.value]
    assert len(said) == 1 and said[0].startswith("HEB\\-H was given") and "HEB\\-M" in said[0]
    at = open_app("pages/compare.py", hierarchies=ZIP_PREFIX, **query)
    assert not [i.value for i in at.info if "no category hierarchy" in i.value]
    shown = table_with(at, "ECE ↓").set_index("method")
    assert shown.loc["HEB-M"].drop("fit time (ms)").equals(plain.loc["HEB-M"].drop("fit time (ms)"))
    assert shown.loc["HEB-H", "Log-loss ↓"] != plain.loc["HEB-H", "Log-loss ↓"]
    # the numbers are heb.evaluate's with the same declaration
    expected = (
        cross_validate(
            hdata.load_builtin("zip-codes"),
            ["HEB-M", "HEB-H"],
            settings=RunSettings(dataset="builtin:zip-codes", n_splits=3, hierarchies=ZIP_PREFIX),
            use_cache=False,
        )
        .summary()
        .set_index("method")
    )
    row = expected.loc["HEB-H"]
    assert (
        shown.loc["HEB-H", "Log-loss ↓"]
        == f"{row['log_loss_mean']:.3f} ± {row['log_loss_std']:.3f}"
    )
    assert url(at, "hierarchies") == ZIP_PREFIX


# --------------------------------------------------------------------------- lesson
def _l1_metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric if "mean l1 error" in m.label}


def test_lesson_matches_its_computation_and_keeps_its_settings():
    at = open_app("pages/lesson_hierarchy.py")
    expected = hierarchy_lesson(200, "hierarchy", seed=0)
    assert _l1_metrics(at) == {
        f"{r.smoother}: mean l1 error": f"{r._2:.3f}" for r in expected["l1"].itertuples()
    }
    label = expected["labels"][expected["leaf"]]
    assert any(f"**{label}**" in m.value for m in at.markdown)
    # lazy tabs: only the open tab's figures are built (the sparse code: leaf and prefix)
    assert len(at.get("plotly_chart")) == 2
    at.session_state["hier_tab"] = "Concentration per level"
    at.run()
    assert len(at.get("plotly_chart")) == 1 and url(at, "hier_tab") == "Concentration per level"
    conc = table_with(at, "learned m")
    np.testing.assert_allclose(
        conc["learned m"], expected["concentrations"]["learned m"].round(3), rtol=1e-12
    )
    at.select_slider(key="w_hier_rows").set_value(1000).run()
    at.radio(key="w_hier_scenario").set_value("flat").run()
    assert_clean(at)
    flat = hierarchy_lesson(1000, "flat", seed=0)
    assert _l1_metrics(at) == {
        f"{r.smoother}: mean l1 error": f"{r._2:.3f}" for r in flat["l1"].itertuples()
    }
    assert url(at, "hier_rows") == "1000" and url(at, "hier_scenario") == "flat"
    fresh = open_app("pages/lesson_hierarchy.py", hier_rows="1000", hier_scenario="flat")
    assert _l1_metrics(fresh) == _l1_metrics(at)


def test_lesson_hierarchy_learns_the_tree_where_it_carries_signal():
    out = hierarchy_lesson(1000, "hierarchy", seed=0)
    l1 = out["l1"].set_index("smoother")["mean l1 error"]
    assert l1["HEB-H"] < l1["HEB-M"] < l1["Laplace"]
    table = out["leaf_table"]
    assert np.allclose(table["error"], table["estimate"] - table["truth"])
    # Laplace's estimate of the sparse code is (n + 1) / (N + K) by hand
    laplace = table[table["smoother"] == "Laplace"]
    n = out["counts"][laplace["class"], out["leaf"]]
    np.testing.assert_allclose(laplace["estimate"], (n + 1) / (1000 + 200))
    with pytest.raises(ValueError):
        hierarchy_lesson(10, "nope")


# --------------------------------------------------------------------------- Concentrations
def geo_csv(rows: int = 600, seed: int = 0) -> bytes:
    """A hand-made table with a hierarchy city -> region -> country the class follows."""
    rng = np.random.default_rng(seed)
    city = rng.integers(0, 16, rows)
    region, country = city // 4, city // 8
    p_yes = np.array([0.15, 0.35, 0.55, 0.75])[region]
    frame = pd.DataFrame(
        {
            "city": [f"c{c:02d}" for c in city],
            "region": [f"r{r}" for r in region],
            "country": [f"k{k}" for k in country],
            "colour": rng.choice(["red", "green", "blue"], rows),
            "label": np.where(rng.random(rows) < p_yes, "yes", "no"),
        }
    )
    return frame.to_csv(index=False).encode()


def working_codes(dataset) -> tuple[np.ndarray, np.ndarray, list[str], Preprocessor]:
    """The app's default encoding of a dataset (20,000-row subsample, 10 bins, impute)."""
    X, y_raw = dataset.X, dataset.y
    if len(X) > 20_000:
        X, y_raw = hdata.stratified_subsample(X, y_raw, max_rows=20_000)
    y, classes = hdata.encode_target(y_raw)
    pre = Preprocessor(n_bins=10, missing="impute", categorical=dataset.categorical)
    return pre.fit_transform(X), y, [str(c) for c in classes], pre


def open_heb_h_concentrations(at: AppTest) -> AppTest:
    at.switch_page("pages/concentrations.py").run()
    at.radio(key="w_conc_model").set_value("HEB-H").run()
    assert_clean(at)
    return at


def assert_levels_shown(at: AppTest, codes, y, classes, names, chains: dict) -> pd.DataFrame:
    """The page's level table against NaiveBayes("heb-h") and fit_nested on the same codes."""
    position = {name: f for f, name in enumerate(names)}
    levels = {
        position[child]: levels_from_chain(codes, position[child], [position[p] for p in parents])
        for child, parents in chains.items()
    }
    model = NaiveBayes(smoother="heb-h", hierarchies=levels).fit(codes, y)
    at.session_state["conc_tab"] = "Table"  # lazy tabs: only the open one is built
    at.run()
    shown = table_with(at, "level name")
    at.session_state["conc_tab"] = "Heatmaps"  # back to the tab the page opens on
    at.run()
    key = ["class name", "feature name", "level"]
    shown = shown.set_index(key).sort_index()
    # every level, from the engine's nested fit with the model's own settings
    raw = fit_nested(model.count_table_, levels, n0=model.n0).levels
    keep = np.isin(raw["feature"], list(levels))
    engine = (
        pd.DataFrame(
            {
                "class name": [classes[c] for c in raw["class"][keep]],
                "feature name": [names[f] for f in raw["feature"][keep]],
                "level": raw["level"][keep],
                "m": raw["m"][keep],
                "rho": raw["rho"][keep],
                "n_nodes": raw["n_nodes"][keep],
                "hierarchy_used": raw["hierarchy_used"][keep],
            }
        )
        .set_index(key)
        .sort_index()
    )
    assert list(shown.index) == list(engine.index)
    np.testing.assert_allclose(shown["m"], engine["m"], rtol=1e-9)
    np.testing.assert_allclose(shown["rho"], engine["rho"], rtol=1e-9)
    assert (shown["n_nodes"] == engine["n_nodes"]).all()
    assert (shown["hierarchy_used"] == engine["hierarchy_used"]).all()
    # the leaves' m of a pair that kept the tree is the model's own concentrations_ m
    diag = pd.DataFrame(model.concentrations_)
    diag["class name"] = [classes[c] for c in diag["class"]]
    diag["feature name"] = [names[f] for f in diag["feature"]]
    leaves = shown.xs(0, level="level").reset_index()
    merged = leaves.merge(diag, on=["class name", "feature name"], suffixes=("", "_nb"))
    kept = merged[merged["hierarchy_used"]]
    assert len(kept) > 0
    np.testing.assert_allclose(kept["m"], kept["m_nb"], rtol=1e-9)
    assert (merged["N_c"] == merged["N_c_nb"]).all()
    return shown


def test_concentrations_of_heb_h_per_level_on_a_hand_made_hierarchy():
    at = open_app()
    payload = geo_csv()
    uploader(at).upload("geo.csv", payload, "text/csv").run()
    assert_clean(at)
    open_heb_h_concentrations(at)
    assert any("Detected, not declared" in m.value for m in at.markdown)
    codes, y, classes, pre = working_codes(hdata.load_upload(payload, "geo.csv"))
    names = list(pre.feature_names_out_)
    shown = assert_levels_shown(
        at, codes, y, classes, names, {"city": ["region", "country"], "region": ["country"]}
    )
    names_shown = set(shown["level name"])
    assert {
        "city given region",
        "region given country",
        "country (top level of city)",
    } <= names_shown
    assert len(shown) == 2 * (3 + 2)  # two classes x (three levels of city, two of region)
    # the heatmap: one cell per class and level, coloured by log10 m, levels along x
    spec = next(
        json.loads(chart.proto.spec)
        for chart in at.get("plotly_chart")
        if json.loads(chart.proto.spec)["data"][0]["type"] == "heatmap"
    )
    z = decode(spec["data"][0]["z"])
    ticks = [t.replace("<br>", " ") for t in spec["layout"]["xaxis"]["ticktext"]]
    assert spec["layout"]["xaxis"]["title"]["text"] == "level"
    for row in shown.reset_index().itertuples():
        cell = z[classes.index(row._1), ticks.index(row._4)]
        np.testing.assert_allclose(cell, np.log10(row.m), rtol=1e-12)


def decode(values) -> np.ndarray:
    """A plotly 7 array: a list, or ``{"dtype", "bdata", "shape"}`` base64."""
    if isinstance(values, dict) and "bdata" in values:
        array = np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"])
        shape = values.get("shape")
        if shape is not None:
            shape = [int(n) for n in shape.split(",")] if isinstance(shape, str) else shape
            array = array.reshape(shape)
        return array
    return np.asarray(values, dtype=float)


def test_concentrations_of_heb_h_on_amazon_with_declared_hierarchies(datasets_dir):
    text = hierarchies_text(
        [
            Declared("ROLE_ROLLUP_2", parents=("ROLE_ROLLUP_1",)),
            Declared("ROLE_TITLE", parents=("ROLE_FAMILY",)),
        ]
    )
    at = open_heb_h_concentrations(
        open_app(dataset="shared:amazon-employee-access", hierarchies=text)
    )
    assert any("declared on the Dataset page" in m.value for m in at.markdown)
    codes, y, classes, pre = working_codes(hdata.load_dataset("shared:amazon-employee-access"))
    chains = {"ROLE_ROLLUP_2": ["ROLE_ROLLUP_1"], "ROLE_TITLE": ["ROLE_FAMILY"]}
    shown = assert_levels_shown(at, codes, y, classes, list(pre.feature_names_out_), chains)
    assert len(shown) == 2 * 2 * 2  # two classes x two hierarchies x two levels


def test_concentrations_say_plainly_when_there_is_no_hierarchy():
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue"], 300),
            "shop": rng.integers(0, 20, 300),
            "label": rng.choice(["yes", "no"], 300),
        }
    )
    at = open_app()
    uploader(at).upload("flat.csv", frame.to_csv(index=False).encode(), "")
    at.run()
    open_heb_h_concentrations(at)
    assert any("This dataset has no hierarchy" in i.value for i in at.info)
    assert not [f for f in at.dataframe if "level name" in f.value.columns]
    # HEB-H is HEB-M here, and HEB-M's numbers are shown (the page once showed nothing)
    shown = {m.label: m.value for m in at.metric}
    assert shown["Pairs"] == "4" and "Median m" in shown
    at.radio(key="w_conc_model").set_value("HEB-M").run()
    assert {m.label: m.value for m in at.metric} == shown
    at.radio(key="w_conc_model").set_value("HEB-H").run()
    # its button opens the Dataset page on the tab where one is declared
    at.button(key="declare_hierarchy").click().run()
    assert_clean(at)
    assert at.session_state["dataset_tab"] == "Hierarchies"
    assert [b for b in at.button if b.label == "Declare"]  # the declaration form is drawn


def test_the_declare_forms_inputs_say_which_choice_reads_them():
    """ "Prefix lengths" stood beside a chosen "parent column" as if part of it; a form
    sends its inputs together, so both stay and each names its choice."""
    at = open_app(dataset_tab="Hierarchies")
    assert_clean(at)
    assert at.selectbox(key="hier_parent").label == "Parent column (if a parent column)"
    assert at.text_input(key="hier_L").label == "Prefix lengths, finest first (if a prefix)"


def test_the_engine_notes_a_heb_h_run_without_a_hierarchy():
    data = hdata.load_builtin("zip-codes")
    plain = cross_validate(data, ["heb-m", "heb-h"], n_splits=3, use_cache=False)
    assert plain.notes == [
        "HEB-H was given no category hierarchy, so it ran as HEB-M (the same numbers): "
        "declare one (on the app's Dataset page, --hierarchy on the command line, "
        "RunSettings(hierarchies=...) in Python) for it to borrow along."
    ]
    scores = plain.summary().set_index("method")["log_loss_mean"]
    assert scores["HEB-H"] == pytest.approx(scores["HEB-M"], rel=1e-9)  # names as registered
    declared = RunSettings(n_splits=3, hierarchies=ZIP_PREFIX)
    assert cross_validate(data, ["heb-h"], settings=declared, use_cache=False).notes == []
    assert cross_validate(data, ["heb-m", "laplace"], n_splits=3, use_cache=False).notes == []


def test_level_tick_labels_wrap_to_their_share_of_the_heatmaps_width():
    """amazon's four HEB-H levels: "(top level of ROLE_TITLE)" ran into its neighbour."""
    from explorer.concentrations import LEVEL_TICK_CHARS, level_tick_labels

    names = [
        "ROLE_TITLE given ROLE_FAMILY",
        "ROLE_FAMILY (top level of ROLE_TITLE)",
        "ROLE_CODE given ROLE_FAMILY",
        "ROLE_FAMILY (top level of ROLE_CODE)",
    ]
    ticks = level_tick_labels(names)
    assert ticks[0] == "ROLE_TITLE<br>given ROLE_FAMILY"
    assert ticks[1] == "ROLE_FAMILY<br>(top level of<br>ROLE_TITLE)"
    width = LEVEL_TICK_CHARS // len(names)
    assert all(len(line) <= width for tick in ticks for line in tick.split("<br>"))
    # two levels have room: one line each after the break
    assert level_tick_labels(names[:2])[1] == "ROLE_FAMILY<br>(top level of ROLE_TITLE)"
    # names are escaped
    assert level_tick_labels(["<b>x</b> given y"]) == ["&lt;b&gt;x&lt;/b&gt;<br>given y"]
