"""`toolcall report` without a browser: what it reads, what it refuses, what it writes, and how
big the matrix page gets (the browser's view is tests/harness/site/test_report_browser.py)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import report_documents
from toolcall.harness.cli import main
from toolcall.harness.site import build, case_page, events, html, inputs, matrix_page

ROOT = Path(__file__).resolve().parents[3]


def report(folder: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["--root", str(ROOT), "report", "--reports", str(folder)])
    out, err = capsys.readouterr()
    return code, out, err


def test_every_page_is_written_from_every_kind_of_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = report_documents.write_all(tmp_path / "reports")
    code, out, _err = report(folder, capsys)
    assert code == 0, out
    site = folder / "site"
    assert {p.name for p in site.iterdir()} == {
        "index.html",
        "matrix.html",
        "gateways.html",
        "probes.html",
        "cases",
        "implementations",
    }
    assert len(list((site / "cases").iterdir())) == 5
    assert len(list((site / "implementations").iterdir())) == 2
    overview = (site / "index.html").read_text(encoding="utf-8")
    assert '<span data-count="failed">1</span>' in overview
    assert 'data-impl="sloppy" data-passed="3" data-total="5"' in overview
    assert f"sloppy 9; with glue: {report_documents.GLUE}" in overview
    sloppy = (site / "implementations" / "sloppy.html").read_text(encoding="utf-8")
    assert f"adds glue around the library it checks: {report_documents.GLUE}" in sloppy
    probes = (site / "probes.html").read_text(encoding="utf-8")
    assert "quirk index_absent</strong> every chunk repeats the call id" in probes
    assert "error truncated</strong> tool call index 0, name &#x27;add&#x27;" in probes
    gateways = (site / "gateways.html").read_text(encoding="utf-8")
    assert "REQ: a request field did not reach upstream as sent" in gateways


def test_no_page_asks_the_network_for_anything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No script, style or font from elsewhere: the site opens from a file with no network."""
    folder = report_documents.write_all(tmp_path / "reports")
    assert report(folder, capsys)[0] == 0
    for page in (folder / "site").rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert not re.search(
            r"""<(script|link|img|iframe)[^>]*(src|href)=["']?(https?:)?//""", text
        )
        assert "@import" not in text and "url(" not in text


def test_absent_inputs_leave_their_pages_saying_which_command_makes_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "reports"
    folder.mkdir()
    (folder / "matrix.json").write_text(json.dumps(report_documents.matrix()), "utf-8")
    assert report(folder, capsys)[0] == 0
    assert "make conformance" in (folder / "site" / "index.html").read_text(encoding="utf-8")
    assert "make gateways" in (folder / "site" / "gateways.html").read_text(encoding="utf-8")


def test_an_empty_folder_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _out, err = report(tmp_path, capsys)
    assert code == 2
    assert err.count("\n") == 1 and "holds no report" in err and str(tmp_path) in err


@pytest.mark.parametrize(
    ("name", "breaking", "where"),
    [
        ("matrix.json", lambda d: d["results"][3].update(verdict=5), "$.results[3].verdict"),
        ("conformance.json", lambda d: d["summary"].pop("failed"), "$.summary"),
        (
            "gateways.json",
            lambda d: d["gateways"][0]["streams"][1].update(passed="yes"),
            "$.gateways[0].streams[1].passed",
        ),
        ("probe-local.json", lambda d: d.update(findings={}), "$.findings"),
        ("doctor.json", lambda d: d.pop("framing"), "$"),
    ],
)
def test_a_malformed_input_is_named_with_its_json_path(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    breaking: Callable[[dict[str, Any]], object],
    where: str,
) -> None:
    folder = report_documents.write_all(tmp_path / "reports")
    document = json.loads((folder / name).read_text(encoding="utf-8"))
    breaking(document)
    (folder / name).write_text(json.dumps(document), encoding="utf-8")
    code, _out, err = report(folder, capsys)
    assert code == 2
    assert err.count("\n") == 1, err
    assert err.startswith(f"toolcall: {folder / name}: {where}: "), err
    assert "Traceback" not in err


def test_a_file_that_is_not_json_is_named_with_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = report_documents.write_all(tmp_path / "reports")
    (folder / "gateways.json").write_text('{"about": {},\n "gateways": [,]}', encoding="utf-8")
    code, _out, err = report(folder, capsys)
    assert code == 2
    assert f"{folder / 'gateways.json'}: not JSON: " in err and "(line 2, column" in err


def test_ten_thousand_cells_make_a_page_of_a_few_bytes_a_cell(tmp_path: Path) -> None:
    """The matrix page carries its cells as compact JSON: 1,000 cases by 10 implementations,
    one cell in ten failing with a reason of its own, measured in bytes."""
    page = matrix_page.render(report_documents.large_matrix(1000, 10))
    size = len(page.encode("utf-8"))
    assert size < 300_000, size  # under 30 bytes a cell, reasons included
    data = json.loads(
        re.search(r'id="matrix-data">(.*?)</script>', page, re.S).group(1)  # type: ignore[union-attr]
    )
    assert len(data["rows"]) == 1000
    assert sum(len(row[6]) for row in data["rows"]) == 10_000
    assert "<tr" not in page.split("<tbody>")[1].split("</tbody>")[0]  # rows are drawn by script


@pytest.mark.parametrize("wire", list(report_documents.BODIES))
def test_the_bytes_that_decide_the_turn_are_marked_on_every_wire(wire: str) -> None:
    case = report_documents.case(wire)
    found = events.split(case["body"], wire, case["framing"])
    assert found
    marked = [e.text[s:t] for e in found for s, t in e.marks]
    assert any('"name"' in m and "get_weather" in m for m in marked), marked
    html_text = "".join(events.marked(e) for e in found)
    assert "<mark>" in html_text and "<script" not in html_text


def test_a_case_page_shows_the_difference_in_signs_and_words() -> None:
    matrix = report_documents.matrix()
    (case,) = [c for c in matrix["cases"] if c["wire"] == "gemini"]
    results = [r for r in matrix["results"] if r["id"] == case["id"]]
    page = case_page.render(case["id"], case, results)
    assert "toolcall case vendor-gemini/gemini/weather" in page
    assert "toolcall matrix --case vendor-gemini/gemini/weather" in page
    assert '<span class="del">-' in page and "&quot;Paris&quot;" in page
    assert '<span class="add">+' in page and "&quot;Pari&quot;" in page
    assert "\u2717 wrong arguments" in page  # the verdict in words, its mark beside it


def test_names_become_distinct_file_names() -> None:
    names = ["a/b", "a_b", "a b", "a/b/c", "x" * 3]
    assert len({html.slug(n) for n in names}) == len(names)
    assert all(re.fullmatch(r"[A-Za-z0-9._-]+", html.slug(n)) for n in names)


def test_the_site_builder_reads_each_schema_it_names() -> None:
    for _name, schema_file, definition in inputs.FIXED.values():
        assert inputs.validator(schema_file, definition) is not None
    for key in inputs.MANY:
        assert inputs.validator(inputs.SITE_SCHEMA, key) is not None
    assert build.pages(inputs.Inputs())["matrix.html"].count("<table") == 1


HARNESS = (ROOT / "docs" / "HARNESS.md").read_text(encoding="utf-8")
SECTION = HARNESS.split("## The report site", 1)[1].split("\n## ", 1)[0]


def test_the_manual_s_commands_build_the_site_as_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/HARNESS.md's block, line by line: `make report` gives `toolcall` the arguments the
    other line spells out, and that line, run in a folder holding `reports/`, writes the site."""
    from tests.project.test_makefile import run_make

    block = SECTION.split("```sh\n", 1)[1].split("```", 1)[0].splitlines()
    assert block[0] == "make report"
    (tmp_path / "make").mkdir()
    (called,) = run_make(tmp_path / "make", "report")
    command = block[1].split()
    assert command[0] == ".venv/bin/toolcall" and command[1:] == called
    report_documents.write_all(tmp_path / "run" / "reports")
    monkeypatch.chdir(tmp_path / "run")
    assert main(["--root", str(ROOT), *command[1:]]) == 0
    assert "reports/site" in capsys.readouterr().out
    assert (tmp_path / "run" / "reports" / "site" / "index.html").is_file()


def test_make_screenshot_asks_for_the_picture_the_readme_shows(tmp_path: Path) -> None:
    from tests.project.test_makefile import run_make

    (called,) = run_make(tmp_path, "screenshot")
    assert called[called.index("--screenshot") + 1] == "docs/report-overview.png"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "](docs/report-overview.png)" in readme
    assert (ROOT / "docs" / "report-overview.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_missing_browser_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = report_documents.write_all(tmp_path / "reports")
    code = main(
        [
            "--root",
            str(ROOT),
            "report",
            "--reports",
            str(folder),
            "--screenshot",
            str(tmp_path / "o.png"),
            "--browser",
            str(tmp_path / "no-chromium"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "no browser at" in err


@pytest.mark.slow
def test_the_matrix_json_carries_each_case_and_each_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each result names its wire and case, and carries the answer; each case its stream and
    expected turn: what a case page shows, from a run narrowed to one provider."""
    target = tmp_path / "matrix.json"
    args = [
        "--root",
        str(ROOT),
        "matrix",
        "--provider",
        "deepseek",
        "--implementation",
        "toolcall",
    ]
    assert main([*args, "--json", str(target)]) == 0
    capsys.readouterr()
    document = inputs.read(target, "reports.schema.json", "matrix")
    cases = {c["id"]: c for c in document["cases"]}
    assert {"chat", "responses"} <= {c["wire"] for c in cases.values()}
    for result in document["results"]:
        case = cases[result["id"]]
        assert result["wire"] == case["wire"]
        assert result["answer"] is not None
        assert len(result["answer"]["calls"]) == len(case["expected"]["calls"])
    kinds = {c["kind"] for c in cases.values()}
    assert kinds == {"cell", "published", "wire-recording", "cut"}, kinds
    cut = next(c for c in cases.values() if c["kind"] == "cut")
    assert cut["expected"]["error"] and cut["provenance"]["source"]


@pytest.mark.slow
def test_every_wire_s_cases_reach_the_site_from_a_whole_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "reports"
    args = ["--root", str(ROOT), "matrix", "--implementation", "toolcall"]
    assert main([*args, "--json", str(folder / "matrix.json")]) == 0
    capsys.readouterr()
    document = json.loads((folder / "matrix.json").read_text(encoding="utf-8"))
    assert {c["wire"] for c in document["cases"]} == set(report_documents.BODIES)
    assert report(folder, capsys)[0] == 0
    for case in document["cases"]:
        page = (folder / "site" / html.case_href(case["id"])).read_text(encoding="utf-8")
        assert "<mark>" in page, case["id"]  # the bytes that decide the turn, on every wire
        assert "\u2713 pass" in page


@pytest.mark.slow
def test_a_real_gateway_run_meets_its_schema(tmp_path: Path) -> None:
    """`toolcall gateways --json`'s document, from a run through a transparent relay."""
    from tests.harness.gateways.test_gateways import through
    from tests.helpers.gateway_relay import Rewrites
    from toolcall.harness.gateways import report as gateways_report

    document = gateways_report.document([through(Rewrites(insert_index=True), tmp_path)])
    target = tmp_path / "gateways.json"
    target.write_text(json.dumps(document), encoding="utf-8")
    assert inputs.read(target, "gateways.schema.json")["gateways"][0]["streams"]


@pytest.mark.slow
def test_the_commands_a_case_page_gives_replay_that_case(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "matrix.json"
    narrowed = ["--root", str(ROOT), "matrix", "--implementation", "toolcall"]
    assert main([*narrowed, "--kind", "cut", "--json", str(target)]) == 0
    capsys.readouterr()
    document = json.loads(target.read_text(encoding="utf-8"))
    case = next(c for c in document["cases"] if c["wire"] == "gemini")
    page = case_page.render(case["id"], case, [])
    commands = page.split("<h2>Replay it</h2><pre>", 1)[1].split("</pre>", 1)[0]
    shown, again = [line.split() for line in commands.splitlines()]
    assert shown[:2] == ["toolcall", "case"] and again[:3] == ["toolcall", "matrix", "--case"]
    assert main(["--root", str(ROOT), *shown[1:]]) == 0
    assert case["id"] in capsys.readouterr().out
    assert main(["--root", str(ROOT), *again[1:], "--implementation", "toolcall"]) == 0
    assert "passed: toolcall 1/1" in capsys.readouterr().out


def test_the_browser_the_docs_say_to_install_is_the_one_ci_installs_and_the_tests_drive() -> None:
    """The README and the manual say `apt-get install chromium` and the dev extra; CI's entry
    point runs that install, the dev extra holds Playwright, and the tests drive that path."""
    from toolcall.harness.site.screenshot import CHROMIUM

    for doc in (ROOT / "README.md", ROOT / "docs" / "HARNESS.md"):
        text = " ".join(doc.read_text(encoding="utf-8").split())
        assert "`apt-get install chromium`" in text and "pip install -e '.[dev]'" in text, doc
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "missing+=(chromium)" in ci and 'apt-get install -y "${missing[@]}"' in ci
    workflow = (ROOT / ".github" / "workflows" / "conformance.yml").read_text(encoding="utf-8")
    assert "apt-get install -y chromium" in workflow
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    dev = pyproject.split("\ndev = [", 1)[1].split("\n]", 1)[0]
    assert '\n    "playwright>=' in dev
    assert str(CHROMIUM) == "/usr/bin/chromium"
    assert "playwright install" not in (ROOT / "Makefile").read_text(encoding="utf-8")
