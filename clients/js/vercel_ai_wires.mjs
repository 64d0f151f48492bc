// The Vercel AI SDK on the other wires: `streamText` with tools through @ai-sdk/openai's
// Responses model, @ai-sdk/anthropic or @ai-sdk/google, each pointed at a local server that
// answers the wire's own path with a recorded body. Reads one job as JSON on standard input
// ({base_url, headers, wire, request}) and prints {"tool_calls": [...]} with each call's input as JSON
// text, or {"error": "..."} when the SDK reported the stream or a call as bad. Tools have no
// `execute`, so the SDK returns the calls instead of running them.
//
// Gemini sends no call id before gemini 3, and @ai-sdk/google then makes one up with its
// `generateId` option; the ids it makes here are marked and reported as the empty id the wire
// sent, so the column is judged on what came off the wire, not on a random id.
import { streamText, jsonSchema, tool } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { readFileSync } from "node:fs";

const job = JSON.parse(readFileSync(0, "utf8"));
const MADE_UP = "toolcall-made-up-id-";
let madeUp = 0;
const madeUpId = () => `${MADE_UP}${madeUp++}`;
const wireId = (id) => (id == null || id.startsWith(MADE_UP) ? "" : id);
const options = { baseURL: job.base_url, apiKey: "anything", headers: job.headers };
const modelId = job.request.model ?? "model";
const models = {
  responses: () => createOpenAI(options).responses(modelId),
  anthropic: () => createAnthropic(options)(modelId),
  gemini: () => createGoogleGenerativeAI({ ...options, generateId: madeUpId })(modelId),
};
if (!(job.wire in models)) throw new Error(`no AI SDK provider for the ${job.wire} wire`);
const tools = {};
for (const t of job.request.tools ?? []) {
  tools[t.function.name] = tool({
    description: t.function.description ?? "",
    inputSchema: jsonSchema(t.function.parameters ?? { type: "object" }),
  });
}
const errors = [];
const result = streamText({
  model: models[job.wire](),
  messages: job.request.messages ?? [{ role: "user", content: "" }],
  tools,
  maxRetries: 0,
  onError: ({ error }) => errors.push(String(error?.message ?? error)),
});
const calls = await result.toolCalls;
const finish = await result.finishReason;
const out = {
  tool_calls: calls.map((c) => ({
    id: wireId(c.toolCallId),
    type: "function",
    function: { name: c.toolName ?? "", arguments: JSON.stringify(c.input ?? null) },
  })),
};
const invalid = calls.filter((c) => c.invalid);
if (invalid.length) errors.push(`invalid tool input: ${invalid.map((c) => c.toolName).join(", ")}`);
if (finish === "length") errors.push("finish reason length");
if (errors.length) out.error = errors.join("; ");
process.stdout.write(JSON.stringify(out) + "\n");
