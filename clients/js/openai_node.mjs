// The openai Node SDK's chat-completions streaming helper, as an implementation-protocol program
// (protocol.mjs): each stream is fetched from where the harness serves it, and the calls it
// assembled are answered, or {"error": ...} when the SDK reported the stream as bad. Anything
// else it throws crashes the process: the matrix reports that as a crash.
import OpenAI from "openai";
import { LengthFinishReasonError, ContentFilterFinishReasonError } from "openai/error";
import { run, streamed } from "./protocol.mjs";

async function assemble({ served, request }) {
  const client = new OpenAI({
    baseURL: served.base_url,
    apiKey: "anything",
    defaultHeaders: served.headers,
    maxRetries: 0,
  });
  try {
    const stream = client.chat.completions.stream(streamed(request));
    const completion = await stream.finalChatCompletion();
    const calls = completion.choices[0]?.message?.tool_calls ?? [];
    const out = {
      tool_calls: calls.map((c) => ({
        id: c.id ?? "",
        type: "function",
        function: { name: c.function?.name ?? "", arguments: c.function?.arguments ?? "" },
      })),
    };
    if (completion.choices[0]?.finish_reason === "length") out.error = "finish_reason length";
    return out;
  } catch (error) {
    if (error instanceof LengthFinishReasonError || error instanceof ContentFilterFinishReasonError) {
      return { error: `${error.name}: ${error.message}` };
    }
    throw error;
  }
}

await run({ name: "openai-node", packages: ["openai"], wires: ["chat"], assemble });
