// The implementation protocol (toolcall/schemas/protocol.schema.json, version 3) for the
// JavaScript clients: one long-lived process per column, one JSON message per line. `run` answers
// the handshake (as an HTTP client: every `assemble` says where its stream is served), hands each
// stream to `assemble`, and writes its answer. An error `assemble` did not expect ends the
// process with its name and message as the last line of standard error, which the harness
// reports as the crash; the next stream starts the program afresh.
import { createInterface } from "node:readline";
import { readFileSync } from "node:fs";

const PROTOCOL = 3;

// "openai 6.30.1, ai 6.0.325": the versions installed beside this file, pinned by the lockfile.
function versions(packages) {
  return packages
    .map((name) => {
      const manifest = new URL(`./node_modules/${name}/package.json`, import.meta.url);
      return `${name} ${JSON.parse(readFileSync(manifest, "utf8")).version}`;
    })
    .join(", ");
}

export async function run({ name, packages, wires, assemble }) {
  const write = (message) => process.stdout.write(JSON.stringify(message) + "\n");
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    if (!line.trim()) continue;
    const message = JSON.parse(line);
    if (message.cmd === "start") {
      const version = `${versions(packages)} on Node ${process.version}`;
      const implementation = { name, version, language: "javascript" };
      write({ protocol: PROTOCOL, implementation, wires, http_client: true });
    } else if (message.cmd === "assemble") {
      let answer;
      try {
        answer = await assemble(message);
      } catch (error) {
        process.stderr.write(`${error?.name ?? "Error"}: ${error?.message ?? error}\n`);
        process.exit(1);
      }
      write({ seq: message.seq, ...answer });
    } else if (message.cmd === "stop") {
      break;
    }
  }
}

// The request as the client sends it: streamed, with a model.
export function streamed(request) {
  return { ...request, stream: true, model: request.model || "model" };
}

// The calls as the protocol's answer carries them, with each call's input as JSON text.
export function toolCalls(calls, id = (c) => c.toolCallId ?? "") {
  return calls.map((c) => ({
    id: id(c),
    type: "function",
    function: { name: c.toolName ?? "", arguments: JSON.stringify(c.input ?? null) },
  }));
}
