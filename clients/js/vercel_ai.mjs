// The Vercel AI SDK (`ai` + `@ai-sdk/openai-compatible`), `streamText` with tools, pointed at
// `toolcall serve`. Reads one job as JSON on standard input ({base_url, headers, request}) and
// prints {"tool_calls": [...]} with each call's input as JSON text, or {"error": "..."} when the
// SDK reported the stream or a call as bad (an invalid tool input, a `length` finish, a stream
// error). Tools have no `execute`, so the SDK returns the calls instead of running them.
import { streamText, jsonSchema, tool } from "ai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { readFileSync } from "node:fs";

const job = JSON.parse(readFileSync(0, "utf8"));
const provider = createOpenAICompatible({
  name: "toolcall",
  baseURL: job.base_url,
  apiKey: "anything",
  headers: job.headers,
});
const tools = {};
for (const t of job.request.tools ?? []) {
  tools[t.function.name] = tool({
    description: t.function.description ?? "",
    inputSchema: jsonSchema(t.function.parameters ?? { type: "object" }),
  });
}
const errors = [];
const result = streamText({
  model: provider(job.request.model ?? "model"),
  messages: job.request.messages ?? [{ role: "user", content: "" }],
  tools,
  maxRetries: 0,
  allowSystemInMessages: true,
  onError: ({ error }) => errors.push(String(error?.message ?? error)),
});
const calls = await result.toolCalls;
const finish = await result.finishReason;
const out = {
  tool_calls: calls.map((c) => ({
    id: c.toolCallId ?? "",
    type: "function",
    function: { name: c.toolName ?? "", arguments: JSON.stringify(c.input ?? null) },
  })),
};
const invalid = calls.filter((c) => c.invalid);
if (invalid.length) errors.push(`invalid tool input: ${invalid.map((c) => c.toolName).join(", ")}`);
if (finish === "length") errors.push("finish reason length");
if (errors.length) out.error = errors.join("; ");
process.stdout.write(JSON.stringify(out) + "\n");
