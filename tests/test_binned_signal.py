"""The signal rule of the numeric-code note (``explorer/summaries.py``
binned_signal_columns): a whole-number column whose values tell the target more than its
quantile bins, on the Dataset page as one note with one button for several columns
(``pages/dataset.py`` numeric_code_notes)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from explorer import summaries
from explorer.errors import escape
from heb import data as hdata
from heb.counts import CountTable
from heb.data import Preprocessor, code_signal
from heb.smoothing import mutual_information
from tests.test_app import assert_clean, open_app, table_with, unescape, uploader

#: these columns tie their bins on purpose: the Preprocessor's warning of it is expected
pytestmark = pytest.mark.filterwarnings("ignore:Column .* quantile bins tie into one")

#: a markdown link as user text: it must reach the page as text (tests/test_app.py's LINK)
LINK = "[Click](https://example.com)"


def shops(rows: int = 3_000, seed: int = 0) -> pd.DataFrame:
    """A shop's customers: a product code (200 six-digit numbers, each class preferring
    its own products: the order of the numbers means nothing), a spend that grows with the
    class (a smooth measurement), a refund count that is 0 for most rows and non-zero
    mostly for one class (its quantiles tie into one bin) and an unrelated number."""
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, rows)
    products = rng.choice(np.arange(100_000, 1_000_000), 200, replace=False)
    prefer = [rng.dirichlet(np.full(200, 0.3)) for _ in range(2)]
    product = np.array([rng.choice(products, p=prefer[c]) for c in label])
    spend = np.rint(rng.normal(np.where(label == 1, 1200, 800), 300)).astype(int)
    nonzero = rng.random(rows) < np.where(label == 1, 0.12, 0.01)
    return pd.DataFrame(
        {
            "product": product,
            "spend": spend,
            "refunds": np.where(nonzero, rng.integers(1, 40, rows), 0),
            "noise": rng.integers(0, 500, rows),
            "label": np.where(label == 1, "churned", "stayed"),
        }
    )


def csv(frame: pd.DataFrame) -> bytes:
    return frame.to_csv(index=False).encode()


def working(dataset: hdata.Dataset) -> SimpleNamespace:
    """What binned_signal_columns reads of loading.WorkingData: names, encoder, counts."""
    pre = Preprocessor(categorical=dataset.categorical).fit(dataset.X)
    y = pd.factorize(dataset.y)[0]
    table = CountTable.from_codes(
        pre.transform(dataset.X), y, int(y.max()) + 1, n_categories=pre.n_categories_
    )
    return SimpleNamespace(
        feature_names=[str(n) for n in pre.feature_names_out_], preprocessor=pre, table=table
    )


def signal_of(frame: pd.DataFrame) -> tuple[hdata.Dataset, SimpleNamespace, dict]:
    dataset = hdata.load_upload(csv(frame), "shops.csv", target="label")
    work = working(dataset)
    check = summaries.binned_signal_columns(dataset, work)
    assert check.unweighed == []  # well within the budget
    return dataset, work, check.found


# --------------------------------------------------------------------------- the rule
def test_codes_and_a_tied_count_are_flagged_a_measurement_and_noise_are_not():
    dataset, work, found = signal_of(shops())
    assert list(found) == ["product", "refunds"]  # feature order
    product, refunds = found["product"], found["refunds"]
    # the product code's 10 bins keep a little of what its 200 values tell
    assert product.bins == 10 and product.rows == 3_000 and 150 < product.distinct <= 200
    assert product.by_value > 5 * product.in_bins > 0
    # 0 in most rows: every quantile below the top is 0, so the bins are one
    assert refunds.bins == 1 and refunds.in_bins == 0.0 and refunds.by_value > 0.02
    # spend is binned well (its bins keep most of it); noise says nothing either way
    assert dict(zip(work.feature_names, work.table.n_categories, strict=True))["spend"] == 10


def test_the_figures_are_the_plug_in_mi_above_its_exact_chance_level():
    """by_value is the MI of the values as categories minus its expectation under shuffled
    labels; in_bins the same of the encoder's bins (hand-built here)."""
    from heb.expected_mi import expected_mutual_information

    dataset, work, found = signal_of(shops(seed=1))
    values = pd.factorize(dataset.X["product"])[0]
    y = pd.factorize(dataset.y)[0]
    table = CountTable.from_codes(values[:, None], y, 2)
    expected = mutual_information(table) - expected_mutual_information(table)
    assert found["product"].by_value == pytest.approx(expected[0], abs=1e-12)
    j = work.feature_names.index("product")
    assert found["product"].in_bins == pytest.approx(
        mutual_information(work.table)[j] - expected_mutual_information(work.table)[j],
        abs=1e-12,
    )


@pytest.mark.parametrize("seed", range(12))
def test_unrelated_numbers_are_not_flagged_however_many_values(seed):
    """Many values score high by chance alone (a value per row scores H(Y)); the chance
    level and the 4-sd margin keep every such column out."""
    rng = np.random.default_rng(100 + seed)
    rows = [300, 1_000, 3_000][seed % 3]
    frame = pd.DataFrame(
        {
            "few": rng.integers(0, 20, rows),
            "some": rng.integers(0, 150, rows),
            "many": rng.integers(0, rows // 2, rows),
            "per_row": rng.permutation(rows) + 10**6,
            "label": rng.choice(["a", "b", "c"], rows),
        }
    )
    assert signal_of(frame)[2] == {}


def test_the_two_thresholds_decide_at_the_measured_figures(monkeypatch):
    """A column is listed when its values tell at least SIGNAL_RATIO times its bins and
    SIGNAL_SDS null standard deviations more: each threshold set just past the product
    code's own figures drops it, just short keeps it."""
    assert code_signal.SIGNAL_RATIO == 2.0 and code_signal.SIGNAL_SDS == 4.0
    dataset, work, found = signal_of(shops())
    product = found["product"]
    ratio = product.by_value / product.in_bins
    sds = (product.by_value - product.in_bins) / code_signal.null_mi_sd(
        product.distinct, 2, product.rows
    )
    for name, edge in (("SIGNAL_RATIO", ratio), ("SIGNAL_SDS", sds)):
        monkeypatch.setattr(code_signal, name, edge * (1 - 1e-9))
        assert "product" in summaries.binned_signal_columns(dataset, work).found
        monkeypatch.setattr(code_signal, name, edge * (1 + 1e-9))
        assert "product" not in summaries.binned_signal_columns(dataset, work).found
        monkeypatch.undo()


def test_a_mostly_zero_count_unrelated_to_the_target_is_not_named():
    """The skewed chi-square of a few-valued column: 4 sd alone named about 1 in 600 such
    columns; the tail margin (SIGNAL_P) names none of 400 here."""
    rng = np.random.default_rng(11)
    named, rows, per_file = [], 2_000, 20  # 400 columns, 20 to a file (one load each)
    for _ in range(400 // per_file):
        counts = np.where(
            rng.random((rows, per_file)) < 0.92, 0, rng.integers(1, 14, (rows, per_file))
        )
        frame = pd.DataFrame(counts, columns=[f"count{i}" for i in range(per_file)])
        frame["label"] = rng.choice(["a", "b"], rows)
        named += list(signal_of(frame)[2])
    assert named == []
    # the margin is the larger of 4 sd and the tail's excess: the tail's at small df
    sd = code_signal.null_mi_sd(13, 2, 2_000)
    assert code_signal.null_mi_margin(13, 2, 2_000) > 6 * sd
    assert code_signal.null_mi_margin(1, 2, 2_000) == 0.0


def test_the_null_sd_by_hand_and_by_simulation():
    """sqrt(2 (K-1)(C-1)) / (2 N): 101 values, 2 classes, 200 rows give sqrt(200) / 400;
    and 400 unrelated 50-valued columns over 3 classes and 4,000 rows spread about so."""
    assert code_signal.null_mi_sd(101, 2, 200) == pytest.approx(np.sqrt(200) / 400, rel=1e-12)
    assert code_signal.null_mi_sd(1, 5, 100) == 0.0 and code_signal.null_mi_sd(7, 1, 100) == 0.0
    rng = np.random.default_rng(0)
    rows, columns = 4_000, 400
    X = rng.integers(0, 50, (rows, columns))
    y = rng.integers(0, 3, rows)
    mi = mutual_information(CountTable.from_codes(X, y, 3, np.full(columns, 50)))
    assert np.std(mi) == pytest.approx(code_signal.null_mi_sd(50, 3, rows), rel=0.15)


def test_missing_values_and_rows_past_the_sample(monkeypatch):
    """Only a column's non-missing rows are counted; past CODE_SAMPLE_ROWS rows, the same
    random sample as the count rule."""
    frame = shops()
    frame.loc[::10, "product"] = np.nan  # 300 rows
    found = signal_of(frame)[2]
    assert found["product"].rows == 2_700 and found["refunds"].rows == 3_000
    monkeypatch.setattr(summaries, "CODE_SAMPLE_ROWS", 1_000)
    dataset, work, found = signal_of(shops(rows=3_000, seed=2))
    assert found["product"].rows == 1_000


def test_the_count_rule_and_the_signal_rule_count_the_same_rows(monkeypatch):
    """Past CODE_SAMPLE_ROWS both rules count the same random rows: a code missing in a
    random third of the rows has as many non-missing rows in each rule's sample."""
    monkeypatch.setattr(summaries, "CODE_SAMPLE_ROWS", 1_000)
    frame = shops(rows=3_000, seed=4).rename(columns={"product": "product_code"})
    frame.loc[np.random.default_rng(5).random(3_000) < 1 / 3, "product_code"] = np.nan
    with pytest.warns(UserWarning, match="its name says code"):
        dataset, work, found = signal_of(frame)
    distinct, rows = summaries.numeric_code_columns(dataset, work)["product_code"]
    assert 600 < rows < 720  # about 2/3 of 1,000
    assert (found["product_code"].rows, found["product_code"].distinct) == (rows, distinct)
    picked = code_signal.counted_positions(3_000, 1_000)
    assert rows == int(dataset.X["product_code"].iloc[picked].notna().sum())


def test_case_missing_as_a_category_is_not_a_bin():
    """With ``missing="category"`` the encoder adds a "(missing)" category: the bins the
    values fall in are still 10 (the product code) and 1 (the refund count)."""
    frame = shops()
    frame.loc[::7, ["product", "refunds"]] = np.nan
    dataset = hdata.load_upload(csv(frame), "shops.csv", target="label")
    pre = Preprocessor(missing="category").fit(dataset.X)
    n_categories = dict(zip(pre.feature_names_out_, pre.n_categories_, strict=True))
    assert n_categories["product"] == 11 and n_categories["refunds"] == 2
    assert code_signal.value_bins(pre)["product"] == 10
    found = code_signal.binned_signal_columns(dataset.X, dataset.y, pre).found
    assert found["product"].bins == 10 and found["refunds"].bins == 1
    # the same figures as imputing: missing rows are left out of both counts
    imputed = code_signal.binned_signal_columns(
        dataset.X, dataset.y, Preprocessor().fit(dataset.X)
    ).found
    assert found["product"].by_value == pytest.approx(imputed["product"].by_value)
    assert found["product"].rows == imputed["product"].rows == 3_000 - 429


def test_case_integer_column_names_are_weighed():
    """A frame whose columns are named 0, 1, ... (the encoder reads them as "0", "1"):
    the same columns are found, under their names as text."""
    frame = shops()
    X = frame.drop(columns="label")
    named = code_signal.binned_signal_columns(X, frame["label"], Preprocessor().fit(X)).found
    X.columns = range(X.shape[1])
    numbered = code_signal.binned_signal_columns(X, frame["label"], Preprocessor().fit(X))
    assert list(numbered.found) == ["0", "2"] and list(named) == ["product", "refunds"]
    assert numbered.found["0"] == named["product"]
    assert code_signal.whole_number_bins(X, {"0": "numeric", "1": "numeric"}, [0, "1"]) == [
        "0",
        "1",
    ]


def test_a_table_of_exactly_the_sample_size_is_counted_whole(monkeypatch):
    """At CODE_SAMPLE_ROWS rows every row is counted, and the note says no sample."""
    monkeypatch.setattr(summaries, "CODE_SAMPLE_ROWS", 3_000)
    dataset, work, found = signal_of(shops())
    assert found["product"].rows == 3_000
    assert summaries.numeric_code_lines(dataset, work, found)[1] == "3,000 rows"
    monkeypatch.setattr(summaries, "CODE_SAMPLE_ROWS", 2_999)
    dataset, work, found = signal_of(shops())
    counted = summaries.numeric_code_lines(dataset, work, found)[1]
    assert counted == "2,999 rows drawn at random from the 3,000"


def test_nothing_to_weigh_gives_nothing():
    """No whole-number column, or one with no more values than bins, or rows of one class
    once the column's missing rows are left out: no signal, no error."""
    frame = shops()[["spend", "label"]].assign(spend=lambda f: f["spend"] + 0.5)
    assert signal_of(frame)[2] == {}
    frame = shops().assign(product=lambda f: f["product"] % 7)  # 7 values, 7 bins
    assert "product" not in signal_of(frame)[2]
    frame = shops()
    frame.loc[frame["label"] == "stayed", "refunds"] = np.nan
    assert "refunds" not in signal_of(frame)[2]


def test_chance_cost_counts_the_cells_and_terms_the_chance_level_sums():
    """By hand: values of 1 and 3 rows over classes of 2 and 2 rows (N = 4): cells (1, 2)
    sum n = 1..1, cells (3, 2) n = 1..2: 1 + 1 + 2 + 2 = 6 terms, in 4 cells."""
    assert code_signal.chance_cost(np.array([1, 3]), np.array([2, 2])) == 6 + 4
    # a value per row: one term (n = 1) per cell
    assert code_signal.chance_cost(np.ones(10, np.int64), np.array([5, 5])) == 20 + 20
    # a cell with no possible count >= 1 costs nothing: 3 rows of a value, 1 of another,
    # classes of 4 and 0 rows (a class absent from these rows)
    assert code_signal.chance_cost(np.array([3, 1]), np.array([4, 0])) == 2 + 2


def test_columns_are_weighed_cheapest_first_within_the_budget(monkeypatch):
    """Past SIGNAL_TERMS the costliest columns are left unweighed (and said so), the
    cheapest still weighed: a 50-class table of 30 codes took 4 s unbudgeted. The rows
    whose class is missing are already gone (``load_upload``)."""
    frame = shops()
    dataset = hdata.load_upload(csv(frame), "shops.csv", target="label")
    work = working(dataset)
    y = pd.factorize(dataset.y)[0]
    costs = {
        name: code_signal.chance_cost(np.bincount(pd.factorize(dataset.X[name])[0]), np.bincount(y))
        for name in ("product", "spend", "refunds", "noise")
    }
    # where every value has fewer rows than every class: a term per row and class (C N),
    # plus the C K cells
    for name in ("product", "spend", "noise"):
        assert costs[name] == 2 * 3_000 + 2 * dataset.X[name].nunique()
    assert costs["refunds"] < costs["product"]
    monkeypatch.setattr(code_signal, "SIGNAL_TERMS", costs["refunds"] + costs["product"])
    check = summaries.binned_signal_columns(dataset, work)
    # cheapest first; both lists in feature order
    assert list(check.found) == ["product", "refunds"]
    assert check.unweighed == ["spend", "noise"]
    monkeypatch.setattr(code_signal, "SIGNAL_TERMS", costs["refunds"] + costs["product"] - 1)
    check = summaries.binned_signal_columns(dataset, work)
    assert list(check.found) == ["refunds"] and check.unweighed == ["product", "spend", "noise"]
    monkeypatch.setattr(code_signal, "SIGNAL_TERMS", 0)
    check = summaries.binned_signal_columns(dataset, work)
    assert check.found == {} and check.unweighed == ["product", "spend", "refunds", "noise"]


# --------------------------------------------------------------------------- the notes
def test_the_notes_give_the_figures_and_the_advice():
    dataset, work, found = signal_of(shops())
    notes = summaries.numeric_code_notes(dataset, work, found)
    assert list(notes) == ["product", "refunds"]
    product = found["product"]
    assert notes["product"].startswith(
        f"'product' holds {product.distinct:,} different whole numbers in 3,000 rows: it is "
        "binned as a number, into 10 bins. Counted value by value it tells "
        f"{product.by_value:.3f} nats about the target beyond chance, in its bins "
        f"{product.in_bins:.3f}"
    )
    assert "into a single bin (its quantiles tie)" in notes["refunds"]
    assert "in its bins 0.000" in notes["refunds"]
    advice = "Treated as categorical, each value counts on its own: what a code needs"
    assert all(advice in n and "If it is" not in n for n in notes.values())
    # the rule weighs what the bins lose, not whether the numbers are codes: it says so
    assert all("worth a comparison on Compare for a measurement" in n for n in notes.values())
    # without the signal, as before: the count rule alone (nothing here passes it)
    assert summaries.numeric_code_notes(dataset, work) == {}
    lines, counted = summaries.numeric_code_lines(dataset, work, found)
    assert counted == "3,000 rows"
    assert lines["refunds"] == (
        f"'refunds': {found['refunds'].distinct:,} values in 1 bin; value by value "
        f"{found['refunds'].by_value:.3f} nats above chance, in its bins 0.000."
    )


def test_a_column_both_rules_find_is_noted_once_with_its_figures():
    """A product code whose name says code passes the count rule too: one note, with the
    signal's figures."""
    frame = shops().rename(columns={"product": "product_code"})
    with pytest.warns(UserWarning, match="its name says code"):
        dataset, work, found = signal_of(frame)
    assert "product_code" in summaries.numeric_code_columns(dataset, work)
    assert "product_code" in found
    notes = summaries.numeric_code_notes(dataset, work, found)
    assert list(notes) == ["product_code", "refunds"]
    assert "value by value" in notes["product_code"]
    # without the signal the count rule's note, as before
    plain = summaries.numeric_code_notes(dataset, work)
    assert list(plain) == ["product_code"] and "If it is a code" in plain["product_code"]


# --------------------------------------------------------------------------- the page
def upload(frame: pd.DataFrame):
    at = open_app()
    uploader(at).upload("shops.csv", csv(frame), "text/csv").run()
    assert_clean(at)
    return at


def feature_types(at) -> dict[str, str]:
    frame = table_with(at, "MI with target (nats)")
    return dict(zip(frame["feature"], frame["type"], strict=True))


def test_case_codes_told_by_their_values():
    at = upload(shops())
    (note,) = [i.value for i in at.info if "whole-number columns are binned" in i.value]
    text = unescape(note)
    assert text.startswith("2 whole-number columns are binned as numbers")
    assert "Counted on 3,000 rows:" in text
    assert "- 'product': " in text and "- 'refunds': " in text and "in 1 bin" in text
    assert feature_types(at)["product"] == feature_types(at)["refunds"] == "numeric"
    at.button(key="declare_categorical_all").click().run()
    assert_clean(at)
    types = feature_types(at)
    assert types["product"] == types["refunds"] == "categorical"
    assert types["spend"] == types["noise"] == "numeric"
    assert at.multiselect(key="upload_categorical").value == ["product", "refunds"]
    assert not [i for i in at.info if "whole-number" in i.value or "whole numbers" in i.value]


def test_case_value_per_row_code_beside_told_codes():
    """An order number (a value per row: the count rule's) is listed with the rest, but
    its values tell nothing its bins do not: the shared button leaves it, its own takes it."""
    frame = shops().assign(order=lambda f: np.random.default_rng(9).permutation(3_000) + 10**6)
    at = upload(frame)
    (note,) = [unescape(i.value) for i in at.info if "whole-number columns are" in i.value]
    assert note.startswith("3 whole-number columns are binned as numbers")
    assert "- 'order': 3,000 values in 3,000 rows, mixed in 10 quantile bins." in note
    shared = at.button(key="declare_categorical_all")
    assert shared.label == "Treat the 2 whose values tell more as categorical"
    assert at.button(key="declare_categorical_0").label == "Treat order as categorical"
    shared.click().run()
    assert_clean(at)
    types = feature_types(at)
    assert types["product"] == types["refunds"] == "categorical" and types["order"] == "numeric"
    # the order number alone is left: its own note and button
    (note,) = [unescape(i.value) for i in at.info if "different whole numbers" in i.value]
    assert note.startswith("'order' holds 3,000 different whole numbers")
    at.button(key="declare_categorical_0").click().run()
    assert_clean(at)
    assert feature_types(at)["order"] == "categorical"


def test_case_one_told_column():
    frame = shops().drop(columns="product")
    at = upload(frame)
    (note,) = [unescape(i.value) for i in at.info if "different whole numbers" in i.value]
    assert note.startswith("'refunds' holds") and "a single bin" in note
    assert at.button(key="declare_categorical_0").label == "Treat refunds as categorical"
    at.button(key="declare_categorical_0").click().run()
    assert_clean(at)
    assert feature_types(at)["refunds"] == "categorical"


def test_case_unweighed_whole_number_columns(monkeypatch):
    """Columns past the budget are named under the notes, as text."""
    monkeypatch.setattr(code_signal, "SIGNAL_TERMS", 0)
    at = upload(shops().rename(columns={"noise": LINK}))
    (caption,) = [c.value for c in at.caption if "Not weighed" in c.value]
    assert LINK not in caption and LINK in unescape(caption)
    assert "(4 whole-number columns" in unescape(caption) and "'product'" in unescape(caption)
    assert not [i for i in at.info if "whole-number columns are binned" in i.value]


def test_unweighed_columns_are_named_under_the_notes(monkeypatch):
    """What was weighed comes first: the shared note, its button, then the caption naming
    the columns past the budget. A table of its own: the page caches its notes per data."""
    frame = shops(seed=11)
    dataset = hdata.load_upload(csv(frame), "shops.csv", target="label")
    y = np.bincount(pd.factorize(dataset.y)[0])
    cost = sum(
        code_signal.chance_cost(np.bincount(pd.factorize(dataset.X[name])[0]), y)
        for name in ("product", "refunds")
    )
    monkeypatch.setattr(code_signal, "SIGNAL_TERMS", cost)
    at = upload(frame)
    order = [
        "note"
        if "whole-number columns are binned" in str(getattr(node, "value", ""))
        else "caption"
        if "Not weighed" in str(getattr(node, "value", ""))
        else "button"
        if getattr(node, "key", None) == "declare_categorical_all"
        else None
        for node in at.main
    ]
    assert [kind for kind in order if kind] == ["note", "button", "caption"]
    (caption,) = [c.value for c in at.caption if "Not weighed" in c.value]
    assert "(2 whole-number columns" in caption and "'spend', 'noise'" in unescape(caption)


def test_the_shared_note_explains_mi_only_when_it_gives_figures():
    """Two order numbers (a value per row each: the count rule's) share a note without
    figures, so without the clause explaining "MI above chance", and a button each."""
    rng = np.random.default_rng(8)
    frame = shops()[["spend", "label"]].assign(
        order=rng.permutation(3_000) + 10**6, invoice=rng.permutation(3_000) + 10**7
    )
    at = upload(frame)
    (note,) = [unescape(i.value) for i in at.info if "whole-number columns are" in i.value]
    assert note.startswith("2 whole-number columns are binned as numbers")
    assert "MI above chance" not in note and "nats" not in note
    assert note.endswith("Treated as categorical, each value counts on its own.")
    assert "declare_categorical_all" not in [b.key for b in at.button]
    labels = [at.button(key=f"declare_categorical_{i}").label for i in range(2)]
    assert labels == ["Treat order as categorical", "Treat invoice as categorical"]
    # with figures the clause is there
    at = upload(shops())
    (note,) = [unescape(i.value) for i in at.info if "whole-number columns are" in i.value]
    assert "(MI above chance: what a column tells about the target beyond" in note


def test_column_names_in_the_shared_note_are_text():
    """A markdown link as a column name is listed as text, not a link."""
    at = upload(shops().rename(columns={"product": LINK}))
    (note,) = [i.value for i in at.info if "whole-number columns are binned" in i.value]
    assert LINK not in note and f"- {escape(f'{LINK!r}:')} " in note
    assert f"- {repr(LINK)}: " in unescape(note)


# --------------------------------------------------------------------------- the CLI
def _bench(tmp_path, capsys, *options: str) -> str:
    from heb.cli import main

    path = tmp_path / "shops.csv"
    if not path.exists():
        path.write_bytes(csv(shops()))
    out = tmp_path / f"out{len(list(tmp_path.iterdir()))}"
    args = ["bench", str(path), "--folds", "2", "--tables", "1", "--no-figures", "--no-cache"]
    assert main([*args, *options, "-o", str(out)]) == 0
    return capsys.readouterr().err


def test_bench_names_the_columns_its_bins_would_blur(tmp_path, capsys):
    """``heb bench FILE`` says the same of a file as the Dataset page, a line each, and the
    option that reads the columns as categories."""
    err = _bench(tmp_path, capsys)
    _, _, found = signal_of(shops())
    product, refunds = found["product"], found["refunds"]
    assert (
        f"  shops: 'product' ({product.distinct:,} different whole numbers) tells the target "
        f"{product.by_value:.3f} nats above chance value by value, {product.in_bins:.3f} in "
        "its 10 bins.\n"
    ) in err
    assert f"{refunds.in_bins:.3f} in its 1 bin.\n" in err
    assert "  shops: pass --categorical product,refunds to read them as categories." in err
    assert "'spend'" not in err and "'noise'" not in err
    # declared: read as categories, so not said again; one left: "it"
    err = _bench(tmp_path, capsys, "--categorical", "product")
    assert "'product'" not in err
    assert "shops: pass --categorical refunds to read it as categories." in err
    err = _bench(tmp_path, capsys, "--categorical", "product,refunds")
    assert "pass --categorical" not in err and "whole numbers) tells" not in err


def test_bench_quotes_the_option_for_the_shell(tmp_path, capsys):
    """A column name with a space is quoted in the suggested option, as a shell needs."""
    from heb.cli import main

    path = tmp_path / "shops.csv"
    path.write_bytes(csv(shops().rename(columns={"refunds": "refund count"})))
    args = ["bench", str(path), "--folds", "2", "--tables", "1", "--no-figures", "--no-cache"]
    assert main([*args, "-o", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert "'refund count' (" in err
    assert "pass --categorical 'product,refund count' to read them as categories." in err


def test_bench_says_nothing_of_catalogue_data(tmp_path, capsys):
    """Built-in, catalogue and OpenML data are typed by their source: no such line."""
    from heb.cli import main

    out = tmp_path / "out"
    args = ["bench", "builtin:digits", "--folds", "2", "--tables", "1", "--no-figures"]
    assert main([*args, "--no-cache", "-o", str(out)]) == 0
    assert "whole numbers) tells" not in capsys.readouterr().err


def test_bench_past_the_sample_fits_the_bins_as_the_page_does(tmp_path, capsys):
    """On a file of more than SAMPLE_ROWS rows the bins are fitted on the rows the run
    evaluates (``--max-rows``, ``--n-bins``, ``--missing``, as the page's
    ``loading._working``), the figures counted on the rule's random sample: the same lines
    as the page's note."""
    from heb.cli import main
    from heb.evaluate.folds import evaluated_data

    frame = shops(rows=26_000, seed=3)
    frame.loc[::9, "product"] = np.nan
    path = tmp_path / "shops.csv"
    path.write_bytes(csv(frame))
    dataset = hdata.load_upload(csv(frame), "shops.csv", target="label")
    X = evaluated_data(dataset, 5_000)[0]
    pre = Preprocessor(n_bins=8, missing="category", categorical=dataset.categorical).fit(X)
    found = code_signal.binned_signal_columns(dataset.X, dataset.y, pre).found
    product = found["product"]
    assert product.bins == 8 and 17_000 < product.rows < 18_500  # 8/9 of SAMPLE_ROWS
    args = ["bench", str(path), "--folds", "2", "--tables", "1", "--no-figures", "--no-cache"]
    options = ["--max-rows", "5000", "--n-bins", "8", "--missing", "category"]
    assert main([*args, *options, "-o", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert (
        f"'product' ({product.distinct:,} different whole numbers) tells the target "
        f"{product.by_value:.3f} nats above chance value by value, {product.in_bins:.3f} in "
        "its 8 bins.\n"
    ) in err
