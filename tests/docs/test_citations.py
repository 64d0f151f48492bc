"""Every citation resolves inside the repository.

Evidence that cannot be followed is no evidence: a profile, a cassette's `follows`, an
expectation's `written_from`, a skip reason or a docstring that cites a fact must point at
something a reader of this checkout can open. Cited here: sections of docs/FACTS.md
(`FACTS.md §8`, `FACTS §9.1`, and the `§N` that follow them), paragraphs of docs/DESIGN.md by
their bold title (`DESIGN.md "Rules"`; it has no numbered sections), paths under `cassettes/`
and `docs/`, and recordings by file name (`*.sse`, `*.jsonl`, `*.ndjson`), which must be
published under `cassettes/<provider>/published/`, kept verbatim under `cassettes/wires/<wire>/`,
or named in docs/FACTS.md's list of sources that are not.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FACTS = "docs/FACTS.md"
DESIGN = "docs/DESIGN.md"
NOT_IN_REPOSITORY_SECTION = "11"

SKIPPED_DIRS = {".git", ".venv", "node_modules", "reports", "build", "dist", "fuzz_corpus"}
TEXT_SUFFIXES = {".md", ".py", ".yaml", ".yml", ".json", ".toml", ".txt", ".cfg", ".in", ""}

SECTION = re.compile(r"§(\d+)(?:\.(\d+))?")
RAW_PATH = re.compile(r"(?<![\w/])raw/[\w-]+/")
OUTSIDE_PATH = re.compile(r"/work/shared\b|(?<![\w/])seed/[\w.-]+")
CASSETTE_PATH = re.compile(r"(?<![\w/])cassettes/[\w./-]+?\.(?:yaml|json)\b")
DOCS_PATH = re.compile(r"(?<![\w/])docs/[\w.-]+\.md\b")
RECORDING_NAME = re.compile(r"(?<![\w/.+-])([\w.+-]+)\.(?:sse|jsonl|ndjson)\b")
DESIGN_SECTION = re.compile(r"DESIGN\.md §[\d.]+")
DESIGN_TITLES = re.compile(r'DESIGN\.md,? ((?:"[^"]+"(?:,? and |, )?)+)')


def text_files(root: Path) -> list[Path]:
    """The files a reader of the checkout sees (generated and installed trees left out)."""
    found = []
    for path in sorted(root.rglob("*")):
        parts = set(path.relative_to(root).parts[:-1])
        if parts & SKIPPED_DIRS or any(part.startswith(".") for part in parts):
            continue
        if path.is_file() and (path.suffix in TEXT_SUFFIXES or path.name == "Makefile"):
            found.append(path)
    return found


def prose_lines(path: Path) -> list[tuple[int, str]]:
    """The lines a reader takes for prose: all of a data or text file; a module's comments and
    docstrings (code builds paths and names files that are not citations)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        return list(enumerate(text.splitlines(), 1))
    lines: list[tuple[int, str]] = []
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            lines.append((token.start[0], token.string))
    for node in ast.walk(ast.parse(text)):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                first = value.lineno
                lines.extend((first + i, line) for i, line in enumerate(value.value.splitlines()))
    return sorted(lines)


def facts_sections(root: Path) -> set[str]:
    """`N` for each `## N.` heading of docs/FACTS.md, and `N.M` for each numbered item in it."""
    sections: set[str] = set()
    current = None
    for line in (root / FACTS).read_text(encoding="utf-8").splitlines():
        heading = re.match(r"## (\d+)\. ", line)
        if heading:
            current = heading.group(1)
            sections.add(current)
            continue
        item = re.match(r"(\d+)\. ", line)
        if item and current is not None:
            sections.add(f"{current}.{item.group(1)}")
    return sections


def not_in_repository(root: Path) -> str:
    """The text of docs/FACTS.md's section naming the sources that are cited but not kept."""
    text = (root / FACTS).read_text(encoding="utf-8")
    start = text.index(f"## {NOT_IN_REPOSITORY_SECTION}. ")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def unresolved(root: Path) -> list[str]:
    """One line per citation that does not resolve: file, line, what was cited, why."""
    sections = facts_sections(root)
    unkept = not_in_repository(root)
    published = {p.stem for p in root.glob("cassettes/*/published/*.yaml")}
    verbatim = {p.name for p in root.glob("cassettes/wires/*/*") if p.suffix != ".json"}
    design = (root / DESIGN).read_text(encoding="utf-8") if (root / DESIGN).exists() else ""
    problems = []
    for path in text_files(root):
        name = path.relative_to(root).as_posix()
        if name == "tests/docs/test_citations.py":
            continue
        try:
            lines = prose_lines(path)
        except (UnicodeDecodeError, SyntaxError):
            continue
        cites_facts = False
        for number, line in lines:
            where = f"{name}:{number}"
            cites_facts = cites_facts or "FACTS" in line
            for match in DESIGN_SECTION.finditer(line):
                problems.append(f"{where}: {match.group(0)}: {DESIGN} has no numbered sections")
            for match in DESIGN_TITLES.finditer(line):
                for title in re.findall(r'"([^"]+)"', match.group(1)):
                    if f"**{title}" not in design:
                        problems.append(f'{where}: "{title}" is not a paragraph of {DESIGN}')
            for match in SECTION.finditer(DESIGN_SECTION.sub("", line)):
                section = match.group(0)[1:]
                if cites_facts and section not in sections:
                    problems.append(f"{where}: {match.group(0)} is not a section of {FACTS}")
            for match in RAW_PATH.finditer(line):
                problems.append(f"{where}: {match.group(0)} is not in the repository")
            for match in OUTSIDE_PATH.finditer(line):
                problems.append(f"{where}: {match.group(0)} is outside the repository")
            for pattern in (CASSETTE_PATH, DOCS_PATH):
                for match in pattern.finditer(line):
                    if not (root / match.group(0)).exists():
                        problems.append(f"{where}: {match.group(0)} does not exist")
            for match in RECORDING_NAME.finditer(line):
                stem = match.group(1)
                cited = match.group(0)
                if stem not in published and cited not in verbatim and cited not in unkept:
                    problems.append(
                        f"{where}: recording {cited} is neither published under "
                        "cassettes/*/published/ or cassettes/wires/*/ nor named in "
                        f"{FACTS} §{NOT_IN_REPOSITORY_SECTION}"
                    )
    return problems


@pytest.mark.slow
def test_every_citation_resolves_in_the_repository() -> None:
    problems = unresolved(ROOT)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("FACTS.md §1 [E], from raw/openai/x.sse", "raw/openai/ is not in the repository"),
        ("FACTS.md §13 [E]", "§13 is not a section of docs/FACTS.md"),
        ("FACTS §9.42: no such item", "§9.42 is not a section of docs/FACTS.md"),
        ("see cassettes/openai/published/nothing.yaml", "does not exist"),
        ("see docs/NOWHERE.md", "docs/NOWHERE.md does not exist"),
        ("the bytes of fantasy_unknown_stream.sse", "recording fantasy_unknown_stream.sse"),
        ("a section of /work/shared/providers/FACTS.md", "/work/shared is outside"),
        ("the rule (DESIGN.md §2)", "DESIGN.md §2: docs/DESIGN.md has no numbered sections"),
        ('the rule (DESIGN.md "Flow", "No such rule")', '"No such rule" is not a paragraph'),
    ],
)
def test_a_citation_that_does_not_resolve_is_named(
    tmp_path: Path, text: str, expected: str
) -> None:
    """The check finds each kind of broken citation, with file and line."""
    (tmp_path / "docs").mkdir()
    for kept in (FACTS, DESIGN):
        (tmp_path / kept).write_text((ROOT / kept).read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "notes.md").write_text(f"first line\n{text}\n", encoding="utf-8")
    (tmp_path / "module.py").write_text(f'"""Doc.\n\n{text}\n"""\n\nX = 1  # {text}\n')
    problems = unresolved(tmp_path)
    for where in ("notes.md:2: ", "module.py:3: ", "module.py:6: "):
        assert any(p.startswith(where) and expected in p for p in problems), problems


def test_code_that_names_files_is_not_a_citation(tmp_path: Path) -> None:
    """Only a module's comments and docstrings are read: its code builds paths freely."""
    (tmp_path / "docs").mkdir()
    for kept in (FACTS, DESIGN):
        (tmp_path / kept).write_text((ROOT / kept).read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "module.py").write_text('PATH = "cassettes/x/.tmp.yaml"\nLOG = "args.jsonl"\n')
    assert [p for p in unresolved(tmp_path) if p.startswith("module.py")] == []


def test_the_repository_is_checked_at_all() -> None:
    """The walk reaches the files that cite (so an empty result means something)."""
    names = {p.relative_to(ROOT).as_posix() for p in text_files(ROOT)}
    assert {"providers.yaml", "docs/DESIGN.md", "tests/library/test_assembler.py"} <= names
    assert any(n.endswith(".expected.json") for n in names)
    assert {"1", "8", "9.1", "11"} <= facts_sections(ROOT)
