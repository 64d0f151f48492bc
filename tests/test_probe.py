"""`toolcall probe` against servers on 127.0.0.1: a sound stand-in model on every wire, the same
with each fault of the public reports, and `toolcall serve`; what it refuses to run, and the
key kept out of everything it prints and writes."""

from __future__ import annotations

import json
import shlex
import shutil
import socket
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import toolcall
from toolcall.harness import serving
from toolcall.harness.cli import COMMANDS, parser
from toolcall.harness.matrix import run as matrix
from toolcall.harness.probe import family, judges, runner, scenarios
from toolcall.harness.suite import cassettes
from toolcall.harness.suite.profiles import Suite, load_suite

from .probe_model import model_server

ROOT = Path(__file__).resolve().parent.parent
SUITE = load_suite(ROOT)
SCHEMA = json.loads((ROOT / "toolcall" / "schemas" / "probe.schema.json").read_text())
KEY = "sk-probe0123456789abcdefghijklmnop"
#: A few scenarios keep each run to a handful of requests.
FEW = ["--scenario", "single_call", "--scenario", "cut_arguments", "--scenario", "several_calls"]


def base(root: str, wire: str, fault: str = "") -> str:
    """The base URL a wire's SDK takes, on the stand-in model (with a fault when named)."""
    prefix = root + (f"/fault/{fault}" if fault else "")
    return prefix + ("/v1" if wire in ("chat", "responses") else "")


def command(*argv: str, suite: Suite = SUITE) -> int:
    """`toolcall probe ...` run in process on a suite loaded once (loading it is most of the
    time of a short probe)."""
    args = parser().parse_args(["probe", *argv])
    return COMMANDS["probe"].run(suite, args)


def probe(tmp_path: Path, url: str, wire: str, *extra: str) -> tuple[int, dict[str, Any]]:
    out = tmp_path / f"probe-{len(list(tmp_path.iterdir()))}.json"
    code = command(
        "--base-url",
        url,
        "--model",
        "qwen3-max",
        "--wire",
        wire,
        "--client",
        "toolcall",
        "--json",
        str(out),
        *extra,
    )
    document = json.loads(out.read_text()) if out.exists() else {}
    return code, document


def failures(document: dict[str, Any]) -> set[str]:
    return {f["code"] for f in document["findings"] if f["severity"] == "failure"}


@pytest.mark.parametrize("wire", scenarios.WIRES)
def test_a_sound_server_is_sound_on_every_wire(wire: str, tmp_path: Path) -> None:
    with model_server() as (root, _seen):
        code, document = probe(tmp_path, base(root, wire), wire, *FEW)
    Draft202012Validator(SCHEMA).validate(document)
    assert (code, failures(document)) == (0, set())
    assert (document["wire"], document["model"], document["sound"]) == (wire, "qwen3-max", True)
    assert [s["name"] for s in document["scenarios"]] == [
        "single_call",
        "several_calls",
        "cut_arguments",
    ]
    assert [s["streamed"]["status"] for s in document["scenarios"]] == ["read", "read", "cut"]
    assert document["scenarios"][2]["unstreamed"]["status"] == "cut"
    assert document["clients"][0]["name"] == "toolcall"
    assert document["clients"][0]["failed"] == []


ALL = scenarios.WIRES
#: fault -> (the wires it applies to, the scenario that shows it, the code it must give)
FAULTS: dict[str, tuple[tuple[str, ...], str, set[str]]] = {
    "markup": (ALL, "single_call", {"tool_call_in_text"}),
    "special_tokens": (ALL, "single_call", {"name_special_tokens"}),
    "drop_calls": (ALL, "no_arguments", {"calls_missing"}),
    "length_lie": (ALL, "cut_arguments", {"finish_not_length"}),
    "no_usage": (("chat", "responses", "gemini", "ollama"), "single_call", {"usage_missing"}),
    "drop_brace": (("chat", "responses", "anthropic"), "single_call", {"arguments_not_json"}),
    "no_end": (("chat", "anthropic"), "single_call", {"done_absent"}),
    "stop_lie": (("chat", "anthropic"), "single_call", {"stop_with_tool_calls"}),
}
#: Each fault on chat runs in `make test`; on the other wires in `make check`.
FAULT_CASES = [
    pytest.param(f, w, marks=[] if w == "chat" else [pytest.mark.slow])
    for f, (wires, _s, _c) in FAULTS.items()
    for w in [*wires, *(("responses", "ollama") if f == "no_end" else ())]
]


@pytest.mark.parametrize(("fault", "wire"), FAULT_CASES)
def test_each_fault_is_flagged_on_every_wire_it_applies_to(
    fault: str, wire: str, tmp_path: Path
) -> None:
    _wires, scenario, codes = FAULTS[fault]
    if fault == "no_end" and wire in ("responses", "ollama"):
        codes = {"stream_cut"}  # no end event: the library says the turn was cut
    with model_server() as (root, _seen):
        code, document = probe(tmp_path, base(root, wire, fault), wire, "--scenario", scenario)
        plain, clean = probe(tmp_path, base(root, wire), wire, "--scenario", scenario)
    assert code == 1 and codes <= failures(document), document["findings"]
    assert (plain, failures(clean)) == (0, set())


@pytest.mark.parametrize("wire", ["chat", "responses", "anthropic"])
def test_buffered_arguments_are_said_not_failed(wire: str, tmp_path: Path) -> None:
    with model_server() as (root, _seen):
        code, buffered = probe(
            tmp_path, base(root, wire, "buffered"), wire, "--scenario", "single_call"
        )
        _code, streamed = probe(tmp_path, base(root, wire), wire, "--scenario", "single_call")
    notes = {f["code"]: f["severity"] for f in buffered["findings"]}
    assert code == 0 and notes["arguments_buffered"] == "note"
    assert "arguments_streamed" in {f["code"] for f in streamed["findings"]}


@pytest.mark.parametrize("wire", scenarios.WIRES)
def test_text_only_one_answer_has_is_said(wire: str, tmp_path: Path) -> None:
    with model_server() as (root, _seen):
        code, document = probe(
            tmp_path, base(root, wire, "text_unstreamed"), wire, "--scenario", "single_call"
        )
    found = {f["code"]: f for f in document["findings"]}
    assert code == 0 and found["text_disagrees"]["severity"] == "note"
    assert "only the streamed answer has text" in found["text_disagrees"]["message"]


def test_every_call_on_index_zero_is_the_routes_quirk_not_a_failure(tmp_path: Path) -> None:
    with model_server() as (root, _seen):
        code, document = probe(
            tmp_path, base(root, "chat", "index_zero"), "chat", "--scenario", "several_calls"
        )
    found = {f["code"]: f["severity"] for f in document["findings"]}
    assert code == 0 and found["index_reused"] == "quirk"
    assert document["scenarios"][0]["streamed"]["calls"] == ["get_weather"] * 3


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Qwen/Qwen3-32B", "qwen"),
        ("qwen3:8b", "qwen"),
        ("deepseek-ai/DeepSeek-V3.1", "deepseek"),
        ("accounts/fireworks/models/kimi-k2-instruct", "kimi"),
        ("moonshotai/Kimi-K2-Instruct-0905", "kimi"),
        ("zai-org/GLM-4.6", "glm"),
        ("openai/gpt-oss-120b", "openai"),
        ("gemini-2.5-flash", "gemini"),
        ("meta-llama/Llama-3.3-70B-Instruct", family.OTHER),
    ],
)
def test_the_family_is_guessed_from_the_models_name(name: str, expected: str) -> None:
    assert family.guess(SUITE, name) == expected


def test_every_code_is_listed_once_in_the_shipped_schema() -> None:
    listed = SCHEMA["$defs"]["code"]["enum"]
    assert len(listed) == len(set(listed))
    assert set(listed) == set(judges.CODES)
    assert all(code in SCHEMA["$defs"]["code"]["description"] for code in listed)


def test_the_key_is_sent_in_the_wires_header_and_never_printed_or_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PROBE_TEST_KEY", KEY)
    sent = {}
    for wire in scenarios.WIRES:
        with model_server() as (root, seen):
            code, document = probe(
                tmp_path,
                base(root, wire, "markup"),
                wire,
                "--key-env",
                "PROBE_TEST_KEY",
                "--scenario",
                "single_call",
                "--markdown",
                str(tmp_path / f"{wire}.md"),
                "--save",
                str(tmp_path / "saved"),
            )
        assert code == 1 and document["findings"]
        sent[wire] = {k.lower(): v for k, v in seen[0].items()}
    assert sent["chat"]["authorization"] == f"Bearer {KEY}"
    assert sent["ollama"]["authorization"] == f"Bearer {KEY}"
    assert sent["anthropic"]["x-api-key"] == KEY
    assert sent["gemini"]["x-goog-api-key"] == KEY
    printed = capsys.readouterr()
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(written) == 15  # five reports, five bug reports, five cassettes
    assert all(KEY not in p.read_text() for p in written)
    assert KEY not in printed.out + printed.err


def closed_port() -> int:
    """A port nothing listens on (bound, then let go)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--base-url", "ftp://127.0.0.1/v1"], "must start with http:// or https://"),
        (["--base-url", "http://127.0.0.1:{port}/v1"], "cannot be reached"),
        (["--base-url", "http://127.0.0.1/v1", "--key-env", "PROBE_UNSET_KEY"], "not set"),
        (["--base-url", "http://127.0.0.1/v1", "--scenario", "nope"], "unknown scenario"),
        (["--base-url", "http://127.0.0.1/v1", "--family", "nope"], "not a provider"),
        (["--base-url", "http://127.0.0.1/v1", "--client", "nope"], "unknown"),
        (["--base-url", "http://127.0.0.1/v1", "--repeat", "0"], "must be positive"),
        (["--base-url", "http://127.0.0.1/v1", "--accept"], "--accept needs --route"),
    ],
)
def test_what_cannot_run_is_one_line_and_exit_2(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [a.replace("{port}", str(closed_port())) for a in argv]
    assert command(*argv, "--model", "m", "--scenario", "single_call", "--client", "toolcall") == 2
    err = capsys.readouterr().err.splitlines()
    shown = [line for line in err if line.startswith("toolcall probe:")]
    assert len(shown) == 1 and said in shown[0]
    assert "Traceback" not in "\n".join(err)


@pytest.mark.parametrize("wire", scenarios.WIRES)
def test_an_answer_that_is_not_a_stream_stops_the_probe(
    wire: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with model_server() as (root, _seen):
        code, document = probe(tmp_path, base(root, wire, "not_stream"), wire)
    shown = [line for line in capsys.readouterr().err.splitlines() if "toolcall probe:" in line]
    assert (code, document) == (2, {})
    assert len(shown) == 1 and "not a stream" in shown[0]


def test_every_request_refused_could_not_probe(capsys: pytest.CaptureFixture[str]) -> None:
    with model_server() as (root, _seen):
        code = command(
            "--base-url",
            root + "/nowhere",
            "--model",
            "m",
            "--scenario",
            "text_only",
            "--client",
            "toolcall",
        )
    assert code == 2
    assert "every request was refused (first: text_only: HTTP 404" in capsys.readouterr().err


def test_the_budgets_are_shown_first_and_stop_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with model_server() as (root, seen):
        code, document = probe(tmp_path, base(root, "chat"), "chat", "--budget-requests", "3")
    out = capsys.readouterr().out.splitlines()
    assert code == 0 and len(seen) == 3
    assert "budget 3 requests, 600 s; timeout 60 s" in out[0]
    assert document["stopped"] == "the budget of 3 requests is used up"
    ran = [s["name"] for s in document["scenarios"] if s["not_run"] is None]
    assert ran == ["single_call", "parallel_calls"]
    assert document["scenarios"][1]["unstreamed"]["status"] == "not run"


def test_toolcall_serve_is_sound_on_the_streams_it_serves(tmp_path: Path) -> None:
    """The plain `toolcall serve` answers the scenarios of scenarios.yaml streamed on chat
    completions (an unstreamed request it refuses: a note, not a failure)."""
    with serving.serving(SUITE) as running:
        code, document = probe(
            tmp_path,
            f"{running.base_url}/qwen/v1",
            "chat",
            "--scenario",
            "single_call",
            "--scenario",
            "parallel_calls",
        )
    codes = {f["code"]: f["severity"] for f in document["findings"]}
    assert code == 0 and failures(document) == set()
    assert codes["request_refused"] == "note"
    assert [s["streamed"]["calls"] for s in document["scenarios"]] == [
        ["get_weather"],
        ["get_weather", "get_weather"],
    ]


def test_accept_writes_the_routes_facts_and_cassettes_into_a_checkout(tmp_path: Path) -> None:
    copy_of_the_suite(tmp_path)
    before = (tmp_path / "routes.yaml").read_text()
    with model_server() as (root, _seen):
        code = command(
            "--base-url",
            base(root, "chat"),
            "--model",
            "qwen3-max",
            "--client",
            "toolcall",
            "--scenario",
            "single_call",
            "--route",
            "vllm",
            "--accept",
            suite=load_suite(tmp_path),
        )
    after = (tmp_path / "routes.yaml").read_text()
    cassette = tmp_path / "cassettes" / "qwen" / "routes" / "vllm" / "single_call.yaml"
    assert code == 0 and cassette.is_file()
    assert after != before and "evidence: recorded" in after.split("  vllm:")[1]
    assert load_suite(tmp_path).routes["vllm"].changes_for("qwen", "single_call")


def shown_commands(text: str) -> list[list[str]]:
    """The probe recipe's shell lines, continuations joined."""
    text = text.split("## Probe an endpoint", 1)[-1]  # the manual shows serve earlier too
    block = text.split("--port 8765 &\n", 1)[1].split("```", 1)[0]
    return [shlex.split(line) for line in block.replace("\\\n", " ").splitlines() if line.strip()]


@pytest.mark.parametrize("doc", ["README.md", "docs/HARNESS.md"])
def test_the_documented_probe_of_a_local_server_runs_as_shown(
    doc: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The block after `toolcall serve --port 8765 &`, run from a folder of its own against
    serve on a free port (8765 may be taken by another test)."""
    text = (ROOT / doc).read_text(encoding="utf-8")
    [line] = shown_commands(text)
    assert line[0] == ".venv/bin/toolcall" and line[1] == "probe"
    monkeypatch.chdir(tmp_path)
    with serving.serving(SUITE) as running:
        argv = [a.replace("http://127.0.0.1:8765", running.base_url) for a in line[2:]]
        code = command(*argv, "--client", "toolcall")
    document = json.loads((tmp_path / "reports" / "probe.json").read_text())
    assert code == 0 and document["sound"] is True
    assert [s["name"] for s in document["scenarios"]] == ["single_call", "parallel_calls"]


@pytest.mark.slow
@pytest.mark.parametrize("wire", scenarios.WIRES)
def test_every_scenario_and_every_client_on_a_sound_server(wire: str, tmp_path: Path) -> None:
    """The whole probe: every scenario, every implementation the matrix runs here; a client
    may fail a stream (that is what the report is for), never crash on one."""
    out = tmp_path / "probe.json"
    with model_server() as (root, seen):
        code = command(
            "--base-url",
            base(root, wire),
            "--model",
            "qwen3-max",
            "--wire",
            wire,
            "--json",
            str(out),
            "--markdown",
            str(tmp_path / "probe.md"),
        )
    document = json.loads(out.read_text())
    assert code == 0 and len(seen) == 2 * len(document["scenarios"]) == 26
    ran = [c for c in document["clients"] if c["passed"] or c["failed"]]
    available, _unavailable = matrix.roster(None, [], timeout=60)
    reading = {i.name for i in available if wire in i.wires}
    assert "toolcall" in reading and {c["name"] for c in ran} == reading
    labels = {f["label"] for c in ran for f in c["failed"]}
    assert "crash" not in labels, document["clients"]
    assert "No failure was found." in (tmp_path / "probe.md").read_text()


def test_repeat_asks_each_scenario_again_and_numbers_the_findings(tmp_path: Path) -> None:
    with model_server() as (root, seen):
        code, document = probe(
            tmp_path,
            base(root, "chat", "markup"),
            "chat",
            "--scenario",
            "single_call",
            "--repeat",
            "2",
        )
    markup = [f["repeat"] for f in document["findings"] if f["code"] == "tool_call_in_text"]
    assert code == 1 and len(seen) == 4
    assert sorted(markup) == [1, 1, 2, 2]  # streamed and unstreamed, each time


@pytest.mark.parametrize(
    ("base_url", "wire", "streamed", "url"),
    [
        ("http://h:8000/v1/", "chat", True, "http://h:8000/v1/chat/completions"),
        ("http://h/v1?api-version=1", "responses", True, "http://h/v1/responses?api-version=1"),
        ("http://h", "anthropic", False, "http://h/v1/messages"),
        (
            "http://h",
            "gemini",
            True,
            "http://h/v1beta/models/org%2Fm:streamGenerateContent?alt=sse",
        ),
        ("http://h?x=1", "gemini", False, "http://h/v1beta/models/org%2Fm:generateContent?x=1"),
        ("http://h:11434", "ollama", True, "http://h:11434/api/chat"),
        ("http://h:8000", "chat", False, "http://h:8000/v1/chat/completions"),
        ("http://h/v1", "anthropic", True, "http://h/v1/messages"),
        ("http://h/v1beta", "gemini", False, "http://h/v1beta/models/org%2Fm:generateContent"),
    ],
)
def test_each_wire_is_sent_to_its_own_path(
    base_url: str, wire: str, streamed: bool, url: str
) -> None:
    assert runner.Endpoint(base_url, wire, "org/m").url(streamed=streamed) == url


def test_credentials_in_the_base_url_are_never_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with model_server() as (root, _seen):
        url = base(root, "chat").replace("http://", "http://user:hunter2secret@")
        code, document = probe(tmp_path, url, "chat", "--scenario", "single_call")
    printed = capsys.readouterr()
    assert code == 0 and "hunter2secret" not in printed.out + printed.err + json.dumps(document)


def test_each_difference_from_the_familys_profile_is_the_routes_quirk(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The stand-in's chat stream is no Qwen's: its ids and chunking differ from qwen's profile,
    each said once as a quirk (never a failure); family `other` has no profile to differ from."""
    with model_server() as (root, _seen):
        code, document = probe(tmp_path, base(root, "chat"), "chat", "--scenario", "single_call")
        out = capsys.readouterr().out
        _code, other = probe(
            tmp_path, base(root, "chat"), "chat", "--scenario", "single_call", "--family", "other"
        )
    quirks = [f["message"] for f in document["findings"] if f["code"] == "profile_differs"]
    assert code == 0 and document["family"] == "qwen"
    assert any(q.startswith("quirks.id_pattern: qwen's profile") for q in quirks)
    assert out.count("QUIRK    profile_differs: quirks.") == len(quirks)
    assert other["family"] == "other"
    assert "profile_differs" not in {f["code"] for f in other["findings"]}


def copy_of_the_suite(folder: Path) -> Suite:
    for name in ("providers.yaml", "scenarios.yaml", "routes.yaml"):
        shutil.copy(ROOT / name, folder / name)
    return load_suite(folder)


@pytest.mark.parametrize("wire", ["chat", "gemini"])
def test_save_writes_cassettes_of_a_route_where_record_writes_without_accept(
    wire: str, tmp_path: Path
) -> None:
    suite = copy_of_the_suite(tmp_path)
    with model_server() as (root, _seen):
        code = command(
            "--base-url",
            base(root, wire),
            "--model",
            "qwen3-max",
            "--wire",
            wire,
            "--client",
            "toolcall",
            "--scenario",
            "single_call",
            "--save",
            suite=suite,
        )
    folder = tmp_path / "reports" / "pending" / "cassettes" / "qwen" / "routes" / "probe"
    path = folder / ("" if wire == "chat" else f"wires/{wire}") / "single_call.yaml"
    cassette = cassettes.load(path)
    body = cassettes.response_body(cassette)
    assert code == 0 and toolcall.assemble(body, wire=wire).tool_calls[0].function.name == (
        "get_weather"
    )
    assert cassette["metadata"]["provenance"]["route"] == "probe"
    assert not (tmp_path / "cassettes").exists()


def test_an_external_program_is_judged_on_the_streams_too(tmp_path: Path) -> None:
    program = f"{sys.executable} {ROOT / 'examples' / 'external_assembler.py'}"
    with model_server() as (root, _seen):
        code, document = probe(
            tmp_path,
            base(root, "chat"),
            "chat",
            "--scenario",
            "single_call",
            "--scenario",
            "several_calls",
            "--external",
            f"example={program}",
        )
    judged = {c["name"]: c for c in document["clients"]}
    assert code == 0 and set(judged) == {"toolcall", "example"}
    assert judged["example"]["passed"] + len(judged["example"]["failed"]) == 2


def test_an_external_program_that_cannot_be_named_stops_before_any_request(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with model_server() as (root, seen):
        code = command(
            "--base-url", base(root, "chat"), "--model", "m", "--external", "no-command-given"
        )
    assert code == 2 and seen == []
    assert "toolcall probe: --external" in capsys.readouterr().err


def test_the_bug_report_gives_the_request_the_bytes_and_the_usual_cause(tmp_path: Path) -> None:
    report = tmp_path / "bug.md"
    with model_server() as (root, _seen):
        code, _document = probe(
            tmp_path,
            base(root, "chat", "markup"),
            "chat",
            "--scenario",
            "single_call",
            "--markdown",
            str(report),
        )
    text = report.read_text()
    section = text.split("## `tool_call_in_text`", 1)[1]
    assert code == 1
    assert "--tool-call-parser" in section.split("Usually caused by:", 1)[1].split("\n")[0]
    assert '"name": "get_weather"' in section.split("```json", 1)[1].split("```", 1)[0]
    assert "<tool_call>" in section.split("The bytes that show it:", 1)[1]
    assert "POST http://127.0.0.1:" in section
