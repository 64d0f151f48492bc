"""The counts docs/MATRIX.md and docs/PROTOCOL.md state are a run's (`make matrix-docs`).

The slow test makes the run the make target makes (the conformance grid, the reference and the
three example programs over the whole suite, the size of every message) and fails when a
section differs from what the docs hold: a new cassette or a changed example without `make
matrix-docs` cannot leave the docs behind. The fast ones hold the rendering to its rules.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from toolcall.harness.matrix import docs as matrix_docs
from toolcall.harness.matrix import run as matrix
from toolcall.harness.matrix.run import Matrix, Result
from toolcall.harness.matrix.verdict import PASS, Verdict
from toolcall.harness.peers.external import LINE_READER_LIMIT, MAX_MESSAGE
from toolcall.harness.suite.profiles import load_suite

ROOT = Path(__file__).resolve().parents[1]


def test_every_section_has_its_markers_in_its_file() -> None:
    for name, path in matrix_docs.SECTIONS.items():
        text = (ROOT / path).read_text(encoding="utf-8")
        assert text.count(matrix_docs.begin(name)) == 1, (path, name)
        assert text.index(matrix_docs.begin(name)) < text.index(matrix_docs.end(name))


def test_a_file_without_the_markers_is_refused() -> None:
    with pytest.raises(ValueError, match="no lines"):
        matrix_docs.replaced("# nothing here\n", "matrix", "body")


def test_a_section_is_replaced_and_the_rest_kept_byte_for_byte() -> None:
    text = f"above\n{matrix_docs.begin('matrix')}\nold\n{matrix_docs.end('matrix')}\nbelow\n"
    once = matrix_docs.replaced(text, "matrix", "new")
    assert (
        once
        == f"above\n{matrix_docs.begin('matrix')}\n\nnew\n\n{matrix_docs.end('matrix')}\nbelow\n"
    )
    assert matrix_docs.replaced(once, "matrix", "new") == once


def _matrix() -> Matrix:
    result = Matrix(implementations=[("toolcall", "toolcall 9.9"), ("go", "assemble-go 0.1 (go)")])
    for name in ("toolcall", "go"):
        result.results += [
            Result(name, "openai", "single_call", Verdict(PASS)),
            Result(name, "openai", "parallel_calls", Verdict(PASS)),
            Result(name, "anthropic", "anthropic/x", Verdict(PASS), "anthropic"),
        ]
    merged = Verdict("merged calls", "...")
    result.results[-2] = Result(
        "go", "openai", "parallel_calls", merged, case="openai-parallel_calls"
    )
    return result


def test_the_matrix_section_counts_per_wire_and_names_each_verdict() -> None:
    section = matrix_docs.matrix_section(_matrix())
    assert "Over the suite's 3 streams" in section
    assert "| toolcall | the reference | 2/2 | - | 1/1 | - | - | 3/3 |" in section  # no release
    assert "| go | assemble-go 0.1 (go) | 1/2 | - | 1/1 | - | - | 2/3 |" in section
    assert "- go: `merged calls` on 1 row: `openai-parallel_calls`" in section  # its --case id


def test_the_messages_section_states_the_limits() -> None:
    sizes = matrix_docs.Sizes(153, 2_790_441, "deepseek/long_arguments", 22)
    section = matrix_docs.messages_section(sizes)
    assert "the largest is 2,790,441 bytes (`deepseek/long_arguments`)" in section
    assert "22 are longer than the 64 KiB" in section
    assert "longer than 8,388,608 bytes (8 MiB" in section


def test_check_mode_says_what_is_stale_and_writes_nothing(tmp_path: Path) -> None:
    for name, path in matrix_docs.SECTIONS.items():
        (tmp_path / path).parent.mkdir(exist_ok=True)
        if not (tmp_path / path).exists():
            (tmp_path / path).write_text("", encoding="utf-8")
        with (tmp_path / path).open("a", encoding="utf-8") as doc:
            doc.write(f"{matrix_docs.begin(name)}\n{matrix_docs.end(name)}\n")
    texts = matrix_docs.rendered(tmp_path, dict.fromkeys(matrix_docs.SECTIONS, "counted"))
    before = {path: (tmp_path / path).read_text(encoding="utf-8") for path in texts}
    assert sorted(matrix_docs._write(tmp_path, texts, check=True)) == sorted(texts)
    assert {path: (tmp_path / path).read_text(encoding="utf-8") for path in texts} == before
    assert sorted(matrix_docs._write(tmp_path, texts, check=False)) == sorted(texts)
    assert matrix_docs._write(tmp_path, texts, check=True) == []
    assert "\n\ncounted\n\n" in (tmp_path / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_every_message_of_the_suite_fits_the_limit_the_docs_state() -> None:
    """The largest `assemble` message over all cases, as the matrix hands them over, is under
    `MAX_MESSAGE`, and docs/PROTOCOL.md says how large it is."""
    sizes = matrix_docs.sizes(load_suite(ROOT))
    assert sizes.streams > 100 and sizes.over_reader_limit > 0
    assert LINE_READER_LIMIT < sizes.largest <= MAX_MESSAGE
    protocol = (ROOT / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")
    assert matrix_docs.messages_section(sizes) in protocol


@pytest.mark.slow
def test_the_docs_hold_what_a_run_gives() -> None:
    """`make matrix-docs` would change nothing: the docs are the run's."""
    missing = [tool for tool in ("go", "node") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"the examples need {missing}, which are not installed")
    texts = matrix_docs.render(ROOT)
    for path, text in texts.items():
        assert (ROOT / path).read_text(encoding="utf-8") == text, f"{path}: run make matrix-docs"
    assert matrix.REFERENCE in texts["docs/MATRIX.md"]
