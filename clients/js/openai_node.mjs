// The openai Node SDK's chat-completions streaming helper, pointed at `toolcall serve`.
// Reads one job as JSON on standard input ({base_url, headers, request}) and prints the calls
// it assembled as {"tool_calls": [...]}, or {"error": "..."} when the SDK reported the stream as
// bad. Anything else it throws is left to crash the process: the matrix reports that as a crash.
import OpenAI from "openai";
import { LengthFinishReasonError, ContentFilterFinishReasonError } from "openai/error";
import { readFileSync } from "node:fs";

const job = JSON.parse(readFileSync(0, "utf8"));
const client = new OpenAI({
  baseURL: job.base_url,
  apiKey: "anything",
  defaultHeaders: job.headers,
  maxRetries: 0,
});
try {
  const stream = client.chat.completions.stream(job.request);
  const completion = await stream.finalChatCompletion();
  const calls = completion.choices[0]?.message?.tool_calls ?? [];
  const finish = completion.choices[0]?.finish_reason;
  const out = {
    tool_calls: calls.map((c) => ({
      id: c.id ?? "",
      type: "function",
      function: { name: c.function?.name ?? "", arguments: c.function?.arguments ?? "" },
    })),
  };
  if (finish === "length") out.error = "finish_reason length";
  process.stdout.write(JSON.stringify(out) + "\n");
} catch (error) {
  if (error instanceof LengthFinishReasonError || error instanceof ContentFilterFinishReasonError) {
    process.stdout.write(JSON.stringify({ error: `${error.name}: ${error.message}` }) + "\n");
  } else {
    throw error;
  }
}
