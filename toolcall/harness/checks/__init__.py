"""Every check the suite makes, on every wire, gathered into one readable outcome per cassette
or recording: a provider x scenario cell (`cells`), a cassette recorded through a route
(`cells`), a published recording (`evidence`), a cut-off variant (`cuts`), each read the same
way (`turns`) and reported the same way (`outcome`), a failure with what to edit or run
(`where_to_fix`); two turns of one request on two wires are compared by `cross_wire`.
"""

from __future__ import annotations

from .cells import check_cell, check_route_cell, route_cassettes
from .cuts import check_cut
from .evidence import check_recording, profile_findings
from .outcome import Finding, Outcome, differences
from .turns import (
    check_turn,
    conformance_document,
    error_kind,
    expectation_differences,
    expectation_of,
    splits,
)

__all__ = [
    "Finding",
    "Outcome",
    "check_cell",
    "check_cut",
    "check_recording",
    "check_route_cell",
    "check_turn",
    "conformance_document",
    "differences",
    "error_kind",
    "expectation_differences",
    "expectation_of",
    "profile_findings",
    "route_cassettes",
    "splits",
]
