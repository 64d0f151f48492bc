"""The report site as a reader sees it, in a real browser: the distribution's Chromium driven by
Playwright, pages opened from their files with no network.

Each test builds the site from small JSON made here (one from a real run, narrowed), opens it,
and checks what is on screen: no console error, the counts the JSON holds, a filter that
narrows the rows, a failing cell that opens its case page with the difference, and the keyboard.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import report_documents
from toolcall.harness.cli import main
from toolcall.harness.site.screenshot import CHROMIUM

ROOT = Path(__file__).resolve().parents[3]

# A browser takes seconds to start, so these run in `make check` (CI), not `make test`.
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not CHROMIUM.is_file(),
        reason=f"no Chromium at {CHROMIUM}: `apt-get install chromium` (CI installs it)",
    ),
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM))
        yield chromium
        chromium.close()


class Window:
    """One browser page, with every console error and uncaught exception it saw."""

    def __init__(self, browser: Any) -> None:
        self.page = browser.new_page()
        self.errors: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        # Nothing may leave the machine: every request but a file's is refused and noted.
        self.page.route("**/*", self._only_files)

    def _only_files(self, route: Any) -> None:
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            self.errors.append(f"asked the network for {route.request.url}")
            route.abort()

    def open(self, path: Path) -> Any:
        self.page.goto(path.resolve().as_uri())
        return self.page

    def shown_rows(self) -> int:
        return int(self.page.locator("#matrix tbody tr:not([hidden])").count())


def build(folder: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert main(["--root", str(ROOT), "report", "--reports", str(folder)]) == 0
    capsys.readouterr()
    return folder / "site"


@pytest.fixture
def site(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    return build(report_documents.write_all(tmp_path / "reports"), capsys)


@pytest.fixture
def window(browser: Any) -> Iterator[Window]:
    opened = Window(browser)
    yield opened
    opened.page.close()


def test_every_page_opens_without_a_console_error(site: Path, window: Window) -> None:
    pages = sorted(site.rglob("*.html"))
    assert len(pages) == 4 + 2 + 5  # four pages, two implementations, a case per wire
    for page in pages:
        window.open(page)
        assert window.page.locator("h1").count() == 1
    assert window.errors == []


def test_the_counts_on_the_pages_are_the_json_s(site: Path, window: Window) -> None:
    conformance = report_documents.conformance()["summary"]
    matrix = report_documents.matrix()
    page = window.open(site / "index.html")
    for key in ("passed", "failed", "not_applicable", "recordings"):
        assert page.locator(f'[data-count="{key}"]').inner_text() == str(conformance[key])
    for implementation in matrix["implementations"]:
        said = page.locator(f'[data-impl="{implementation["name"]}"]').inner_text()
        assert said == f"{implementation['passed']} of {implementation['total']}"
    window.open(site / "matrix.html")
    assert window.shown_rows() == len(matrix["cases"])
    assert page.locator("#shown-count").inner_text() == str(len(matrix["cases"]))
    failing = [r for r in matrix["results"] if r["verdict"] != "pass"]
    assert page.locator("#matrix td", has_text="\u2717 wrong arguments").count() == len(failing)
    assert page.locator("#matrix td", has_text="\u2713 pass").count() == 10 - len(failing)
    assert window.errors == []


@pytest.mark.parametrize(
    ("control", "choice", "rows"),
    [
        ("#filter-wire", "gemini", 1),
        ("#filter-verdict", "any failure", 2),
        ("#filter-route", "relay-one", 1),
    ],
)
def test_a_filter_narrows_the_rows(
    site: Path, window: Window, control: str, choice: str, rows: int
) -> None:
    page = window.open(site / "matrix.html")
    assert window.shown_rows() == 5
    page.select_option(control, label=choice)
    assert window.shown_rows() == rows
    assert page.locator("#shown-count").inner_text() == str(rows)
    page.select_option(control, value="")
    assert window.shown_rows() == 5
    assert window.errors == []


def test_the_search_box_narrows_the_rows(site: Path, window: Window) -> None:
    page = window.open(site / "matrix.html")
    page.fill("#filter-search", "another value")  # words of a failing cell's reason
    assert window.shown_rows() == 2
    page.fill("#filter-search", "vendor-ollama")
    assert window.shown_rows() == 1
    page.fill("#filter-search", "no such case")
    assert window.shown_rows() == 0
    assert window.errors == []


def test_a_failing_cell_opens_its_case_page_with_the_difference(site: Path, window: Window) -> None:
    page = window.open(site / "matrix.html")
    page.select_option("#filter-wire", label="gemini")
    page.locator("#matrix tbody tr:not([hidden]) td.v-fail a").click()
    page.wait_for_url("**/cases/*.html#impl-sloppy")
    assert page.locator("h1").inner_text() == "Case vendor-gemini/gemini/weather"
    answer = page.locator("#impl-sloppy")
    assert "\u2717 wrong arguments" in answer.locator("h3").inner_text()
    assert answer.locator(".diff .del").all_inner_texts() == [
        '- call 0: arguments   "city": "Paris"'
    ]
    assert answer.locator(".diff .add").all_inner_texts() == [
        '+ call 0: arguments   "city": "Pari"'
    ]
    assert page.locator("ol.events mark").count() > 0
    assert window.errors == []


def test_the_keyboard_reaches_the_filter_and_opens_a_row(site: Path, window: Window) -> None:
    page = window.open(site / "matrix.html")
    focused = ""
    for _ in range(10):  # past the navigation's links
        page.keyboard.press("Tab")
        focused = page.evaluate("document.activeElement.id")
        if focused == "filter-search":
            break
    assert focused == "filter-search"
    page.keyboard.type("anthropic")
    assert window.shown_rows() == 1
    for _ in range(10):  # past the other filters
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.tagName") == "TR":
            break
    assert page.evaluate("document.activeElement.tagName") == "TR"
    page.keyboard.press("Enter")
    page.wait_for_url("**/cases/*.html")
    assert page.locator("h1").inner_text() == "Case vendor-anthropic/anthropic/weather"
    assert window.errors == []


@pytest.mark.parametrize("wire", list(report_documents.BODIES))
def test_each_wire_s_case_page_marks_its_stream(site: Path, window: Window, wire: str) -> None:
    page = window.open(site / "matrix.html")
    page.select_option("#filter-wire", label=wire)
    page.locator("#matrix tbody tr:not([hidden]) th a").click()
    page.wait_for_url("**/cases/*.html")
    marks = page.locator("ol.events mark").all_inner_texts()
    assert any("get_weather" in m for m in marks), marks
    assert page.locator("dl").inner_text().count(wire) >= 1
    assert window.errors == []


def test_ten_thousand_cells_are_drawn_and_filtered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], window: Window
) -> None:
    folder = tmp_path / "reports"
    folder.mkdir()
    matrix = report_documents.large_matrix(1000, 10)
    (folder / "matrix.json").write_text(json.dumps(matrix), encoding="utf-8")
    page = window.open(build(folder, capsys) / "matrix.html")
    assert page.locator("#matrix tbody td[data-verdict]").count() == 10_000
    page.select_option("#filter-verdict", label="merged calls")
    failing = {r["id"] for r in matrix["results"] if r["verdict"] != "pass"}
    assert window.shown_rows() == len(failing)
    assert window.errors == []


def test_a_site_from_a_real_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], window: Window
) -> None:
    """`toolcall conformance --json` and `toolcall matrix --implementation toolcall --json`,
    narrowed to one provider, made into a site whose counts are the runs'."""
    folder = tmp_path / "reports"
    narrowed = ["--root", str(ROOT)]
    conformance_args = ["conformance", "--provider", "deepseek"]
    assert main([*narrowed, *conformance_args, "--json", str(folder / "conformance.json")]) == 0
    matrix_args = ["matrix", "--provider", "deepseek", "--implementation", "toolcall"]
    assert main([*narrowed, *matrix_args, "--json", str(folder / "matrix.json")]) == 0
    capsys.readouterr()
    conformance = json.loads((folder / "conformance.json").read_text(encoding="utf-8"))
    matrix = json.loads((folder / "matrix.json").read_text(encoding="utf-8"))
    site = build(folder, capsys)
    page = window.open(site / "index.html")
    for key, count in conformance["summary"].items():
        assert page.locator(f'[data-count="{key}"]').inner_text() == str(count)
    (reference,) = matrix["implementations"]
    said = page.locator('[data-impl="toolcall"]').inner_text()
    assert said == f"{reference['passed']} of {reference['total']}"
    window.open(site / "matrix.html")
    assert window.shown_rows() == len(matrix["cases"]) > 0
    wires = {c["wire"] for c in matrix["cases"]}
    page.select_option("#filter-wire", label="chat")
    assert window.shown_rows() == sum(c["wire"] == "chat" for c in matrix["cases"])
    assert len(wires) >= 2, wires  # deepseek: chat completions and Responses
    page.locator("#matrix tbody tr:not([hidden])").first.focus()
    page.keyboard.press("Enter")
    page.wait_for_url("**/cases/*.html")
    assert page.locator("ol.events li").count() > 0
    assert window.errors == []
