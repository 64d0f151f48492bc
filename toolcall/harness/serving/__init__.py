"""`toolcall serve`: a local server that answers every wire from the cassettes.

The package keeps one job a module; this file only gathers the names other modules use.
"""

from __future__ import annotations

from .server import (
    CAPTURE_PATH,
    CAPTURED,
    CAPTURED_BODY_BYTES,
    CAPTURED_DEPTH,
    FAULT_SEGMENT,
    FAULTS,
    WIRE_PATHS,
    BadRoute,
    Catalogue,
    NoCassette,
    Received,
    Route,
    Running,
    WirePath,
    route,
    serving,
    start,
    stop,
)

__all__ = [
    "CAPTURED",
    "CAPTURED_BODY_BYTES",
    "CAPTURED_DEPTH",
    "CAPTURE_PATH",
    "FAULTS",
    "FAULT_SEGMENT",
    "WIRE_PATHS",
    "BadRoute",
    "Catalogue",
    "NoCassette",
    "Received",
    "Route",
    "Running",
    "WirePath",
    "route",
    "serving",
    "start",
    "stop",
]
