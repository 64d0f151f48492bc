"""The check of one cut-off variant (`streams.cut`), on any wire: the cut must be reported.

A variant is a real stream cut after half its argument events and closed with its wire's own
ending for a cut, so the only right answer is `TruncatedError`, from the whole body and from
every re-split of it; a turn, or another error, is a finding. Its row is the provider's (with
`@wire` on another wire than chat), its column `long_arguments_truncated` on chat and the
recording's name with `_truncated` elsewhere.
"""

from __future__ import annotations

from toolcall import ToolCallError, TruncatedError

from ..reading.streams import Cut
from ..suite import recordings
from ..suite.profiles import Suite
from .event_check import assemble_with_events
from .outcome import Finding, Outcome
from .turns import splits

#: What a cut-off variant must give.
REPORTED = "TruncatedError (the cut reported)"


def check_cut(suite: Suite, cut: Cut) -> Outcome:
    """Every split of the variant must raise `TruncatedError`."""
    offer = recordings.offer_of(suite, cut.recording) if cut.recording is not None else None
    provider = offer.provider if offer is not None else cut.provider
    outcome = Outcome(provider, cut.scenario, "pass", note=f"cut from {cut.source}", wire=cut.wire)
    for label, pieces in splits(cut.body, seed=f"{cut.wire}/{cut.scenario}"):
        try:
            turn, _problems = assemble_with_events(pieces)
        except TruncatedError:
            continue
        except ToolCallError as exc:
            observed = f"{type(exc).__name__}: {exc}"
        else:
            calls = len(turn.tool_calls)
            observed = f"a turn of {calls} call(s), finish {turn.finish_reason!r}: the cut passed"
        outcome.findings.append(Finding("cut", f"split[{label}]", REPORTED, observed))
    if outcome.findings:
        outcome.status = "fail"
        outcome.fix = f"a library bug: the cut-off stream (cut from {cut.source}) must be reported"
    return outcome
