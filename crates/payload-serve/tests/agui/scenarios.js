// The official @ag-ui/client against the shop app whose model proposes a list named
// after the user's message: `node scenarios.js URL SCENARIO` runs one journey and
// prints what the client saw as JSON. Every agent continues the thread the server
// issued in RUN_STARTED, as a client of this server does.
"use strict";

const { HttpAgent } = require("@ag-ui/client");

const page = { forwardedProps: { context: { current_page: "shop" } } };

/// An agent on `threadId` that follows the server's thread, with `messages` so far.
function agent(url, threadId, messages) {
  const made = new HttpAgent({ url, threadId, initialMessages: messages });
  made.subscribe({
    onRunStartedEvent({ event }) {
      made.threadId = event.threadId;
    },
  });
  return made;
}

/// Runs `made`, keeping each event's type, the run errors and what was thrown.
async function run(made, params) {
  const seen = { types: [], errors: [], thrown: null, cards: [] };
  try {
    await made.runAgent(params, {
      onEvent({ event }) {
        seen.types.push(event.type);
        if (event.type === "RUN_FINISHED") seen.result = event.result || null;
      },
      onRunErrorEvent({ event }) {
        seen.errors.push(event.message);
      },
      onMessagesChanged({ messages }) {
        for (const m of messages) if (m.role === "activity") seen.cards.push(JSON.parse(JSON.stringify(m.content)));
      },
    });
  } catch (error) {
    seen.thrown = String((error && error.message) || error);
  }
  seen.card = lastCard(made);
  seen.pending = made.pendingInterrupts.map((i) => i.id);
  return seen;
}

/// The newest activity (payload card) the agent holds.
function lastCard(made) {
  const cards = made.messages.filter((m) => m.role === "activity");
  return cards.length ? cards[cards.length - 1].content : null;
}

/// A resume answering every pending interrupt of `made` with `status` and `decision`.
function resume(made, status, decision) {
  return {
    resume: made.pendingInterrupts.map((i) => ({
      interruptId: i.id,
      status,
      ...(decision ? { payload: { decision } } : {}),
    })),
  };
}

const user = (id, content) => ({ id, role: "user", content });

const scenarios = {
  // A first run on an unknown thread carries earlier messages; its proposal is
  // dismissed, the next run proposes another, and accepting that one saves it.
  async history(url) {
    const made = agent(url, "history-" + process.pid, [
      user("u0", "earlier"),
      { id: "a0", role: "assistant", content: "an earlier answer" },
      user("u1", "A"),
    ]);
    const first = await run(made, page);
    const dismissed = await run(made, resume(made, "cancelled"));
    made.addMessage(user("u2", "B"));
    const second = await run(made, page);
    const accepted = await run(made, resume(made, "resolved", "accept"));
    return { first, dismissed, second, accepted };
  },

  // Two clients start the same new thread id at once; each accepts its own proposal.
  async concurrent(url) {
    const shared = "shared-" + process.pid;
    const a = agent(url, shared, [user("a1", "A")]);
    const b = agent(url, shared, [user("b1", "B")]);
    const [firstA, firstB] = await Promise.all([run(a, page), run(b, page)]);
    const acceptedA = await run(a, resume(a, "resolved", "accept"));
    const acceptedB = await run(b, resume(b, "resolved", "accept"));
    return { firstA, firstB, acceptedA, acceptedB, threads: [a.threadId, b.threadId] };
  },

  // Someone who knows the thread id a client picked runs on it and resumes the
  // client's interrupt with it; the client then accepts on the thread it was issued.
  async guess(url) {
    const picked = "victim-" + process.pid;
    const victim = agent(url, picked, [user("v1", "mine")]);
    const first = await run(victim, page);
    const thief = new HttpAgent({ url, threadId: picked, initialMessages: [user("t1", "theirs")] });
    const stolen = await run(thief, resume(victim, "resolved", "accept"));
    const own = agent(url, picked, [user("t2", "theirs")]);
    const theirs = await run(own, page);
    const accepted = await run(victim, resume(victim, "resolved", "accept"));
    return { first, stolen, theirs, accepted, victimThread: victim.threadId, theirThread: own.threadId };
  },

  // The model fails after its first piece of text.
  async failure(url) {
    const made = agent(url, "failure-" + process.pid, [user("f1", "fail")]);
    return { failed: await run(made, page) };
  },

  // A proposal followed by suggestion chips.
  async chips(url) {
    const made = agent(url, "chips-" + process.pid, [user("c1", "A")]);
    return { seen: await run(made, page) };
  },
};

async function main() {
  const [url, name] = process.argv.slice(2);
  const scenario = scenarios[name];
  if (!scenario) throw new Error("no scenario " + name);
  process.stdout.write(JSON.stringify(await scenario(url)));
}

main().catch((error) => {
  process.stderr.write(String((error && error.stack) || error));
  process.exit(1);
});
