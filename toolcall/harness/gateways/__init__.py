"""Real gateways in front of `toolcall serve`: what each does to requests, streams and faults.

A stream's shape is set by its route as much as by its vendor, so the suite runs the gateways
people put in front of these providers (LiteLLM proxy, Portkey, openai-forward, or any by URL) on
127.0.0.1, sends every scenario, published recording and fault through each, and judges the
result against the same stream served directly. `install` makes each gateway's environment,
`process` starts and always stops it, `known` says how each is configured and addressed, `judge`
compares (no I/O), `clients` runs the HTTP clients both ways, `run` drives one gateway over every
case, `report` makes the table and the docs section, `workarounds` the `fix:` lines, and
`command` is `toolcall gateways` (`make gateways`).
"""
