"""Framing: a body's bytes, split anywhere, cut into its events.

The first step of the flow (bytes -> framing -> wire reader -> calls -> turn -> events). One
decoder per framing: `sse` (Server-Sent Events), `ndjson` (Ollama's lines) and `json_array`
(Gemini without `alt=sse`), the last two on `json_documents`' shared interface. An event of
64 KiB or more is handed over as its bytes (`long_events`), and a body that turns out not to be
a stream at all is read as an HTTP error answer (`error_answer`). Each framing also gives a
whole body's events with their byte spans (`spans`), for the harness. Nothing here knows a
wire: the modules import only the library's errors.
"""
