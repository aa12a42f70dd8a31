"""The References page lists every work the lessons cite, in full, as the seeds state it.

A new user's trial found its citations incomplete: the paper and the textbook by title
only, Minka (2000) and the AODE article without venue or pages, the works behind the
methods the lessons name (Platt, isotonic regression, temperature, Lidstone, KT, the
m-estimate, TE) not at all, and a table row calling the paper's Tables 1-2 "Accuracy per
dataset" (Table 1 is the mean Friedman ranks). Each entry is checked against the shared
seeds: the paper's header and reference list, the textbook chapter, the AODE article.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from heb.paths import shared_dir
from tests.test_presenter import open_lesson

PAGES = Path(__file__).resolve().parents[1] / "pages"


@pytest.fixture(scope="module")
def seeds() -> dict[str, str]:
    folder = shared_dir() / "seeds"
    if not folder.is_dir():
        pytest.skip(f"no seeds to compare with: {folder} is absent (set HEB_SHARED_DIR)")
    return {
        name: (folder / f"{name}.txt").read_text()
        for name in ("heb-nb-paper-full", "naive-bayes-chapter", "aode-article")
    }


def _plain(text: str) -> str:
    """Lower-case letters and digits only: the seeds' extraction drops or changes spaces,
    apostrophes, dashes and symbols (√)."""
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _works():
    from pages.references import WORKS

    return {work.key: work for work in WORKS}


def _references_list(paper: str) -> str:
    return paper[paper.index("References Blei") :]


#: how a lesson names a work without its author and year: the word -> the work's key
NAMED = {
    "Platt": "Platt et al. (1999)",
    "isotonic": "Zadrozny and Elkan (2002)",
    "temperature": "Guo et al. (2017)",
    "Lidstone": "Lidstone (1920)",
    "Krichevsky": "Krichevsky and Trofimov (1981)",
    "m-estimate": "Cestnik (1990)",
    "TE": "Micci-Barreca (2001)",
    "sqrt-MI": "Jiang et al. (2019)",
}


def test_every_work_a_lesson_names_is_listed():
    works = _works()
    keys = " ".join(works)
    sources = [path.read_text() for path in sorted(PAGES.glob("lesson_*.py"))]
    sources += [
        path.read_text() for path in sorted((PAGES.parent / "heb" / "lessons").glob("*.py"))
    ]
    cited = set()
    for source in sources:
        cited |= set(re.findall(r"([A-Z][a-z]+(?: et al\.)?) \((\d{4})\)", source))
    assert cited  # Minka (2000)
    for author, year in cited:
        assert f"{author}" in keys and f"({year})" in keys, (author, year)
    text = " ".join(sources)
    named = {word for word in NAMED if re.search(rf"\b{re.escape(word)}\b", text)}
    assert {"Platt", "isotonic", "temperature", "Lidstone", "Krichevsky"} <= named
    # every paper smoother is in the known-truth lesson's figures (the m-estimate, TE)
    assert {NAMED[word] for word in NAMED} <= set(works)


def test_each_work_is_as_the_papers_reference_list_states_it(seeds):
    references = _plain(_references_list(seeds["heb-nb-paper-full"]))
    for key, work in _works().items():
        if key in ("the paper", "the textbook"):
            continue
        title = re.search(r"\(\d{4}\)\. \*?([^.*]+)", work.entry)[1]
        assert _plain(title) in references, key
        pages = re.search(r"(\d+)–(\d+)", work.entry)
        if key != "Minka (2000)":  # a technical report: no pages
            assert pages and _plain(f"{pages[1]}{pages[2]}") in references, key
        year = re.search(r"\((\d{4})\)", key)[1]
        assert f"({year})" in work.entry, key


def test_the_paper_the_textbook_and_aode_in_full(seeds):
    works = _works()
    paper = seeds["heb-nb-paper-full"]
    header = paper[: paper.index("Abstract")]
    entry = works["the paper"].entry
    for author in ("Nguyen Thai Anh", "Truong Viet Vu", "Tran Thien Thanh", "Vo Nguyen Quoc Bao"):
        assert author in header and author in entry
    assert "Ngo Hoang Tu" in entry and "Ngo Hoang Tu" in header
    arxiv = re.search(r"arXiv:(\S+)", paper)[1]
    assert f"arXiv:{arxiv}" in entry and "(2026)" in entry and "11 Aug 2026" in paper
    assert "submitted to *Knowledge-Based Systems*" in entry
    assert "Preprint submitted to Knowledge-Based Systems" in paper
    chapter = seeds["naive-bayes-chapter"]
    textbook = works["the textbook"].entry
    assert chapter.startswith("Advanced Data Analysis") and "Advanced Data Analysis" in textbook
    assert "Nguyen, Mike" in chapter and "Mike Nguyen" in textbook
    assert "18 Naive Bayes" in chapter and "chapter 18" in textbook
    aode = works["Webb, Boughton and Wang (2005)"].entry
    doi = re.search(r"doi:([^\s\]]+)", aode)[1]
    assert doi in seeds["aode-article"] and "58(1), 5–24" in seeds["aode-article"]
    assert "58(1), 5–24" in aode and "J. R. Boughton" in aode
    assert "Boughton, J.R." in paper
    minka = works["Minka (2000)"].entry
    assert "https://tminka.github.io/papers/dirichlet/" in minka
    assert "revised 2003, 2009" in minka
    # a trial found only Minka's address clickable: the arXiv id and the DOI are links too
    assert f"(https://doi.org/{doi})" in aode
    assert f"(https://arxiv.org/abs/{arxiv})" in entry


def test_the_benchmarks_statistics_and_tan_are_cited_as_the_paper_lists_them(seeds):
    """A trial found the Benchmark's tests (Demšar 2006) and TAN (Friedman et al. 1997),
    both offered by the app and both in the paper's reference list, not on the page."""
    references = _references_list(seeds["heb-nb-paper-full"])
    works = _works()
    assert "Demšar, J., 2006. Statistical comparisons of classifiers" in references
    assert "Benchmark" in works["Demšar (2006)"].used
    assert "Friedman, N., Geiger, D., Goldszmidt, M., 1997" in references
    assert "TAN" in works["Friedman, Geiger and Goldszmidt (1997)"].used


def test_every_cited_section_has_the_title_the_texts_give_it(seeds):
    from pages.references import CITED

    paper, chapter = _plain(seeds["heb-nb-paper-full"]), _plain(seeds["naive-bayes-chapter"])
    for cited, title, _ in CITED:
        source = chapter if cited.startswith("Textbook") else paper
        for part in title.split("; "):
            head = part.split(" (")[0]
            assert _plain(head) in source, (cited, head)


def test_the_page_draws_every_work_and_citation():
    from pages.references import CITED, WORKS

    at = open_lesson("references")
    text = " ".join(m.value for m in at.markdown)
    for work in WORKS:
        assert work.entry in text
    for cited, title, _ in CITED:
        assert f"| {cited} | {title} |" in text
