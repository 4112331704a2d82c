// The official @ag-ui/client runs one turn the model refuses or the provider's filter
// stops (the URL is the first argument) and prints what it saw as JSON: the event
// types, the text, and each RUN_ERROR's message and code. The client's own checks
// refuse an event after RUN_ERROR, so a run that sent one would fail here.
"use strict";

const { HttpAgent } = require("@ag-ui/client");

async function main() {
  const url = process.argv[2];
  const agent = new HttpAgent({ url, threadId: "node-refusal-" + process.pid });
  agent.addMessage({ id: "user-1", role: "user", content: "Something the filter stops" });
  const seen = { types: [], text: "", errors: [], finished: 0 };
  await agent.runAgent(
    { forwardedProps: { context: { current_page: "shop" } } },
    {
      onEvent({ event }) {
        seen.types.push(event.type);
      },
      onTextMessageContentEvent({ event }) {
        seen.text += event.delta;
      },
      onRunErrorEvent({ event }) {
        seen.errors.push({ message: event.message, code: event.code });
      },
      onRunFinishedEvent() {
        seen.finished += 1;
      },
    }
  );
  process.stdout.write(JSON.stringify(seen));
}

main().catch((error) => {
  process.stderr.write(String((error && error.stack) || error));
  process.exit(1);
});
