"""A whole-number column with a number of its own in every row: the code note also says
to leave it out, with a button that does (trial Z).

The note only said "if it is a code, treat it as categorical": as categories a customer
number of a table of customers is seen once each, in cross-validation never in training,
so it tells nothing either way. A code repeated over rows keeps the note as it was.
"""

from __future__ import annotations

import numpy as np

from explorer import summaries
from heb import data as hdata
from tests.test_upload_columns import (
    assert_clean,
    code_notes,
    csv,
    customers,
    feature_row,
    upload_customers,
    working,
)


def test_every_row_its_own_by_hand():
    assert summaries.every_row_its_own(400, 400)
    assert not summaries.every_row_its_own(399, 400)  # one number twice
    assert not summaries.every_row_its_own(9, 9)  # too few rows to say


def test_a_number_per_row_is_advised_out_and_a_repeated_code_is_not():
    per_row = hdata.load_upload(csv(customers()), "t.csv")  # 400 numbers in 400 rows
    notes = summaries.numeric_code_notes(per_row, working(per_row))
    assert notes["customer"].endswith(summaries.PER_ROW_ADVICE)
    assert "If it is a code" in notes["customer"]  # the code advice stays before it
    assert summaries.per_row_codes(per_row, working(per_row)) == ["customer"]
    repeated = customers()
    repeated.loc[:99, "customer"] = repeated.loc[100:199, "customer"].to_numpy()  # 300 numbers
    again = hdata.load_upload(csv(repeated), "t.csv")
    notes = summaries.numeric_code_notes(again, working(again))
    assert notes["customer"].startswith("'customer' holds 300 different whole numbers in 400")
    assert summaries.PER_ROW_ADVICE not in notes["customer"]
    assert summaries.per_row_codes(again, working(again)) == []
    lines, _ = summaries.numeric_code_lines(per_row, working(per_row))
    assert lines["customer"].endswith("A number per row: if it numbers the rows, leave it out.")


def test_the_page_offers_to_leave_a_number_per_row_out():
    at = upload_customers()
    (note,) = code_notes(at)
    assert note.endswith(summaries.PER_ROW_ADVICE.strip())
    assert at.button(key="declare_categorical_0").label == "Treat customer as categorical"
    leave = at.button(key="leave_out_code_0")
    assert leave.label == "Leave customer out"
    leave.click().run()
    assert_clean(at)
    dropped = set(at.session_state["uploads"][at.session_state["data_spec"]]["drop"])
    assert dropped == {"customer"}
    assert code_notes(at) == []
    assert feature_row(at, "age")["type"] == "numeric"  # the others stay as they were


def test_a_repeated_code_gets_no_leave_out_button():
    frame = customers()
    frame.loc[:99, "customer"] = frame.loc[100:199, "customer"].to_numpy()
    at = upload_customers(frame)
    assert len(code_notes(at)) == 1
    assert at.button(key="declare_categorical_0").label == "Treat customer as categorical"
    assert not [b for b in at.button if b.key == "leave_out_code_0"]
    assert np.isfinite(feature_row(at, "customer")["K_f"])
