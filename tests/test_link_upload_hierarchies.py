"""A link to an upload carries its declared hierarchies to the file when it is uploaded.

The link names an upload the new session does not have, so the page shows the built-in
default; the link's ``hierarchies=`` were stored under that default (where they named
columns it lacks) and were gone when the user uploaded the file the link names.
"""

from __future__ import annotations

import json

from test_app import assert_clean, open_app, unescape, uploader, url
from test_hierarchy_read_as_categories import _declare, _roles

from explorer import state


def _link(at) -> dict[str, str]:
    return {key: url(at, key) for key in at.query_params}


def test_a_links_hierarchies_reach_the_upload_it_names_not_the_default():
    first = open_app(dataset_tab="Hierarchies")
    uploader(first).upload("roles.csv", _roles(), "text/csv").run()
    first.multiselect(key="upload_categorical").set_value(["role1", "role2"]).run()
    _declare(first, "role2", "parent column", parent="role1")
    link = _link(first)
    declared = json.loads(link["hierarchies"])
    assert declared and link["file"] == "roles.csv"

    second = open_app(**link)
    notes = [unescape(info.value) for info in second.main.info]
    assert notes[0].endswith(
        "Upload 'roles.csv' on the Dataset page: its categorical columns 'role1', "
        "'role2' and declared hierarchies from the link will be used."
    )
    assert second.session_state["hierarchies"][state.default_spec()] == ""
    assert "hierarchies" not in second.query_params  # the default declares none

    uploader(second).upload("roles.csv", _roles(), "text/csv").run()
    assert_clean(second)
    spec = second.session_state["data_spec"]
    assert json.loads(second.session_state["hierarchies"][spec]) == declared
    assert any("and the declared hierarchies." in unescape(c.value) for c in second.caption)
    assert _link(second) == link  # the same file: the same link, hierarchies included
