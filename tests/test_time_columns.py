"""Dates, time stamps and durations: binned as times in one unit, labelled as times, and a
parquet file's dates read as the CSV of the same dates is read."""

from __future__ import annotations

import datetime as dt
import io

import numpy as np
import pandas as pd
import pytest

from heb.data.column_values import format_time, numeric_values, time_kind
from heb.data.dataset import finalize
from heb.data.preprocess import Preprocessor
from heb.data.readers import read_table
from heb.data.text_columns import typed_date_notes

DAYS = pd.to_datetime(["2024-03-01", "2024-03-02", "2024-03-03", "2024-03-04"])


def _frame(column: pd.Series) -> pd.DataFrame:
    return pd.DataFrame({"when": column})


def test_days_are_binned_one_per_day_and_labelled_as_dates():
    pre = Preprocessor(n_bins=5).fit(_frame(pd.Series(DAYS.repeat(3))))
    assert pre.categories_[0] == [
        "(-inf, 2024-03-02)",
        "[2024-03-02, 2024-03-03)",
        "[2024-03-03, 2024-03-04)",
        "[2024-03-04, inf)",
    ]
    assert pre.transform(_frame(pd.Series(DAYS))).ravel().tolist() == [0, 1, 2, 3]


def test_a_cut_within_a_day_shows_every_bound_with_its_time_of_day():
    stamps = pd.Series(pd.to_datetime(["2024-03-01 00:00", "2024-03-01 06:30", "2024-03-02 00:00"]))
    pre = Preprocessor(n_bins=5).fit(_frame(stamps))
    assert pre.categories_[0] == [
        "(-inf, 2024-03-01 06:30:00)",
        "[2024-03-01 06:30:00, 2024-03-02 00:00:00)",  # not "2024-03-02": one format
        "[2024-03-02 00:00:00, inf)",
    ]


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
def test_every_unit_gives_seconds_since_1970(unit):
    column = pd.Series(DAYS.astype(f"datetime64[{unit}]"))
    assert numeric_values(column).tolist() == [1709251200.0 + 86400.0 * k for k in range(4)]


def test_a_model_fitted_on_milliseconds_cuts_nanoseconds_the_same_way():
    """Before, the stamps were the dtype's own integers, so a parquet file's [ms] column
    and pandas' [ns] column of the same days were 10^6 apart at transform."""
    rng = np.random.default_rng(3)
    days = pd.to_datetime("2024-01-01") + pd.to_timedelta(rng.integers(0, 300, 500), unit="D")
    in_ms = _frame(pd.Series(days).astype("datetime64[ms]"))
    pre = Preprocessor().fit(in_ms)
    again = pre.transform(_frame(pd.Series(days).astype("datetime64[ns]")))
    assert np.array_equal(pre.transform(in_ms), again)
    assert len(np.unique(again)) == 10


def test_a_time_zone_is_the_same_instant_in_utc_and_missing_stays_missing():
    paris = pd.Series(pd.to_datetime(["2024-03-01 01:00", None]).tz_localize("Europe/Paris"))
    seconds = numeric_values(paris)
    assert seconds[0] == pd.Timestamp("2024-03-01 00:00", tz="UTC").timestamp()
    assert np.isnan(seconds[1])
    assert time_kind(paris) == "datetime"


def test_durations_and_periods():
    durations = pd.Series(pd.to_timedelta(["00:10:00", "01:00:00", "1 days 02:00:00"]))
    assert numeric_values(durations).tolist() == [600.0, 3600.0, 93600.0]
    pre = Preprocessor(n_bins=5).fit(_frame(durations))
    assert pre.categories_[0] == [
        "(-inf, 01:00:00)",
        "[01:00:00, 1 days 02:00:00)",
        "[1 days 02:00:00, inf)",
    ]
    months = pd.Series(pd.period_range("2024-01", periods=3, freq="M"))
    assert time_kind(months) == "datetime"
    labels = Preprocessor(n_bins=5).fit(_frame(months)).categories_[0]
    assert labels == ["(-inf, 2024-02-01)", "[2024-02-01, 2024-03-01)", "[2024-03-01, inf)"]


def test_the_imputed_median_of_a_date_column_is_a_date():
    column = pd.Series(list(DAYS[:3]) + [pd.NaT])
    pre = Preprocessor(missing="impute", n_bins=5).fit(_frame(column))
    assert pre.impute_values_ == {"when": "2024-03-02"}


def test_format_time_leaves_numbers_and_infinities_as_numbers():
    assert format_time(1.5, "") == "1.5"
    assert format_time(np.inf, "datetime") == "inf"
    assert format_time(0.0, "datetime") == "1970-01-01"
    assert format_time(90.0, "timedelta") == "00:01:30"


# --------------------------------------------------------------------------- parquet
def _parquet(frame: pd.DataFrame) -> bytes:
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    return buffer.getvalue()


def _days(n: int, seed: int = 0) -> list[dt.date]:
    rng = np.random.default_rng(seed)
    return [dt.date(2024, 1, 1) + dt.timedelta(int(d)) for d in rng.integers(0, 200, n)]


def test_a_parquet_date_column_is_binned_as_a_time_not_a_category_per_day():
    days = _days(300)
    frame = pd.DataFrame({"signup": days, "y": ["a", "b"] * 150})
    table = read_table(_parquet(frame), "days.parquet")
    dataset = finalize(table, "y", name="days", source="upload")
    assert dataset.categorical == []
    pre = Preprocessor().fit(dataset.X)
    assert pre.kinds_ == {"signup": "numeric"}
    assert len(pre.categories_[0]) == 10
    assert pre.categories_[0][0].startswith("(-inf, 2024-")


def test_a_parquet_file_of_dates_written_as_text_gets_the_csv_s_date_note():
    days = [d.isoformat() for d in _days(300)]
    frame = pd.DataFrame(
        {"signup": days, "colour": ["red", "blue", "green"] * 100, "y": ["a", "b"] * 150}
    )
    from_parquet = read_table(_parquet(frame), "days.parquet").attrs["heb_notes"]
    from_csv = read_table(frame.to_csv(index=False).encode(), "days.csv").attrs["heb_notes"]
    assert from_parquet == from_csv
    assert len(from_parquet) == 1 and "Column 'signup' holds dates such as" in from_parquet[0]


def test_few_dates_or_text_that_is_not_all_dates_gets_no_note():
    few = pd.DataFrame({"d": pd.Categorical(["2024-01-0" + str(k % 9 + 1) for k in range(90)])})
    assert typed_date_notes(few) == []  # 9 days: a category each is fine
    mixed = pd.DataFrame({"d": [f"2024-01-{k % 28 + 1:02d}" for k in range(90)] + ["soon"]})
    assert typed_date_notes(mixed) == []
    many = pd.DataFrame({"d": [f"2024-01-{k % 28 + 1:02d}" for k in range(90)] + [None]})
    assert "28 dates" in typed_date_notes(many)[0]


def test_the_dataset_page_names_text_dates_and_bins_a_date_column_of_a_parquet_upload():
    from tests.test_app import assert_clean, open_app, unescape, uploader

    days = _days(400, seed=5)
    frame = pd.DataFrame(
        {
            "signup": [d.isoformat() for d in days],
            "visit": days,
            "colour": ["red", "blue", "green", "red"] * 100,
            "label": ["yes", "no"] * 200,
        }
    )
    at = uploader(open_app()).upload("visits.parquet", _parquet(frame), "application/octet-stream")
    at = at.run(timeout=120)
    assert_clean(at)
    infos = [unescape(info.value) for info in at.info]
    assert any(text.startswith("Column 'signup' holds dates such as '20") for text in infos), infos
    features = next(
        table.value for table in at.dataframe if "feature" in getattr(table.value, "columns", [])
    )
    kinds = dict(zip(features["feature"], features["type"], strict=True))
    assert kinds == {"signup": "categorical", "visit": "numeric", "colour": "categorical"}
    assert features.set_index("feature").loc["visit", "K_f"] == 10


# --------------------------------------------------------------------------- fitted kinds
def _fitted_on_stamps() -> tuple[Preprocessor, pd.DataFrame]:
    rng = np.random.default_rng(8)
    stamps = pd.to_datetime("2024-01-01") + pd.to_timedelta(rng.integers(0, 200 * 86400, 300), "s")
    X = pd.DataFrame(
        {"seen": pd.Series(stamps).astype("datetime64[ms]"), "x": rng.normal(size=300)}
    )
    return Preprocessor().fit(X), X


def test_text_stamps_are_scored_as_the_stamps_the_model_learned():
    """A model fitted on a parquet file's stamps read a CSV's text stamps as missing."""
    pre, X = _fitted_on_stamps()
    text = X.assign(seen=X["seen"].dt.strftime("%Y-%m-%d %H:%M:%S"))
    text.loc[3, "seen"] = "not a date"
    codes, expected = pre.transform(text), pre.transform(X)
    assert np.array_equal(np.delete(codes, 3, axis=0), np.delete(expected, 3, axis=0))
    missing = pre.transform(X.assign(seen=X["seen"].where(X.index != 3)))
    assert codes[3, 0] == missing[3, 0]  # unreadable: missing, as for numbers
    durations = _frame(pd.Series(pd.to_timedelta(["00:10:00", "01:00:00", "02:00:00"])))
    pre = Preprocessor(n_bins=5).fit(durations)
    assert pre.transform(
        _frame(pd.Series(["00:10:00", "01:00:00", "02:00:00"]))
    ).ravel().tolist() == [0, 1, 2]


def test_a_saved_model_keeps_its_time_columns_and_refuses_another_kind():
    import json

    from heb.data import preprocessor_io
    from heb.data.dataset import DataError

    pre, X = _fitted_on_stamps()
    saved = json.loads(json.dumps(preprocessor_io.to_dict(pre)))
    assert [f.get("time") for f in saved["features"]] == ["datetime", None]
    again = preprocessor_io.from_dict(saved)
    assert np.array_equal(again.transform(X), pre.transform(X))
    with pytest.raises(
        DataError,
        match=r"^Column 'seen' holds numbers, where the model was trained on dates or times\.$",
    ):
        again.transform(X.assign(seen=np.arange(300.0)))
    del saved["features"][0]["time"]  # a file of an earlier heb: its cuts in the dtype's unit
    earlier = preprocessor_io.from_dict(saved)
    with pytest.raises(
        DataError,
        match=r"trained on numbers \(if it was trained on times, .*refit and save it\)\.$",
    ):
        earlier.transform(X)
    saved["features"][0]["time"] = "weekday"
    with pytest.raises(ValueError, match="must be 'datetime' or 'timedelta'"):
        preprocessor_io.from_dict(saved)


def test_a_zoned_column_s_bins_say_they_are_in_utc():
    """Midnights in Paris were labelled 23:00 with no zone named."""
    paris = pd.Series(pd.date_range("2024-03-01", periods=4, freq="D", tz="Europe/Paris"))
    pre = Preprocessor(n_bins=5, missing="impute").fit(_frame(paris.repeat(2)))
    assert pre.categories_[0][:2] == [
        "(-inf, 2024-03-01 23:00:00) UTC",
        "[2024-03-01 23:00:00, 2024-03-02 23:00:00) UTC",
    ]
    assert pre.impute_values_["when"].endswith(" UTC")


def test_numbers_and_booleans_among_objects_are_missing_for_a_time_encoder():
    """Parsed, 5 read as 5 ns after 1970, and True raised pandas' TypeError for durations."""
    from heb.data.column_values import as_fitted_time

    cells = ["2024-01-01", 5, True, None, pd.Timestamp("1990-01-01"), "x", "1 days"]
    column = pd.Series(cells, dtype=object, name="seen")
    dates = as_fitted_time(column, "datetime")
    assert dates.iloc[0] == pd.Timestamp("2024-01-01", tz="UTC")
    assert dates.iloc[4] == pd.Timestamp("1990-01-01", tz="UTC")
    assert dates.isna().tolist() == [False, True, True, True, False, True, True]
    durations = as_fitted_time(column, "timedelta")
    assert durations.isna().tolist() == [True, True, True, True, True, True, False]
    codes = pd.Categorical(["2024-01-01", "2024-02-01", None])  # a parquet file's text
    parsed = as_fitted_time(pd.Series(codes, name="seen"), "datetime")
    assert parsed.iloc[1] == pd.Timestamp("2024-02-01", tz="UTC") and pd.isna(parsed.iloc[2])


def test_an_object_column_of_dates_is_binned_as_dates_like_the_readers_give_it():
    """``pd.read_parquet`` (and ``series.dt.date``) give a date column as datetime.date
    objects: the Preprocessor made each day a category (200 of them), while heb's readers
    and the large-data engines bin the same column as dates, so their counts differed."""
    days = _days(300) + [None]
    as_objects = pd.DataFrame({"signup": pd.Series(days, dtype=object)})
    as_times = pd.DataFrame({"signup": pd.to_datetime(pd.Series(days))})
    pre = Preprocessor().fit(as_objects)
    assert pre.kinds_ == {"signup": "numeric"}
    assert pre.categories_ == Preprocessor().fit(as_times).categories_
    np.testing.assert_array_equal(
        pre.transform(as_objects), Preprocessor().fit(as_times).transform(as_times)
    )
    declared = Preprocessor(categorical=["signup"]).fit(as_objects)
    assert declared.kinds_ == {"signup": "categorical"}
