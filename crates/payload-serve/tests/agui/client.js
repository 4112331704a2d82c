// The official @ag-ui/client consumes runs from the server: the URL is the first
// argument. It runs the agent on the shop page, then answers the interrupt it was left
// with (accepting the proposal), and prints what it saw as JSON.
"use strict";

const { HttpAgent } = require("@ag-ui/client");

async function main() {
  const url = process.argv[2];
  const agent = new HttpAgent({ url, threadId: "node-thread-" + process.pid });
  agent.addMessage({ id: "user-1", role: "user", content: "What do I need?" });
  const seen = { types: [], text: "", reasoning: "", activity: null, finished: [], errors: [] };
  const subscriber = {
    // The thread is the server's: a new one is issued in RUN_STARTED, and the next
    // run (the resume) continues it.
    onRunStartedEvent({ event }) {
      agent.threadId = event.threadId;
    },
    onEvent({ event }) {
      seen.types.push(event.type);
      if (event.type === "RUN_FINISHED") seen.finished.push(event.outcome || null);
    },
    onTextMessageContentEvent({ event }) {
      seen.text += event.delta;
    },
    onReasoningMessageContentEvent({ event }) {
      seen.reasoning += event.delta;
    },
    onRunErrorEvent({ event }) {
      seen.errors.push(event.message);
    },
  };
  const first = await agent.runAgent(
    { forwardedProps: { context: { current_page: "shop" } } },
    subscriber
  );
  const activities = agent.messages.filter((m) => m.role === "activity");
  seen.activity = activities.length ? activities[activities.length - 1].content : null;
  seen.pending = agent.pendingInterrupts.map((i) => ({ id: i.id, reason: i.reason }));
  seen.newMessages = first.newMessages.map((m) => m.role);
  const resumeTypes = [];
  await agent.runAgent(
    {
      resume: agent.pendingInterrupts.map((i) => ({
        interruptId: i.id,
        status: "resolved",
        payload: { decision: "accept" },
      })),
    },
    { onEvent: ({ event }) => resumeTypes.push(event.type) }
  );
  const after = agent.messages.filter((m) => m.role === "activity");
  seen.resumed = { types: resumeTypes, activity: after.length ? after[after.length - 1].content : null };
  seen.pendingAfter = agent.pendingInterrupts.length;
  seen.threadId = agent.threadId;
  process.stdout.write(JSON.stringify(seen));
}

main().catch((error) => {
  process.stderr.write(String((error && error.stack) || error));
  process.exit(1);
});
