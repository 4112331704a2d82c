// A turn of the AI SDK's UI message stream against the server, with the `ai`
// package's own code: the raw response (its header, every chunk validated against
// `uiMessageChunkSchema`, `[DONE]` last), then the message `DefaultChatTransport` and
// `readUIMessageStream` rebuild from a second turn, as `useChat` does; then the user's
// approval of the proposal, sent back as `useChat` sends it after
// `addToolApprovalResponse`, and the message that answer continues.
//
// Usage: node turn.js URL MESSAGE [approve|deny] [PAGE] (the page `shop` unless named), with PAYLOAD_AI_SDK_MODULES naming
// the `node_modules` holding the package (installed from this folder's lock). Prints
// JSON: {header, done, chunks, failures, message, decided, decidedChunks, again}.
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

// The package is ESM only, which NODE_PATH does not reach: it is resolved in the
// installed folder and imported from there.
const modules = process.env.PAYLOAD_AI_SDK_MODULES;
const entry = createRequire(join(modules, "resolve.js")).resolve("ai");
const {
  DefaultChatTransport,
  readUIMessageStream,
  uiMessageChunkSchema,
  validateUIMessages,
} = await import(pathToFileURL(entry).href);

const [url, text, answer = "approve", page = "shop"] = process.argv.slice(2);
const context = { current_page: page };

/// The `data:` values of a Server-Sent Events body.
function dataOf(body) {
  return body
    .split("\n\n")
    .map((block) =>
      block
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).replace(/^ /, ""))
        .join("\n"),
    )
    .filter((data) => data !== "");
}

/// Every chunk checked against the package's schema: the failures.
async function validate(chunks) {
  const schema = uiMessageChunkSchema();
  const failures = [];
  for (const chunk of chunks) {
    const result = await schema.validate(chunk);
    if (!result.success) failures.push({ chunk, error: String(result.error).slice(0, 400) });
  }
  return failures;
}

/// The message `stream` builds, from `message` when it continues one.
async function rebuild(stream, message) {
  let last;
  const errors = [];
  for await (const snapshot of readUIMessageStream({
    message,
    stream,
    onError: (e) => errors.push(e.message),
  })) {
    last = snapshot;
  }
  return { message: last, errors };
}

const user = (id, words) => ({ id, role: "user", parts: [{ type: "text", text: words }] });

async function main() {
  const out = {};
  // The raw answer, as the transport posts it.
  const first = [user("u1", text)];
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      context,
      id: "chat-1",
      messages: first,
      trigger: "submit-message",
      messageId: undefined,
    }),
  });
  out.status = response.status;
  out.header = response.headers.get("x-vercel-ai-ui-message-stream");
  const data = dataOf(await response.text());
  out.done = data[data.length - 1] === "[DONE]";
  out.chunks = data.filter((d) => d !== "[DONE]").map((d) => JSON.parse(d));
  out.failures = await validate(out.chunks);

  // The same question through the transport, read into a message.
  const transport = new DefaultChatTransport({ api: url, body: { context } });
  const stream = await transport.sendMessages({
    chatId: "chat-2",
    messages: first,
    trigger: "submit-message",
    messageId: undefined,
    abortSignal: undefined,
  });
  const built = await rebuild(stream);
  out.message = built.message;
  out.errors = built.errors;
  out.valid = String((await validateUIMessages({ messages: [built.message] })).length);

  // The user answers the approval, as `addToolApprovalResponse` records it.
  const assistant = structuredClone(built.message);
  const pending = assistant.parts.filter((p) => p.state === "approval-requested");
  out.pending = pending.length;
  if (pending.length > 0) {
    for (const part of pending) {
      part.state = "approval-responded";
      part.approval = { ...part.approval, approved: answer === "approve" };
    }
    const messages = [...first, assistant];
    const raw = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ context, id: "chat-2", messages, trigger: "submit-message" }),
    });
    const decidedData = dataOf(await raw.text());
    out.decidedStatus = raw.status;
    out.decidedChunks = decidedData.filter((d) => d !== "[DONE]").map((d) => JSON.parse(d));
    out.decidedFailures = await validate(out.decidedChunks);
    out.decidedDone = decidedData[decidedData.length - 1] === "[DONE]";
    // The same answer again, through the transport: the decision was made once, so
    // this one is refused, as the error chunk.
    const again = await transport.sendMessages({
      chatId: "chat-2",
      messages,
      trigger: "submit-message",
      messageId: undefined,
      abortSignal: undefined,
    });
    const rebuilt = await rebuild(again, structuredClone(assistant));
    out.again = rebuilt;
    // The first answer read into the message it continues.
    const continued = new ReadableStream({
      start(controller) {
        for (const chunk of out.decidedChunks) controller.enqueue(chunk);
        controller.close();
      },
    });
    out.decided = (await rebuild(continued, structuredClone(assistant))).message;
  }
  return out;
}

main().then(
  (out) => process.stdout.write(JSON.stringify(out)),
  (error) => {
    process.stdout.write(JSON.stringify({ thrown: String(error && error.stack) }));
  },
);
