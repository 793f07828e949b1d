"""docs/spec.md is the contract the code and tests cite: every citation names one of its headings.

A citation is the word SPEC, a section sign and a number (``2.1``), optionally continued by
a list of further numbers (``, §5 and §8``). It names a heading of docs/spec.md of the form
``## 3. Sources…`` or ``### 2.1 Targets…``. A trailing full stop ("… see SPEC §2.1.") is
punctuation, not part of the number.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "docs" / "spec.md"
# Where citations live: the package, its tests and benchmarks, the docs, the schemas, the README.
SCANNED = ("codenav", "tests", "bench", "docs", "schemas", "README.md")
SKIPPED_DIRS = {"__pycache__", "node_modules", "build", "dist"}

HEADING = re.compile(r"^#{2,3} (\d+(?:\.\d+)*)[. ]", re.MULTILINE)
_NUMBER = r"\d+(?:\.\d+)*"
# "SPEC §2.7, §2.3, §5 and §8": the first number and every listed one after it.
CITATION = re.compile(rf"SPEC §{_NUMBER}(?:\s*(?:,|and|&|–)\s*§{_NUMBER})*")
NUMBER = re.compile(rf"§({_NUMBER})")


def headings(text: str) -> list[str]:
    """The section numbers of a spec text, in order (duplicates kept)."""
    return HEADING.findall(text)


def citations(text: str) -> list[tuple[int, str]]:
    """(line number, section number) of every citation in ``text``."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for match in CITATION.finditer(line):
            found.extend((number, cited.rstrip(".")) for cited in NUMBER.findall(match.group(0)))
    return found


def dangling(text: str, known: set[str], where: str) -> list[str]:
    """``where:line: SPEC §N`` for each citation in ``text`` that names no known heading."""
    return [f"{where}:{line}: SPEC §{cited}" for line, cited in citations(text) if cited not in known]


def scanned_files() -> list[Path]:
    """Every text file under SCANNED, skipping hidden folders (virtualenvs) and build output."""
    files: list[Path] = []
    for name in SCANNED:
        top = ROOT / name
        if top.is_file():
            files.append(top)
            continue
        for path in sorted(top.rglob("*")):
            parts = path.relative_to(ROOT).parts
            if any(part.startswith(".") or part in SKIPPED_DIRS or part.endswith(".egg-info") for part in parts):
                continue
            if path.is_file():
                files.append(path)
    return files


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return None  # binary data (archives in tests/data): nothing to cite from


def _all_citations() -> dict[str, list[tuple[int, str]]]:
    found = {}
    for path in scanned_files():
        text = _read_text(path)
        if text is not None and "SPEC §" in text:
            found[path.relative_to(ROOT).as_posix()] = citations(text)
    return found


def test_every_spec_citation_names_a_heading_of_docs_spec_md():
    """Each SPEC § citation in codenav/, tests/, bench/, docs/, schemas/ and the README names a heading of docs/spec.md; the failure lists every dangling one as file:line."""
    known = set(headings(SPEC.read_text(encoding="utf-8")))
    problems = []
    for path in scanned_files():
        text = _read_text(path)
        if text is not None:
            problems += dangling(text, known, path.relative_to(ROOT).as_posix())
    assert not problems, "citations of sections docs/spec.md does not have:\n" + "\n".join(problems)


def test_the_scan_sees_the_citations_of_the_package_and_the_tests():
    """The scan finds citations in both codenav/ and tests/, so the check above is not vacuous."""
    found = _all_citations()
    assert any(name.startswith("codenav/") and cited for name, cited in found.items())
    assert any(name.startswith("tests/") and name != "tests/test_spec.py" and cited for name, cited in found.items())
    assert sum(len(cited) for cited in found.values()) >= 20


def test_heading_numbers_of_docs_spec_md_are_unique():
    """No section number is used by two headings of docs/spec.md."""
    numbers = headings(SPEC.read_text(encoding="utf-8"))
    repeated = sorted({n for n in numbers if numbers.count(n) > 1})
    assert numbers, "docs/spec.md has no numbered headings"
    assert not repeated, f"section numbers used twice in docs/spec.md: {', '.join(repeated)}"


def test_every_subsection_of_docs_spec_md_sits_under_an_existing_section():
    """A heading numbered N.M has a heading numbered N in docs/spec.md."""
    numbers = headings(SPEC.read_text(encoding="utf-8"))
    orphans = [n for n in numbers if "." in n and n.rsplit(".", 1)[0] not in numbers]
    assert not orphans, f"subsections without their section: {', '.join(orphans)}"


def test_the_scanner_reports_a_dangling_citation_with_its_file_and_line():
    """A citation of a missing section is reported as file:line, listed numbers included, a trailing full stop ignored."""
    spec = "# Title\n\n## 1. One\n\n### 1.2 Sub\n\n## 3. Three\n"
    sign = "SPEC §"  # built here so that this file itself cites nothing
    text = (
        f"fine: {sign}1 and {sign}1.2.\n"
        f"listed: {sign}3, §4 and §1\n"
        f"missing: see {sign}2.1.\n"
    )
    known = set(headings(spec))
    assert known == {"1", "1.2", "3"}
    assert citations(text) == [(1, "1"), (1, "1.2"), (2, "3"), (2, "4"), (2, "1"), (3, "2.1")]
    assert dangling(text, known, "x.py") == ["x.py:2: SPEC §4", "x.py:3: SPEC §2.1"]


def test_the_heading_parser_reads_only_numbered_level_two_and_three_headings():
    """`## 3. Title` and `### 2.1 Title` are sections; a level-one, level-four or unnumbered heading is not."""
    text = "# 1. Top\n## 2. Two\n### 2.1 Sub\n#### 2.1.1 Deep\n## Notes\n##3. Squashed\n## 10. Ten\n"
    assert headings(text) == ["2", "2.1", "10"]
