#!/usr/bin/env python3
"""A complete external implementation of the toolcall implementation protocol (version 2).

It answers the handshake, then assembles each stream the harness sends (one JSON message per
line) and answers with the calls. It is deliberately naive, the way many hand-written clients
are: it keys calls by `index` alone (a missing index counts as 0), appends every name and
arguments fragment, and never looks at `finish_reason`. `toolcall matrix` shows what that costs:
Gemini's parallel calls merged into one, names doubled on Vertex, cut-off arguments passed on.

    toolcall matrix --external "naive=python3 examples/external_assembler.py"
"""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["cmd"] == "start":
        me = {"name": "naive", "version": "0.2", "language": "python"}
        answer = {"protocol": 2, "implementation": me}
    elif message["cmd"] == "stop":
        break
    else:
        calls = {}
        empty = {"name": "", "arguments": ""}
        for chunk in message["chunks"]:
            for choice in chunk.get("choices") or []:
                for delta in (choice.get("delta") or {}).get("tool_calls") or []:
                    new = {"id": "", "type": "function", "function": dict(empty)}
                    call = calls.setdefault(delta.get("index") or 0, new)
                    call["id"] = call["id"] or delta.get("id") or ""
                    function = delta.get("function") or {}
                    call["function"]["name"] += function.get("name") or ""
                    call["function"]["arguments"] += function.get("arguments") or ""
        answer = {"seq": message["seq"], "tool_calls": [calls[i] for i in sorted(calls)]}
    print(json.dumps(answer), flush=True)
