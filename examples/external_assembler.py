#!/usr/bin/env python3
"""A complete external implementation of the toolcall subprocess protocol, in 14 lines of code.

It reads one chunk (a decoded `data:` payload) per line on standard input and prints the
assembled calls as one JSON document. It is deliberately naive, the way many hand-written
clients are: it keys calls by `index` alone (a missing index counts as 0), appends every name
and arguments fragment, and never looks at `finish_reason`. `toolcall matrix` shows what that
costs: Gemini's parallel calls merged into one, and cut-off arguments passed on as if whole.

    toolcall matrix --external "naive=python3 examples/external_assembler.py"
"""

import json
import sys

calls = {}
for line in sys.stdin:
    chunk = json.loads(line)
    for choice in chunk.get("choices") or []:
        for delta in (choice.get("delta") or {}).get("tool_calls") or []:
            empty = {"id": "", "type": "function", "function": {"name": "", "arguments": ""}}
            call = calls.setdefault(delta.get("index") or 0, empty)
            call["id"] = call["id"] or delta.get("id") or ""
            function = delta.get("function") or {}
            call["function"]["name"] += function.get("name") or ""
            call["function"]["arguments"] += function.get("arguments") or ""

json.dump({"tool_calls": [calls[index] for index in sorted(calls)]}, sys.stdout)
