#!/usr/bin/env python3
"""A complete external implementation of the toolcall implementation protocol (version 3).

It answers the handshake naming the five wires it reads, then assembles each stream the harness
sends (one JSON message per line) from its decoded `events` and answers with the calls. It is
deliberately naive, the way many hand-written clients are: on chat it keys calls by `index`
alone (a missing index counts as 0) and appends every name and arguments fragment; on the other
wires it appends each call's argument fragments where they are announced and takes whole calls as
they come; and it never looks at how a turn ended (`finish_reason`, Responses' `incomplete`,
Anthropic's `stop_reason`, Gemini's `finishReason`, Ollama's `done_reason`). `toolcall matrix`
shows, wire by wire, what that costs.

    toolcall matrix --external "naive=python3 examples/external_assembler.py"
"""

import json
import sys


def call(call_id="", name="", arguments=""):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def chat(events):
    calls = {}
    for chunk in events:
        for choice in chunk.get("choices") or []:
            for delta in (choice.get("delta") or {}).get("tool_calls") or []:
                found = calls.setdefault(delta.get("index") or 0, call())
                found["id"] = found["id"] or delta.get("id") or ""
                function = delta.get("function") or {}
                found["function"]["name"] += function.get("name") or ""
                found["function"]["arguments"] += function.get("arguments") or ""
    return [calls[i] for i in sorted(calls)]


def responses(events):
    calls = {}
    for event in events:
        item, kind = event.get("item") or {}, event.get("type")
        if kind == "response.output_item.added" and item.get("type") == "function_call":
            calls[event["output_index"]] = call(item.get("call_id", ""), item.get("name", ""))
        elif kind == "response.function_call_arguments.delta":
            calls[event["output_index"]]["function"]["arguments"] += event.get("delta", "")
    return [calls[i] for i in sorted(calls)]


def anthropic(events):
    calls = {}
    for event in events:
        block = event.get("content_block") or {}
        delta = event.get("delta") or {}
        if event.get("type") == "content_block_start" and block.get("type") == "tool_use":
            calls[event["index"]] = call(block.get("id", ""), block.get("name", ""))
        elif delta.get("type") == "input_json_delta":
            calls[event["index"]]["function"]["arguments"] += delta.get("partial_json", "")
    return [calls[i] for i in sorted(calls)]


def gemini(events):
    found = []
    for event in events:
        for candidate in event.get("candidates") or []:
            for part in (candidate.get("content") or {}).get("parts") or []:
                function = part.get("functionCall")
                if function:
                    arguments = json.dumps(function.get("args") or {})
                    found.append(call(function.get("id", ""), function.get("name", ""), arguments))
    return found


def ollama(events):
    found = []
    for event in events:
        for tool_call in (event.get("message") or {}).get("tool_calls") or []:
            function = tool_call.get("function") or {}
            arguments = json.dumps(function.get("arguments") or {})
            found.append(call(tool_call.get("id", ""), function.get("name", ""), arguments))
    return found


READERS = {
    "chat": chat,
    "responses": responses,
    "anthropic": anthropic,
    "gemini": gemini,
    "ollama": ollama,
}

for line in sys.stdin:
    message = json.loads(line)
    if message["cmd"] == "start":
        me = {"name": "naive", "version": "0.3", "language": "python"}
        answer = {"protocol": 3, "implementation": me, "wires": list(READERS)}
    elif message["cmd"] == "stop":
        break
    else:
        calls = READERS[message["wire"]](message["events"])
        answer = {"seq": message["seq"], "tool_calls": calls}
    print(json.dumps(answer), flush=True)
