"""Trial Z: a statistics student's spreadsheet CSVs on a 1366 x 768 laptop.

Excel writes an amount column in its ``#,##0`` format as ``852`` beside ``"1,275"`` and a
rate as ``12%`` (a European Excel: ``12,5%`` in a semicolon-separated file). Both were
read as categories, each amount a category of its own (279 of 300 rows), the amounts with
the note that they "mix numbers and text such as '1,275'", the percentages with no note
at all; Explain a prediction then showed ``Monthly Spend = 852`` as a singleton category.
They are now numbers (binned as any amount), each conversion named in a note; a column of
``12,000``-style cells alone stays ambiguous (a decimal comma or a thousands separator).

A column of dates (240 signup days in 300 rows) was read as categories without a word, and
Explain named ``Signup Date = 06/29/2024`` as the feature the smoothers disagreed on most: a
note now says what such a column is and what to do with it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from heb.data import load_upload
from tests.test_app import assert_clean
from tests.test_upload_trial_fixes import _dataset, _infos, _upload

BOM = b"\xef\xbb\xbf"


def spreadsheet_csv(rows: int = 300, seed: int = 7) -> bytes:
    """A CSV as Excel saves one: a BOM, CRLF line ends, the target in the middle, ZIP codes
    with a leading zero, US dates, quoted ``1,234`` amounts beside plain ``852``, ``12%``
    rates, free-text comments with commas and blank lines at the end."""
    rng = np.random.default_rng(seed)
    lines = ["CustomerID,ZIP,Signup Date,Churned,Monthly Spend,Discount,Comments,Plan"]
    comments = ["great service", '"too expensive, will cancel"', "", "meh", "price went up 10%"]
    for i in range(rows):
        spend = int(rng.integers(50, 4000))
        amount = f'"{spend:,}"' if spend >= 1000 else str(spend)
        lines.append(
            f"{1001 + i},{rng.choice(['02134', '10001', '94110'])},0{rng.integers(1, 9)}/1"
            f"{rng.integers(0, 9)}/2024,{rng.choice(['Yes', 'No'])},{amount},"
            f"{rng.choice([0, 5, 12, 15, 25])}%,{rng.choice(comments)},"
            f"{rng.choice(['Basic', 'Plus'])}"
        )
    text = "\r\n".join(lines) + "\r\n,,,,,,,\r\n\r\n"
    return BOM + text.encode()


def test_excel_amounts_and_percentages_are_numbers():
    dataset = load_upload(spreadsheet_csv(), "churn.csv", target="Churned")
    spend = dataset.X["Monthly Spend"]
    assert pd.api.types.is_float_dtype(spend.dtype), spend.dtype
    assert spend.max() >= 1000 and spend.min() < 1000
    assert set(dataset.X["Discount"]) == {0.0, 5.0, 12.0, 15.0, 25.0}
    assert "Monthly Spend" not in dataset.categorical and "Discount" not in dataset.categorical
    assert any(
        "'Monthly Spend' holds numbers written with thousands separators such as '" in n
        for n in dataset.notes
    ), dataset.notes
    assert any("'Discount' holds percentages such as" in n for n in dataset.notes)
    assert not any("mixes numbers and text" in n for n in dataset.notes), dataset.notes
    assert dataset.X.shape == (300, 7)  # the blank lines dropped, the target taken out


def test_the_thousands_reading_keeps_the_exact_values():
    data = b'amount,label\n852,a\n"1,275",b\n"12,345,678",a\n-7,b\n"1,000.5",a\n'
    dataset = load_upload(data, "a.csv")
    assert dataset.X["amount"].tolist() == [852.0, 1275.0, 12345678.0, -7.0, 1000.5]


@pytest.mark.parametrize(
    "cells",
    [
        ['"12,000"', '"5,000"'],  # every cell grouped once: 12.000 with a decimal comma?
        ['"1,275"', "1500"],  # a plain cell of 1,000 or more: not the #,##0 format
        ['"1,275"', "abc"],  # text among them
        ['"1,27"', "852"],  # not groups of three digits
    ],
)
def test_commas_that_may_be_decimals_stay_categories(cells):
    data = "amount,label\n" + "".join(f"{c},{'ab'[i % 2]}\n" for i, c in enumerate(cells))
    dataset = load_upload(data.encode(), "a.csv")
    assert "amount" in dataset.categorical, dataset.X["amount"].tolist()


def test_a_tab_separated_files_commas_stay_ambiguous():
    """A European Excel's tab-separated export writes 1,275 for 1.275: not thousands."""
    dataset = load_upload(b"amount\tlabel\n852\ta\n1,275\tb\n", "t.tsv")
    assert "amount" in dataset.categorical


def test_european_percentages_with_decimal_commas():
    data = BOM + "Rabatt;Umsatz;Kündigung\r\n12,5%;1.234,50;ja\r\n0,0 %;852,00;nein\r\n".encode()
    dataset = load_upload(data, "eu.csv")
    assert dataset.X["Rabatt"].tolist() == [12.5, 0.0]
    assert dataset.X["Umsatz"].tolist() == [1234.5, 852.0]
    assert any("'Rabatt' holds percentages" in n for n in dataset.notes)


def test_a_column_with_some_percentages_and_text_is_not_converted():
    dataset = load_upload(b"rate,label\n12%,a\nn/a%,b\nhigh,a\n5%,b\n", "r.csv")
    assert "rate" in dataset.categorical
    assert not any("percentages" in n for n in dataset.notes)


def test_the_dataset_page_says_so_and_bins_the_amounts():
    at = _upload(spreadsheet_csv(), "churn_homework.csv")
    assert_clean(at)
    infos = _infos(at)
    assert any("holds numbers written with thousands separators" in i for i in infos), infos
    assert any("holds percentages such as" in i for i in infos), infos
    assert not any("mixes numbers and text" in i for i in infos), infos
    dataset = _dataset(at)
    assert pd.api.types.is_float_dtype(dataset.X["Monthly Spend"].dtype)


def test_a_date_column_of_many_days_gets_a_note():
    dataset = load_upload(spreadsheet_csv(), "churn.csv", target="Churned")
    (note,) = [n for n in dataset.notes if "holds dates" in n]
    assert note.startswith("Column 'Signup Date' holds dates such as '0")
    days = dataset.X["Signup Date"].nunique()
    assert days > 20 and f"each of its {days:,} dates is a category of its own" in note
    assert "Columns to leave out" in note


@pytest.mark.parametrize(
    ("cells", "noted"),
    [
        ([f"2024-05-{d:02d}" for d in range(1, 22)], True),  # 21 days, ISO
        ([f"{d:02d}.06.2024 10:30" for d in range(1, 22)], True),  # European, with a time
        ([f"2024-05-{d:02d}" for d in range(1, 21)], False),  # 20 days: a few categories
        ([f"2024-05-{d:02d}" for d in range(1, 21)] + ["soon"], False),  # not all dates
        ([f"v{d}" for d in range(1, 30)], False),
    ],
)
def test_the_date_note_needs_dates_only_and_many_of_them(cells, noted):
    rows = "".join(f"{c},{'ab'[i % 2]}\n" for i, c in enumerate(cells * 2))
    dataset = load_upload(("when,label\n" + rows).encode(), "d.csv")
    assert any("holds dates" in n for n in dataset.notes) is noted, dataset.notes


def test_the_dataset_page_names_the_date_column():
    at = _upload(spreadsheet_csv(), "churn_homework.csv")
    assert any("'Signup Date' holds dates such as" in i for i in _infos(at)), _infos(at)
