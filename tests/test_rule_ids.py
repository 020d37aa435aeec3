"""Every rule id cited in the code, the tests and the docs resolves to a section of
docs/rules.md, the rules users have.

An id is a specification id such as ``B.7.6``, ``C.3``, ``A.2``, ``E27`` or ``G8`` (test
names write them without dots: ``test_B76_...``), a whole section (``section F``,
``docs/rules.md A``) or ``Appendix 2``. docs/rules.md defines an id in a heading that ends
with it ("### 11.7 Placement legality (spec B.7.6)"), in the first cell of a table row
(E1-E41, G1-G18) or as "## Appendix N". Also checked: nothing cites the internal
specification file by name, and every ``#anchor`` link into docs/rules.md exists.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "rules.md"
SCANNED = (
    "perikles_env",
    "tests",
    "docs",
    "scripts",
    "benchmarks",
    "training",
    "native",
    "README.md",
)
SUFFIXES = {".py", ".md", ".yaml", ".cpp", ".hpp", ".h", ".txt"}
THIS_FILE = Path(__file__).resolve()

# B.7.6, C.3, A.2, D.9 / E27 / G8 / Appendix 2 / "section F" / "docs/rules.md F".
RULE_ID = re.compile(
    r"\b(?P<id>[A-D]\.\d+(?:\.\d+)?|E\d{1,2}|G\d{1,2})\b"
    r"|\b(?P<appendix>Appendix)[ -](?P<number>\d)\b"
    r"|(?:\bsection|(?i:rules)\.md,?)\s+(?P<section>[A-F])\b(?!\.\d)"
)
# Test names carry ids without dots: test_B76_..., test_B11_B78_..., test_C3_... .
TEST_NAME_IDS = re.compile(r"\bdef test_((?:[A-G]\d{1,2}_)+)")
SPEC_IN_HEADING = re.compile(r"\(([^()]*\bspec [^()]*)\)\s*$")
ROW_ID = re.compile(r"^\| (E\d{1,2}|G\d{1,2}) \|")
APPENDIX_HEADING = re.compile(r"^#+ Appendix (\d+)\b")
SPEC_FILE = "RULES" + ".md"  # split so that this file does not cite it


def scanned_files() -> list[Path]:
    files = []
    for top in SCANNED:
        base = ROOT / top
        if base.is_file():
            files.append(base)
        elif base.is_dir():
            files += [p for p in sorted(base.rglob("*")) if p.suffix in SUFFIXES and p.is_file()]
    skipped = {"__pycache__", "build", "dist"}  # generated files cite nothing
    return [
        p
        for p in files
        if not skipped & set(p.relative_to(ROOT).parts) and p.resolve() != THIS_FILE
    ]


def _dotted(name_id: str) -> str:
    """B76 -> B.7.6 (the B.7 subsections), B11 -> B.11, C3 -> C.3; E27 and G8 stay."""
    letter, digits = name_id[0], name_id[1:]
    if letter in "EG":
        return name_id
    if letter == "B" and len(digits) == 2 and digits[0] == "7":
        return f"B.7.{digits[1]}"
    return f"{letter}.{digits}"


def cited_ids(text: str) -> set[str]:
    out = set()
    for m in TEST_NAME_IDS.finditer(text):
        out |= {_dotted(part) for part in m.group(1).split("_") if part}
    for m in RULE_ID.finditer(text):
        if m.group("id"):
            out.add(m.group("id"))
        elif m.group("appendix"):
            out.add(f"Appendix {m.group('number')}")
        else:
            out.add(m.group("section"))
    return out


def defined_ids() -> set[str]:
    """Ids docs/rules.md defines: heading ids, E/G table rows and appendices."""
    out = set()
    for line in RULES.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            spec = SPEC_IN_HEADING.search(line)
            if spec:
                text = spec.group(1).split("spec ", 1)[1]
                out |= {part.strip() for part in text.split(",")}
            appendix = APPENDIX_HEADING.match(line)
            if appendix:
                out.add(f"Appendix {appendix.group(1)}")
        row = ROW_ID.match(line)
        if row:
            out.add(row.group(1))
    return {i for i in out if "-" not in i} | _ranges(out)


def _ranges(ids: set[str]) -> set[str]:
    """'E1-E41' in a heading stands for each id in the range."""
    out = set()
    for item in ids:
        m = re.fullmatch(r"([EG])(\d+)-\1(\d+)", item)
        if m:
            out |= {f"{m.group(1)}{k}" for k in range(int(m.group(2)), int(m.group(3)) + 1)}
    return out


def test_the_rules_document_defines_the_expected_ids() -> None:
    """The parser finds what the document promises, so the next test can fail."""
    ids = defined_ids()
    assert {"A", "C", "E", "F", "A.8", "B.7.6", "B.7.9", "C.3", "D.9", "E27", "E41", "G18"} <= ids
    assert {"Appendix 1", "Appendix 2"} <= ids
    assert "B.7.10" not in ids and "E42" not in ids and "G19" not in ids
    assert cited_ids("def test_B76_C3_B11_E8_x():") == {"B.7.6", "C.3", "B.11", "E8"}
    assert cited_ids("docs/rules.md B.7.6, E27; section F; RULES.md A; Appendix-2") == {
        "B.7.6",
        "E27",
        "F",
        "A",
        "Appendix 2",
    }


def test_every_cited_rule_id_is_a_section_of_docs_rules_md() -> None:
    defined = defined_ids()
    missing: dict[str, list[str]] = {}
    for path in scanned_files():
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for rule_id in cited_ids(line) - defined:
                missing.setdefault(rule_id, []).append(f"{path.relative_to(ROOT)}:{lineno}")
    assert not missing, "ids not defined in docs/rules.md: " + "; ".join(
        f"{i} ({', '.join(where[:3])})" for i, where in sorted(missing.items())
    )


def test_code_and_docs_cite_docs_rules_md_not_the_internal_specification() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{lineno}"
        for path in scanned_files()
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if SPEC_FILE in line
    ]
    assert not offenders, f"cite docs/rules.md instead of {SPEC_FILE}: {offenders}"


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = heading.lstrip("#").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def test_links_into_docs_rules_md_resolve() -> None:
    anchors = {
        _anchor(line)
        for line in RULES.read_text(encoding="utf-8").splitlines()
        if line.startswith("#")
    }
    broken = []
    for path in (ROOT / "docs").glob("*.md"):
        text = path.read_text(encoding="utf-8")
        own = r"\]\(#([\w-]+)\)" if path == RULES else r"rules\.md#([\w-]+)"
        broken += [f"{path.name}: #{a}" for a in re.findall(own, text) if a not in anchors]
    assert not broken, broken
