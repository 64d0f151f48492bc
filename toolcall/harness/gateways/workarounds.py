"""What to do about each thing a gateway broke: the `fix:` line under a failure, as conformance
prints one under a failing cell. Conformance's line says what to edit in the suite
(`checks.where_to_fix`); this one what an application or operator can do around a gateway it
does not own, so the two share nothing but the word `fix:`.

A fix names what the application or the operator can change today (a read timeout, a check of
`finish_reason`, where to take usage from), and, from the same run, the gateways that pass the
same stream, so the reader sees that another route exists rather than being told one might.
"""

from __future__ import annotations

from collections.abc import Mapping

#: What a client does on its own with a stream cut before its finish, and how to notice it.
CUT_CHECK = (
    "treat a stream that ends without `finish_reason` as cut (toolcall raises TruncatedError; "
    "the openai SDK's `get_final_completion()` returns what it has)"
)


def fix(
    kind: str,
    gateway: str,
    *,
    provider: str,
    fault: str | None = None,
    detail: str = "",
) -> str:
    """The fix for one problem of `kind` (a mark: HANG, EMPTY, HIDDEN, 200, ERROR, TURN, REQ,
    CLIENT, USAGE) on a stream of `provider` through `gateway`; `detail` is what the problem
    names (the request fields dropped, the client). The report adds which gateways of the same
    run pass the same streams (`elsewhere`)."""
    if kind == "HANG":
        return (
            "set a read timeout in the client (openai SDK: `timeout=httpx.Timeout(600, read=30)`;"
            f" openai-node: `timeout`): {gateway} keeps the connection open after upstream broke"
        )
    if kind == "ERROR" and detail.startswith("empty 200"):
        return (
            f"treat an empty 200 as an error in the client: {gateway} answers this {provider} "
            "stream with nothing"
        )
    if kind == "EMPTY":
        return (
            f"treat an empty 200 as an error in the client: {gateway} answers an upstream "
            f"{fault or 'failure'} with a clean, empty answer"
        )
    if kind == "200":
        return (
            f"check a 200's body for an error object: {gateway} answers an upstream {fault} "
            "with status 200"
        )
    if kind == "HIDDEN":
        return (
            f"the client cannot tell: {gateway} finishes a turn upstream never finished; route "
            f"{provider} around it"
        )
    if kind == "CLIENT" and fault:
        return f"{CUT_CHECK}: {gateway} ends the stream cleanly after upstream broke"
    if kind == "CLIENT":
        return (
            f"{detail or 'the client'} reads this stream wrong only through {gateway}: assemble "
            f"with toolcall, which reads it right, or route {provider} around {gateway}"
        )
    if kind == "REQ":
        return (
            f"{gateway} never forwards {detail} to {provider}, and what the real API answers "
            f"depends on it: send such requests to {provider} directly"
        )
    if kind == "USAGE":
        return (
            f"bill from {provider}'s own counts (its console or a direct call), not from the usage "
            f"{gateway} hands on"
        )
    if kind == "TURN":
        return f"{gateway} changes the turn the application acts on: route {provider} around it"
    return f"{gateway} does not pass this stream: route {provider} around it"


def elsewhere(passing: Mapping[str, int], failed: int) -> str:
    """`the same streams pass through portkey (16 of 16), openai-forward (15 of 16)`, from the
    gateways of the run that pass each of the `failed` streams under one fix."""
    if not passing:
        return ""
    listed = ", ".join(f"{name} ({n} of {failed})" for name, n in passing.items())
    return f"the same streams pass through {listed}"
