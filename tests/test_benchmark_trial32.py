"""The Benchmark page after trial 32: an upload without a usable target neither chosen nor
fatal, notes when too few datasets can make a test significant, a link's left-out upload,
ties the score table shows but the ranks do not, the CD diagram's type when presenting."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_app import assert_clean, open_app, uploader  # the app suite's helpers

#: a hostile file name: markdown in it must show as text
NO_TARGET_FILE = "no_target[x](y).csv"


def _no_target_csv(rows: int = 500) -> bytes:
    """The trial's file: grade (25 whole numbers), color (26 letters), price (decimals,
    the last column): no column reads as classes, the Dataset page asks for a target."""
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {
            "grade": rng.integers(0, 25, rows),
            "color": rng.choice(list("abcdefghijklmnopqrstuvwxyz"), rows),
            "price": rng.uniform(1, 100, rows).round(3),
        }
    )
    return frame.to_csv(index=False).encode()


def test_case_benchmark_upload_without_target():
    """An upload without a usable target is offered, not chosen, and skipped in a run."""
    at = open_app(methods="Laplace,HEB-M")
    uploader(at).upload(NO_TARGET_FILE, _no_target_csv(), "text/csv").run()
    spec = at.session_state["data_spec"]
    assert at.session_state["uploads"][spec]["needs_target"]
    at.switch_page("pages/benchmark.py").run()
    assert_clean(at)
    picker = at.multiselect(key="w_bench_datasets")
    assert spec not in picker.value and len(picker.value) >= 2  # not pre-selected
    assert f"{NO_TARGET_FILE} (upload, no target yet)" in picker.options  # but offered
    picker.set_value([spec, "builtin:iris", "builtin:wine"]).run()
    assert any("no target yet" in c.value and "a run skips it" in c.value for c in at.caption)
    at.button(key="bench_run").click().run()
    assert_clean(at)  # no error box: the other datasets ran
    tables = [t.value for t in at.dataframe if "average rank" in t.value.index]
    assert tables and set(tables[0].index) == {"iris", "wine", "average rank"}
    skipped = [w.value for w in at.warning if w.value.startswith("Skipped")]
    assert len(skipped) == 1, skipped
    assert skipped[0].startswith("Skipped no\\_target\\[x\\]\\(y\\)\\.csv \\(upload\\, no target")
    assert "price" in skipped[0] and "\n" not in skipped[0]
    assert [s.label for s in at.status] == [at.status[0].label]
    assert at.status[0].label.endswith("(1 skipped)")


def test_a_run_with_fewer_than_two_loadable_datasets_fails_in_its_progress_box():
    at = open_app(methods="Laplace,HEB-M")
    uploader(at).upload(NO_TARGET_FILE, _no_target_csv(), "text/csv").run()
    spec = at.session_state["data_spec"]
    at.switch_page("pages/benchmark.py").run()
    at.multiselect(key="w_bench_datasets").set_value([spec, "builtin:iris"]).run()
    at.button(key="bench_run").click().run()
    assert at.status and at.status[0].label == "Benchmark failed"
    assert any("Only 1 of the 2 datasets loaded" in e.value for e in at.error)
    # and why the other did not: its note stays in the failed box
    assert any(w.value.startswith("Skipped no\\_target") for w in at.warning)


# ------------------------------------------------------------- too few datasets to test
def _scores_frame(n_datasets: int, methods=("Laplace", "KT", "HEB-M"), seed: int = 1):
    """One fold's scores of ``methods`` on ``n_datasets`` datasets (every metric alike)."""
    from heb import registry

    rng = np.random.default_rng(seed)
    rows = [
        (f"d{d}", m, 0, float(a))
        for d in range(n_datasets)
        for m, a in zip(methods, rng.uniform(0.6, 0.9, len(methods)), strict=True)
    ]
    frame = pd.DataFrame(rows, columns=["dataset", "method", "fold", "accuracy"])
    for metric in registry.METRICS:
        frame[metric] = frame["accuracy"]
    return frame


def test_the_smallest_wilcoxon_p_is_computed_exactly():
    from explorer.benchmarking import smallest_wilcoxon_p
    from heb.stats import wilcoxon

    for n in range(2, 9):
        assert smallest_wilcoxon_p(n) == 2.0 ** (1 - n)  # 0.5, 0.25, 0.125, 0.0625, ...
        # the engine's test of n datasets, one method better on each, reaches it
        a = np.linspace(0.7, 0.9, n)
        assert wilcoxon(a + np.arange(1, n + 1) / 100, a)["p_value"] == smallest_wilcoxon_p(n)


def test_few_datasets_are_said_to_be_too_few_for_the_tests():
    from explorer.benchmarking import few_datasets_note
    from heb.stats import nemenyi_cd

    three = few_datasets_note(3, 3, nemenyi_cd(3, 3))
    assert three.startswith(
        "With 3 datasets the smallest two-sided Wilcoxon p possible is 0.25: no pair can be "
        "significant at 0.05."
    )
    assert "Demšar (2006)" in three and "wider" not in three  # CD 1.91 < k - 1 = 2
    assert "0.0625" in few_datasets_note(5, 4, nemenyi_cd(4, 5))
    two = few_datasets_note(2, 2, nemenyi_cd(2, 2))  # CD 1.39 > 1
    assert "The CD (1.39) is wider than the whole range of average ranks (1 to 2, 1 apart)" in two
    assert few_datasets_note(6, 5, nemenyi_cd(5, 6)) is None  # 0.03125 < 0.05, CD 2.49 < 4


def test_the_page_warns_with_three_datasets_and_not_with_eight():
    for n, shown in ((3, True), (8, False)):
        at = open_app("pages/benchmark.py", methods="Laplace,KT,HEB-M")
        at.session_state["benchmark"] = {"key": f"few-{n}", "frame": _scores_frame(n)}
        at.run()
        assert_clean(at)
        said = [w.value for w in at.warning if "smallest two-sided Wilcoxon p" in w.value]
        assert len(said) == (1 if shown else 0), (n, said)


# ------------------------------------------------------------- a link's upload left out
def test_a_link_with_an_upload_says_it_was_left_out():
    linked = "upload:0123456789ab,builtin:iris,builtin:wine"
    at = open_app("pages/benchmark.py", methods="Laplace,HEB-M", bench_datasets=linked)
    assert at.multiselect(key="w_bench_datasets").value == ["builtin:iris", "builtin:wine"]
    said = [i.value for i in at.info if "left out here" in i.value]
    assert said == [
        "The link's benchmark also had an upload, left out here: an upload stays in the "
        "sender's session (upload the file on the Dataset page to add it), so these ranks "
        "may differ from the sender's."
    ]
    two = open_app(
        "pages/benchmark.py",
        methods="Laplace,HEB-M",
        bench_datasets="upload:0123456789ab,upload:ba9876543210,builtin:iris,builtin:wine",
    )
    assert any("also had 2 uploads" in i.value for i in two.info)
    plain = open_app(
        "pages/benchmark.py", methods="Laplace,HEB-M", bench_datasets="builtin:iris,builtin:wine"
    )
    assert not [i for i in plain.info if "left out here" in i.value]


# --------------------------------------------- ties the table shows but the ranks do not
def test_equal_looking_means_that_rank_apart_are_explained_under_the_table():
    """cmc: Laplace 0.519342 and m-estimate 0.519346 both showed 0.5193 (both bold) but
    ranked 2 and 1; the table keeps its four decimals and says so underneath."""
    from explorer.benchmarking import rank_ties_note
    from heb.evaluate import benchmark_tables

    scores = pd.DataFrame(
        {"Laplace": [0.519342, 0.7], "m-estimate": [0.519346, 0.7], "KT": [0.5, 0.6]},
        index=["cmc", "car"],
    )
    note = rank_ties_note(scores, "accuracy")
    assert note == (
        "Ranks (and the Friedman test) use the unrounded means, so equal-looking means can "
        "rank apart: on cmc, Laplace (0.51934) and m\\-estimate (0.51935) both show 0.5193 "
        "but rank 2 and 1."
    )  # car's exact tie (0.7, 0.7) ranks 1.5 twice: nothing to explain
    assert rank_ties_note(scores.drop(index="cmc"), "accuracy") is None
    # the statistics are untouched: the Friedman ranks come from the exact means
    frame = pd.DataFrame(
        [(d, m, 0, v) for d, row in scores.iterrows() for m, v in row.items()],
        columns=["dataset", "method", "fold", "accuracy"],
    )
    ranks = benchmark_tables(frame, "accuracy")["avg_ranks"]
    assert ranks.to_dict() == {"Laplace": 1.75, "m-estimate": 1.25, "KT": 3.0}


def test_the_page_says_it_under_the_score_table():
    frame = _scores_frame(8)
    cmc = frame["dataset"] == "d0"
    frame.loc[cmc & (frame["method"] == "Laplace"), "accuracy"] = 0.519342
    frame.loc[cmc & (frame["method"] == "KT"), "accuracy"] = 0.519346
    at = open_app("pages/benchmark.py", methods="Laplace,KT,HEB-M")
    at.session_state["benchmark"] = {"key": "ties-shown", "frame": frame}
    at.run()
    assert_clean(at)
    said = [c.value for c in at.caption if c.value.startswith("Ranks (and the Friedman")]
    assert len(said) == 1 and "on d0, Laplace (0.51934) and KT (0.51935) both show" in said[0]


# ------------------------------------------------------------- the CD diagram presenting
def _label_fonts(spec: dict) -> set:
    return {note["font"]["size"] for note in spec["layout"]["annotations"]}


def test_the_cd_diagram_grows_its_type_with_its_rows_and_margins():
    from heb.figures import cd_diagram

    ranks = {"Laplace": 1.5, "KT": 2.0, "HEB-M": 2.5}
    usual, large = cd_diagram(ranks, 1.9), cd_diagram(ranks, 1.9, font_scale=1.25)
    assert {a.font.size for a in usual.layout.annotations} == {16}
    assert {a.font.size for a in large.layout.annotations} == {20}
    assert large.layout.height > usual.layout.height  # label rows twice the type apart
    assert large.layout.margin.l > usual.layout.margin.l  # the labels' margins hold them
    with pytest.raises(ValueError, match="font_scale"):
        cd_diagram(ranks, 1.9, font_scale=0.0)


def test_the_presenter_draws_the_cd_diagram_in_its_larger_type():
    """?present=1: the diagram's labels were 16 px beside 22 px of body text."""
    from test_app import figures

    sizes = {}
    for present in ("0", "1"):
        at = open_app("pages/benchmark.py", methods="Laplace,KT,HEB-M", present=present)
        at.session_state["benchmark"] = {"key": "cd-present", "frame": _scores_frame(8)}
        at.run()
        assert_clean(at)
        (spec,) = figures(at)
        sizes[present] = _label_fonts(spec)
    assert sizes == {"0": {16}, "1": {20}}  # the figure title's size (body text: 22 px)


def test_the_progress_names_the_file_not_its_hash(monkeypatch):
    """The trial's progress read "Loading cb7036854a94" (the upload's spec)."""
    from test_app import upload_csv

    from explorer import benchmarking

    def stop(*args, **kwargs):
        raise RuntimeError("stopped after loading")

    at = open_app(methods="Laplace,HEB-M")
    uploader(at).upload("shop*s.csv", upload_csv(), "text/csv").run()
    spec = at.session_state["data_spec"]
    at.switch_page("pages/benchmark.py").run()
    at.multiselect(key="w_bench_datasets").set_value(["builtin:iris", spec]).run()
    monkeypatch.setattr(benchmarking, "run_benchmark", stop)
    at.button(key="bench_run").click().run()
    (bar,) = at.get("progress")
    assert bar.proto.text == "Cross-validating shop\\*s\\.csv \\(upload\\)"
    assert at.status[0].label == "Benchmark failed"


# ------------------------------------------------- a dataset whose cross-validation fails
def _failing_on(name: str):
    """``run_benchmark`` that fails for the dataset called ``name`` (as a fit out of memory
    would), and runs the others. The benchmarks every session shares are forgotten: a
    test run earlier in this process could leave this selection's result to recall (the
    Run then failed nothing)."""
    from explorer import benchmarking
    from heb.evaluate import run_benchmark

    benchmarking._finished.clear()

    def run(datasets, methods, **settings):
        if any(d.name == name for d in datasets):
            raise MemoryError(f"Unable to allocate 3.1 GiB for {name}. The rest.")
        return run_benchmark(datasets, methods, **settings)

    return run


def run_with_wine_failing(monkeypatch, specs: list[str]):
    """The Benchmark page run on ``specs`` with Laplace and HEB-M, wine's cross-validation
    failing (:func:`_failing_on`)."""
    from explorer import benchmarking

    monkeypatch.setattr(benchmarking, "run_benchmark", _failing_on("wine"))
    at = open_app(methods="Laplace,HEB-M")
    at.switch_page("pages/benchmark.py").run()
    at.multiselect(key="w_bench_datasets").set_value(specs).run()
    at.button(key="bench_run").click().run()
    return at


def test_case_benchmark_dataset_fails_in_cross_validation(monkeypatch):
    """A dataset that loads but fails in cross-validation is skipped with a note naming it;
    the others are benchmarked (it stopped the whole run)."""
    at = run_with_wine_failing(monkeypatch, ["builtin:iris", "builtin:wine", "builtin:zip-codes"])
    assert_clean(at)
    tables = [t.value for t in at.dataframe if "average rank" in t.value.index]
    assert tables and set(tables[0].index) == {"iris", "zip-codes", "average rank"}
    skipped = [w.value for w in at.warning if w.value.startswith("Skipped")]
    assert skipped == [
        "Skipped wine \\(built\\-in\\), whose cross-validation failed: Unable to allocate "
        "3\\.1 GiB for wine\\."
    ]
    assert at.status[0].label.endswith("(1 skipped)")


def test_fewer_than_two_cross_validated_datasets_fail_the_run(monkeypatch):
    at = run_with_wine_failing(monkeypatch, ["builtin:iris", "builtin:wine"])
    assert at.status and at.status[0].label == "Benchmark failed"
    assert [e.value for e in at.error] == [
        "Only 1 of the 2 datasets could be cross\\-validated\\; the benchmark needs at least two\\."
    ]
    skipped = [w.value for w in at.warning if w.value.startswith("Skipped wine")]
    assert len(skipped) == 1 and "Unable to allocate 3\\.1 GiB" in skipped[0]
