"""`toolcall probe`: the scenarios sent to a live endpoint, and what its tool-call handling does
judged, reported and, on request, kept as cassettes of a route.

One module per job: `scenarios` (what is asked, on each wire, built by the harness's one request
translation), `family` (whose model it is), `runner` (HTTP with budgets, timeouts and progress),
`answers` (an unstreamed answer read on each wire), `judges` (the checks and their stable codes),
`clients` (the captured streams through every implementation the matrix runs here), `report`
(terminal, Markdown, JSON) and `keep` (cassettes and routes.yaml).
"""
