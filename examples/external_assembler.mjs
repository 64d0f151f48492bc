// A complete external implementation of the toolcall implementation protocol (version 3) for
// Node, with no dependencies: a small assembler of streamed tool calls for chat completions,
// OpenAI Responses, Anthropic Messages and Ollama, written the way a careful client is.
//
// It reads one message per line (`readline` has no line length limit; the largest message of the
// suite is megabytes long), writes protocol lines only on standard output and logs on standard
// error, naming the case (the message's `case`), and reports a turn cut by the token limit as an
// error instead of handing over half an argument object.
//
//     toolcall matrix --external "js=node examples/external_assembler.mjs" --implementation toolcall

import { createInterface } from "node:readline";

class Calls {
  constructor() {
    this.order = [];
    this.byKey = new Map();
  }

  open(key, id, name) {
    const call = { id, type: "function", function: { name, arguments: "" } };
    this.order.push(call);
    this.byKey.set(key, call);
    return call;
  }
}

// A delta's call is found by its id when the id is known (Vertex repeats the whole id on every
// chunk, with an index that disagrees), else by its index; a delta without either continues the
// last call (Gemini's compatible endpoint sends no index). A new id opens a call. A name repeated
// on every chunk is taken once, not appended.
function chat(events) {
  const calls = new Calls();
  let last = null;
  let cut = "";
  for (const chunk of events) {
    for (const choice of chunk.choices ?? []) {
      for (const delta of choice.delta?.tool_calls ?? []) {
        const id = delta.id ?? "";
        const indexed = typeof delta.index === "number";
        let call = calls.byKey.get(`id ${id}`);
        if (!call && id === "" && indexed) call = calls.byKey.get(`index ${delta.index}`);
        else if (!call && id === "") call = last;
        call ??= calls.open(`id ${id}`, id, "");
        if (indexed) calls.byKey.set(`index ${delta.index}`, call);
        call.function.name ||= delta.function?.name ?? "";
        call.function.arguments += delta.function?.arguments ?? "";
        last = call;
      }
      if (choice.finish_reason === "length") cut = "finish_reason length: the turn was cut off";
    }
  }
  return [calls.order, cut];
}

// A call opens with its function_call item; the `done` event, when sent, has the whole
// arguments (LM Studio sends only that).
function responses(events) {
  const calls = new Calls();
  let cut = "";
  for (const event of events) {
    const call = calls.byKey.get(event.output_index);
    if (event.type === "response.output_item.added" && event.item?.type === "function_call") {
      calls.open(event.output_index, event.item.call_id ?? "", event.item.name ?? "");
    } else if (event.type === "response.function_call_arguments.delta" && call) {
      call.function.arguments += event.delta ?? "";
    } else if (event.type === "response.function_call_arguments.done" && call) {
      call.function.arguments = event.arguments ?? call.function.arguments;
    } else if (event.type === "response.incomplete") {
      cut = "response incomplete: the turn was cut off";
    }
  }
  return [calls.order, cut];
}

// A tool_use block is a call (a server tool's block is not one for the client); its input
// arrives as input_json_delta fragments, and a call with none has `{}`.
function anthropic(events) {
  const calls = new Calls();
  let cut = "";
  for (const event of events) {
    const block = event.content_block ?? {};
    const delta = event.delta ?? {};
    const call = calls.byKey.get(event.index);
    if (event.type === "content_block_start" && block.type === "tool_use") {
      calls.open(event.index, block.id ?? "", block.name ?? "");
    } else if (delta.type === "input_json_delta" && call) {
      call.function.arguments += delta.partial_json ?? "";
    } else if (event.type === "message_delta" && delta.stop_reason === "max_tokens") {
      cut = "stop_reason max_tokens: the turn was cut off";
    }
  }
  for (const call of calls.order) call.function.arguments ||= "{}";
  return [calls.order, cut];
}

// Each call comes whole, its arguments an object written back as JSON text.
function ollama(events) {
  const calls = [];
  let cut = "";
  for (const event of events) {
    for (const each of event.message?.tool_calls ?? []) {
      const fn = each.function ?? {};
      const args = JSON.stringify(fn.arguments ?? {});
      calls.push({ id: each.id ?? "", type: "function", function: { name: fn.name ?? "", arguments: args } });
    }
    if (event.done_reason === "length") cut = "done_reason length: the turn was cut off";
  }
  return [calls, cut];
}

const READERS = { chat, responses, anthropic, ollama };

function answer(message) {
  if (message.cmd === "start") {
    const me = { name: "assemble-js", version: "0.1", language: "javascript" };
    return { protocol: 3, implementation: me, wires: Object.keys(READERS) };
  }
  const [calls, cut] = READERS[message.wire](message.events ?? []); // null: a body that does not decode
  console.error(`assemble-js: ${message.case ?? ""}: ${calls.length} call(s)`);
  return cut ? { seq: message.seq, tool_calls: calls, error: cut } : { seq: message.seq, tool_calls: calls };
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  const message = JSON.parse(line);
  if (message.cmd === "stop") break;
  process.stdout.write(JSON.stringify(answer(message)) + "\n");
}
