"""Every setting that changes a number changes the run's key and the result, end to end.

A key that ignores a setting serves one run's numbers for another (issue 11: with n_bins
left out of the key, the app showed n_bins = 2's log-loss 0.882 for n_bins = 10's 0.498).
Here each setting is changed in turn, through :func:`heb.evaluate.cross_validate` with a
shared cache, through ``python -m heb bench`` and through the app's Compare page: the
second run must not be served the first run's entries, and its numbers must be those of
a cold run with the new setting.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from explorer.comparison import TABLE_DECIMALS
from heb import registry
from heb.cli import main
from heb.data import load_builtin
from heb.data.builtins import finalize
from heb.evaluate import FOLD_STORE, ResultCache, RunSettings, cross_validate, keys
from heb.paths import REPO_ROOT

#: a small table with a numeric column (bins matter), missing cells (the missing policy
#: matters) and more rows than the subsample (max_rows matters)
N_ROWS = 240
METRIC_COLUMNS = list(registry.METRICS)


def _frame(seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, N_ROWS)
    number = y + rng.normal(0, 0.8, N_ROWS) + np.sin(4 * rng.random(N_ROWS))
    colour = np.where(rng.random(N_ROWS) < 0.7, y, rng.integers(0, 6, N_ROWS)).astype(str)
    colour = np.where(rng.random(N_ROWS) < 0.2, None, np.char.add("c", colour)).astype(object)
    shop = np.char.add("s", rng.integers(0, 25, N_ROWS).astype(str))
    return pd.DataFrame({"number": number, "colour": colour, "shop": shop, "label": y})


def _dataset(frame: pd.DataFrame):
    return finalize(frame, "label", name="keys", source="upload:keys.csv")


def _knob_overrides() -> dict[str, dict[str, float]]:
    """Each naive Bayes method with a what-if knob, moved off its default (from the registry)."""
    out = {}
    for name, entry in registry.METHODS.items():
        knob = entry.knob
        if entry.family == "nb" and knob is not None and knob.choices:
            out[name] = {knob.name: next(c for c in knob.choices if c != knob.default)}
    return out


KNOBS = _knob_overrides()
METHODS = ["Laplace", "HEB-M", *KNOBS]
BASE = RunSettings(n_bins=10, missing="impute", max_rows=200, n_splits=4, seed=42)
CHANGES = {
    "n_bins": {"n_bins": 3},
    "missing": {"missing": "category"},
    "max_rows": {"max_rows": 120},
    "folds": {"n_splits": 3},
    "seed": {"seed": 7},
    **{f"params:{method}": {"overrides": {method: params}} for method, params in KNOBS.items()},
}


def _numbers(result) -> pd.DataFrame:
    return result.folds[["method", "fold", *METRIC_COLUMNS]].reset_index(drop=True)


def _cold(dataset, settings: RunSettings) -> pd.DataFrame:
    """The numbers of a run that reads no cache and no prepared folds."""
    FOLD_STORE.clear()
    return _numbers(cross_validate(dataset, METHODS, settings=settings, use_cache=False))


def test_the_knobs_cover_every_method_with_a_parameter():
    assert {"Lidstone", "m-estimate", "TE"} <= set(KNOBS)


@pytest.mark.parametrize("change", list(CHANGES))
def test_each_setting_changes_the_key_and_the_result(change, tmp_path):
    dataset = _dataset(_frame())
    cache = ResultCache(tmp_path)
    FOLD_STORE.clear()
    first = cross_validate(dataset, METHODS, settings=BASE, cache=cache)
    changed = BASE.replace(**CHANGES[change])
    assert changed.key() != BASE.key()
    second = cross_validate(dataset, METHODS, settings=changed, cache=cache)
    moved = [m for m in METHODS if change in ("n_bins", "missing", "max_rows", "folds", "seed")]
    moved = moved or [change.split(":", 1)[1]]
    # the methods whose numbers depend on the change were computed, not served
    assert not set(moved) & set(second.cached), second.cached
    fresh = _cold(dataset, changed)
    pd.testing.assert_frame_equal(_numbers(second), fresh)
    before = _numbers(first).set_index(["method", "fold"])
    after = fresh.set_index(["method", "fold"])
    for method in moved:
        a, b = before.loc[method], after.loc[method]
        assert a.shape != b.shape or not np.allclose(a.to_numpy(), b.to_numpy()), method


def test_the_data_bytes_change_the_key_and_the_result(tmp_path):
    frame = _frame()
    cache = ResultCache(tmp_path)
    FOLD_STORE.clear()
    first = cross_validate(_dataset(frame), METHODS, settings=BASE, cache=cache)
    edited = frame.copy()
    edited.loc[:20, "label"] = (edited.loc[:20, "label"] + 1) % 3
    dataset = _dataset(edited)
    assert dataset.fingerprint() != _dataset(frame).fingerprint()
    second = cross_validate(dataset, METHODS, settings=BASE, cache=cache)
    assert second.cached == []
    pd.testing.assert_frame_equal(_numbers(second), _cold(dataset, BASE))
    assert not np.allclose(
        _numbers(first)[METRIC_COLUMNS].to_numpy(), _numbers(second)[METRIC_COLUMNS].to_numpy()
    )


def test_the_engine_revision_and_version_change_the_key(tmp_path, monkeypatch):
    dataset = _dataset(_frame())
    cache = ResultCache(tmp_path)
    cross_validate(dataset, METHODS, settings=BASE, cache=cache)
    assert cross_validate(dataset, METHODS, settings=BASE, cache=cache).cached == METHODS
    key = BASE.key()
    monkeypatch.setattr(keys, "engine_revision", lambda: "an edited engine")
    assert BASE.key() != key
    assert cross_validate(dataset, METHODS, settings=BASE, cache=cache).cached == []
    monkeypatch.undo()
    import heb

    monkeypatch.setattr(heb, "__version__", heb.__version__ + ".post1")
    assert BASE.key() != key
    assert cross_validate(dataset, METHODS, settings=BASE, cache=cache).cached == []


# ---------------------------------------------------------------------------- the CLI
CLI_CHANGES = {
    "--n-bins": ("10", "3"),
    "--max-rows": ("0", "100"),
    "--folds": ("3", "4"),
    "--seed": ("42", "7"),
}


def _bench(out, option: str, value: str, capsys) -> pd.DataFrame:
    args = ["bench", "builtin:iris", "--tables", "1", "--no-figures", "--folds", "3"]
    assert main([*args, option, value, "-o", str(out)]) == 0
    log = capsys.readouterr().err
    frame = pd.read_csv(out / "folds.csv")
    return frame[["method", "fold", *METRIC_COLUMNS]], log


@pytest.mark.parametrize("option", list(CLI_CHANGES))
def test_bench_reruns_when_a_setting_changes(option, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    old, new = CLI_CHANGES[option]
    FOLD_STORE.clear()
    first, _ = _bench(tmp_path / "a", option, old, capsys)
    second, log = _bench(tmp_path / "b", option, new, capsys)
    assert "from the cache" not in log
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cold"))
    FOLD_STORE.clear()
    cold, _ = _bench(tmp_path / "c", option, new, capsys)
    pd.testing.assert_frame_equal(second, cold)
    assert first.shape != second.shape or not np.allclose(
        first[METRIC_COLUMNS].to_numpy(), second[METRIC_COLUMNS].to_numpy()
    )
    # and the first setting again is served whole from the cache, with its own numbers
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    again, log = _bench(tmp_path / "d", option, old, capsys)
    assert "from the cache" in log
    pd.testing.assert_frame_equal(again, first)


# ---------------------------------------------------------------------------- the app
def _shown(at: AppTest) -> pd.DataFrame:
    hits = [f.value for f in at.dataframe if "ECE ↓" in f.value.columns]
    assert len(hits) == 1
    return hits[0].set_index("method")


def _expected(settings: RunSettings, methods: list[str]) -> pd.Series:
    result = cross_validate(load_builtin("iris"), methods, settings=settings, use_cache=False)
    summary = result.summary().set_index("method")
    return summary["log_loss_mean"]


def test_the_app_shows_new_numbers_when_bins_change(tmp_path, monkeypatch):
    monkeypatch.setenv("HEB_CACHE_DIR", str(tmp_path / "cache"))
    methods = ["Laplace", "HEB-M"]
    at = AppTest.from_file(str(REPO_ROOT / "app.py"), default_timeout=90)
    query = {"data": "builtin:iris", "methods": ",".join(methods), "n_bins": "3"}
    for name, value in query.items():
        at.query_params[name] = value
    at.run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception, [e.value for e in at.exception]
    three = _shown(at)
    at.segmented_control(key="w_n_bins").set_value(10).run()
    assert not at.exception, [e.value for e in at.exception]
    ten = _shown(at)
    assert at.query_params["n_bins"] in ("10", ["10"])
    settings = RunSettings(dataset="builtin:iris")
    for bins, shown in ((3, three), (10, ten)):
        expected = _expected(settings.replace(n_bins=bins), methods)
        for method in methods:
            mean = float(shown.loc[method, "Log-loss ↓"].split(" ± ")[0])
            # the table rounds to TABLE_DECIMALS decimals: half a unit in the last place
            half_unit = 0.5 * 10.0**-TABLE_DECIMALS + 1e-12
            assert mean == pytest.approx(expected[method], abs=half_unit), (bins, method)
    assert not three.equals(ten)
    # a second visitor's link with n_bins=10 is served the 10-bin numbers from memory
    other = AppTest.from_file(str(REPO_ROOT / "app.py"), default_timeout=90)
    for name, value in {**query, "n_bins": "10"}.items():
        other.query_params[name] = value
    other.run()
    other.switch_page("pages/compare.py").run()
    assert _shown(other).equals(ten)


def test_module_code_is_read_without_building_ast_objects(monkeypatch):
    """CPython 3.11's AST objects are not thread-safe: eight app sessions asking for the
    first cache key at once raised "SystemError: AST constructor recursion depth
    mismatch", and a lock of ours cannot cover Streamlit parsing page scripts with ``ast``
    in its own threads. The revision hash reads tokens instead: it must work with every
    way to build an AST broken, and in many threads at once."""
    import ast
    import builtins
    import threading

    from heb.evaluate import keys

    def no_ast(*args, **kwargs):
        raise AssertionError("the revision hash built AST objects")

    real_compile = builtins.compile

    def compile_without_ast(source, filename, mode, flags=0, *args, **kwargs):
        if flags & ast.PyCF_ONLY_AST or isinstance(source, ast.AST):
            no_ast()
        return real_compile(source, filename, mode, flags, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", no_ast)
    monkeypatch.setattr(builtins, "compile", compile_without_ast)
    sources = ["x = 1\n", "def f():\n    '''doc'''\n    return 2\n", "class A:\n    pass\n"]
    seen: list[str] = []
    threads = [
        threading.Thread(target=lambda s=s: seen.extend(keys._code_of(s) for _ in range(3)))
        for s in sources * 3
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 27
    assert keys._code_of(sources[1]) == keys._code_of("def f():\n    return 2  # two\n")
    assert keys._code_of("x = 1\n") != keys._code_of("x = 2\n")
    assert keys._code_of('"""module"""\nimport os\n') == keys._code_of("import os\n")
    # a function whose body is its docstring only is not the same code as one that passes
    assert keys._code_of("def f():\n    'doc'\n") != keys._code_of("def f():\n    pass\n")
