"""`toolcall probe` against `toolcall serve`'s stream faults (`serving.faults`): on every wire a
fault can exist on, the probe's check for it flags it, and the same server's plain answer passes
the same scenario. The faults are asked for by the model's name (`fault:NAME`), as a probe of a
real server would send a model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolcall.harness import serving
from toolcall.harness.cli import COMMANDS, parser
from toolcall.harness.serving.faults import BY_NAME
from toolcall.harness.suite.profiles import load_suite

ROOT = Path(__file__).resolve().parents[3]
SUITE = load_suite(ROOT)

#: fault -> (the scenario that shows it, the codes the probe must give, whether it fails the run)
CHECKS: dict[str, tuple[str, set[str], bool]] = {
    "markup-in-content": ("single_call", {"tool_call_in_text"}, True),
    "special-token-in-name": ("single_call", {"name_special_tokens"}, True),
    "zero-arg-call-dropped": ("no_arguments", {"calls_missing"}, True),
    "arguments-buffered": ("single_call", {"arguments_buffered"}, False),
    "all-calls-index-0": ("several_calls", {"index_reused"}, False),
    "arguments-resent-whole": ("single_call", {"arguments_not_json"}, True),
    "arguments-cumulative": ("single_call", {"arguments_resent"}, False),
    "name-repeated-every-chunk": ("single_call", {"name_repeated"}, False),
    "length-says-tool_calls": ("cut_arguments", {"finish_not_length"}, True),
    "stop-with-calls": ("single_call", {"stop_with_tool_calls"}, True),
    "anthropic-input-missing-opening": ("single_call", {"arguments_not_json"}, True),
    "stream-disagrees-with-unstreamed": ("single_call", {"text_disagrees"}, False),
}
#: Where a fault shows otherwise on one wire: Responses repeats the arguments whole in
#: `function_call_arguments.done`, which the fragments then contradict.
ON_WIRE: dict[tuple[str, str], tuple[set[str], bool]] = {
    ("arguments-resent-whole", "responses"): ({"arguments_disagree"}, True),
    ("arguments-cumulative", "responses"): ({"arguments_disagree"}, True),
    # Anthropic's reader refuses a block that starts again: data lost, a failure
    ("all-calls-index-0", "anthropic"): ({"index_reused", "stream_unreadable"}, True),
}


def test_every_fault_of_serve_has_a_check() -> None:
    assert set(CHECKS) == set(BY_NAME) - {"plain"}


def base(url: str, wire: str) -> str:
    return url + ("/v1" if wire in ("chat", "responses") else "")


def probe(
    tmp_path: Path, url: str, wire: str, model: str, scenario: str
) -> tuple[int, dict[str, Any]]:
    out = tmp_path / f"{model.replace(':', '-')}-{wire}.json"
    args = parser().parse_args(
        [
            "probe",
            "--base-url",
            base(url, wire),
            "--model",
            model,
            "--wire",
            wire,
            "--scenario",
            scenario,
            "--client",
            "toolcall",
            "--json",
            str(out),
        ]
    )
    code = COMMANDS["probe"].run(SUITE, args)
    return code, json.loads(out.read_text()) if out.exists() else {}


CASES = [(name, wire) for name in CHECKS for wire in BY_NAME[name].transforms]


@pytest.mark.parametrize(("fault", "wire"), CASES)
def test_each_fault_is_flagged_and_the_plain_answer_passes(
    fault: str, wire: str, tmp_path: Path
) -> None:
    scenario, codes, fails = CHECKS[fault]
    codes, fails = ON_WIRE.get((fault, wire), (codes, fails))
    with serving.serving(SUITE) as running:
        code, found = probe(tmp_path, running.base_url, wire, f"fault:{fault}", scenario)
        plain, clean = probe(tmp_path, running.base_url, wire, "fault:plain", scenario)
    seen = {f["code"] for f in found["findings"]}
    assert codes <= seen, found["findings"]
    assert code == (1 if fails else 0)
    assert plain == 0 and not codes & {f["code"] for f in clean["findings"]}


@pytest.mark.parametrize("wire", ["chat", "responses", "anthropic", "gemini", "ollama"])
def test_the_plain_server_is_sound_on_every_wire(wire: str, tmp_path: Path) -> None:
    """Every scenario, streamed and unstreamed, against serve's plain answer: no failure, no
    quirk, and no request refused: Gemini's unstreamed requests are answered at
    `:generateContent`."""
    out = tmp_path / "plain.json"
    with serving.serving(SUITE) as running:
        args = parser().parse_args(
            [
                "probe",
                "--base-url",
                base(running.base_url, wire),
                "--model",
                "fault:plain",
                "--wire",
                wire,
                "--client",
                "toolcall",
                "--json",
                str(out),
            ]
        )
        code = COMMANDS["probe"].run(SUITE, args)
    document = json.loads(out.read_text())
    said = {(f["code"], f["severity"]) for f in document["findings"]}
    assert code == 0 and document["sound"] is True
    assert {severity for _code, severity in said} <= {"note"}
    assert not [f for f in document["findings"] if f["code"] == "request_refused"]
