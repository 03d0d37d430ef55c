"""Numbers and lists docs/data.md states of the code, against the code: the broken corpus's size and the modules
whose change makes the pre-flight checks read every case again. The hundred-and-eighteenth session's rewrite
carried both from the old page, where they had gone stale: "34 broken datasets" (36 since scan_as_label and
probability_map_as_label joined them, commits d60c6ab1 and 0cdf2ca7) and a module list without the units' modules
(its review, r81)."""

from __future__ import annotations

import re
from pathlib import Path

from accelerated_seg.data.check_records import CHECKING_CODE

ROOT = Path(__file__).resolve().parents[1]
PAGE = " ".join((ROOT / "docs" / "data.md").read_text(encoding="utf-8").split())


def test_the_page_counts_the_broken_corpus_as_it_is():
    from broken_cases import BROKEN_CASES

    counted = re.search(r"`tests/broken_cases\.py` is a corpus of (\d+) broken datasets", PAGE)
    assert counted is not None and int(counted[1]) == len(BROKEN_CASES), (counted and counted[1], len(BROKEN_CASES))


def test_the_page_names_every_module_whose_change_reads_every_case_again():
    records = PAGE.split("**Records.**", 1)[1].split("- Ctrl-C", 1)[0]
    named = re.search(r"the modules `check_records\.CHECKING_CODE` lists: (.*?)\), nibabel or numpy", records)
    assert named is not None, records
    assert sorted(re.findall(r"`([^`]+\.py)`", named[1])) == sorted(CHECKING_CODE)


def test_every_page_that_counts_the_broken_corpus_counts_it_as_it_is():
    """README.md and docs/configuration.md say the count too, and said 34 after the data.md review fixed it there."""
    from broken_cases import BROKEN_CASES

    for page in ("README.md", "docs/configuration.md"):
        text = " ".join((ROOT / page).read_text(encoding="utf-8").split())
        counted = re.findall(r"The (\d+) broken cases in `tests/broken_cases\.py`", text)
        assert counted and all(int(n) == len(BROKEN_CASES) for n in counted), (page, counted, len(BROKEN_CASES))
