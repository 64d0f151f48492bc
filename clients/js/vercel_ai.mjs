// The Vercel AI SDK, `streamText` with tools, as an implementation-protocol program
// (protocol.mjs) for the one wire named on its command line: chat completions through
// @ai-sdk/openai-compatible, Responses through @ai-sdk/openai, Anthropic Messages through
// @ai-sdk/anthropic, Gemini through @ai-sdk/google. Each stream is fetched from where the harness
// serves it; the answer holds each call's input as JSON text, or {"error": ...} when the SDK
// reported the stream or a call as bad (an invalid tool input, a `length` finish, a stream
// error). Tools have no `execute`, so the SDK returns the calls instead of running them.
//
// Gemini sends no call id before gemini 3, and @ai-sdk/google then makes one up with its
// `generateId` option; the ids it makes here are marked and answered as the empty id the wire
// sent, so the column is judged on what came off the wire, not on a random id.
import { streamText, jsonSchema, tool } from "ai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { createOpenAI } from "@ai-sdk/openai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { run, streamed, toolCalls } from "./protocol.mjs";

// Standard output carries protocol lines only. The SDK logs its warnings (a request setting the
// provider ignores, such as a forced tool choice on some models) with console.info/warn, which
// Node writes to standard output: they go to standard error instead, where a log belongs.
globalThis.AI_SDK_LOG_WARNINGS = ({ warnings }) => {
  for (const warning of warnings) process.stderr.write(`AI SDK warning: ${JSON.stringify(warning)}\n`);
};

const MADE_UP = "toolcall-made-up-id-";
let madeUp = 0;
const madeUpId = () => `${MADE_UP}${madeUp++}`;
const wireId = (c) => (c.toolCallId == null || c.toolCallId.startsWith(MADE_UP) ? "" : c.toolCallId);

const PROVIDERS = {
  chat: {
    package: "@ai-sdk/openai-compatible",
    model: ({ base_url, headers }, id) =>
      createOpenAICompatible({ name: "toolcall", baseURL: base_url, apiKey: "anything", headers })(id),
  },
  responses: {
    package: "@ai-sdk/openai",
    model: ({ base_url, headers }, id) =>
      createOpenAI({ baseURL: base_url, apiKey: "anything", headers }).responses(id),
  },
  anthropic: {
    package: "@ai-sdk/anthropic",
    model: ({ base_url, headers }, id) =>
      createAnthropic({ baseURL: base_url, apiKey: "anything", headers })(id),
  },
  gemini: {
    package: "@ai-sdk/google",
    model: ({ base_url, headers }, id) =>
      createGoogleGenerativeAI({ baseURL: base_url, apiKey: "anything", headers, generateId: madeUpId })(id),
  },
};

const wire = process.argv[2];
if (!(wire in PROVIDERS)) throw new Error(`no AI SDK provider for the ${wire} wire`);

// The request's messages as the SDK takes them: its own message format is not chat's, so an
// assistant turn with `tool_calls` and the `tool` results of a second turn would be refused
// before any byte is read. The stream it reads is the served one whatever the prompt says, so
// the system and user texts are enough.
function promptOf(messages) {
  const texts = (messages ?? []).filter(
    (m) => (m.role === "user" || m.role === "system") && typeof m.content === "string",
  );
  return texts.length ? texts.map((m) => ({ role: m.role, content: m.content })) : [{ role: "user", content: "" }];
}

async function assemble({ served, request }) {
  const body = streamed(request);
  const tools = {};
  for (const t of body.tools ?? []) {
    tools[t.function.name] = tool({
      description: t.function.description ?? "",
      inputSchema: jsonSchema(t.function.parameters ?? { type: "object" }),
    });
  }
  const errors = [];
  const result = streamText({
    model: PROVIDERS[wire].model(served, body.model),
    messages: promptOf(body.messages),
    tools,
    maxRetries: 0,
    ...(wire === "chat" ? { allowSystemInMessages: true } : {}),
    onError: ({ error }) => errors.push(String(error?.message ?? error)),
  });
  const calls = await result.toolCalls;
  const finish = await result.finishReason;
  const out = { tool_calls: toolCalls(calls, wire === "gemini" ? wireId : undefined) };
  const invalid = calls.filter((c) => c.invalid);
  if (invalid.length) errors.push(`invalid tool input: ${invalid.map((c) => c.toolName).join(", ")}`);
  if (finish === "length") errors.push("finish reason length");
  if (errors.length) out.error = errors.join("; ");
  return out;
}

await run({ name: `vercel-ai${wire === "chat" ? "" : `-${wire}`}`, packages: ["ai", PROVIDERS[wire].package], wires: [wire], assemble });
