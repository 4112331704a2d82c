// The chat tray every app gets (payload-serve): it posts to /api/chat and reads the
// answer as Server-Sent Events from the response body (EventSource cannot POST). Model
// text goes through Markdown.render, which builds DOM nodes; nothing from the model is
// ever parsed as HTML. An app's own script talks to the tray through `PayloadChat`
// (its page context, its card context) and DOM events on `document`:
//
// - `payload:action` (cancelable; detail {action, label, page}): a client action the
//   user clicked. The handler that does it calls preventDefault(); an action nobody
//   handles says so.
// - `payload:decided` (detail {type, data, status, applied, turn, index,
//   conversationId}): the user accepted or dismissed a payload (the answer's payload
//   at `index`: each card is its own proposal) and the server recorded it.
// - `payload:complete` (detail: the parsed response): an answer is complete.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  let toastTimer = null;
  function toast(text) {
    const node = $("toast");
    node.textContent = text;
    node.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => (node.hidden = true), 4000);
  }

  async function api(path, options) {
    const response = await fetch(path, options);
    const body = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(body.error || response.status + " " + response.statusText);
    return body;
  }

  function emit(name, detail, cancelable) {
    return document.dispatchEvent(new CustomEvent(name, { detail, cancelable: !!cancelable }));
  }

  // What the app's script sets: where the user is, and what its cards need.
  const hooks = {
    context: null, // () => {current_page, ...}
    cardContext: () => ({}),
    pageHandlers: {}, // page -> {type: handler}, looked up before the global cards
  };

  let manifest = { title: "", recorded: false, default_page: "", pages: [] };
  let storageKey = "payload.conversation";
  const state = { conversationId: null, history: [], busy: false };

  function context() {
    const ctx = hooks.context ? hooks.context() : null;
    return ctx && ctx.current_page ? ctx : { current_page: manifest.default_page };
  }

  function page() {
    const name = context().current_page;
    return manifest.pages.find((p) => p.name === name) || null;
  }

  function typeInfo(type) {
    for (const p of manifest.pages) {
      const found = (p.payloads || []).find((t) => t.type === type);
      if (found) return found;
    }
    return null;
  }

  let messages, form, input, send, chat;

  function scroll() {
    messages.scrollTop = messages.scrollHeight;
  }

  function setChatOpen(open) {
    chat.hidden = !open;
    $("chat-toggle").setAttribute("aria-expanded", String(open));
  }

  // An empty chat offers the page's starter messages; any message hides them.
  function showStarters() {
    const box = $("starters");
    box.replaceChildren();
    const empty = !messages.firstChild;
    const starters = (page() && page().starters) || [];
    box.hidden = !empty || !starters.length;
    if (box.hidden) return;
    starters.forEach((text) => {
      const b = el("button", "chip starter", text);
      b.type = "button";
      b.addEventListener("click", () => sendMessage(text));
      box.appendChild(b);
    });
  }

  function userMessage(text) {
    const node = el("div", "message user", text);
    messages.appendChild(node);
    showStarters();
    return node;
  }

  // The model's reasoning: a collapsed "Thinking" section above the answer, made on
  // its first piece and filled as it streams. Plain text (a text node), never HTML.
  function thinkingSection() {
    const details = el("details", "thinking");
    const summary = el("summary", null, "Thinking…");
    const body = el("div", "thinking-text");
    const words = document.createTextNode("");
    body.appendChild(words);
    details.append(summary, body);
    return {
      node: details,
      add(piece) {
        words.appendData(piece);
      },
      done(all) {
        words.data = all;
        summary.textContent = "Thinking";
      },
    };
  }

  function cardContext(extra) {
    return Object.assign({}, hooks.cardContext ? hooks.cardContext() : {}, extra);
  }

  const SUGGESTION_TYPES = ["suggested_values", "suggested_actions"];

  // The position of the part a stream event belongs to (`part`), or null from a
  // server that does not say (then the answer is one text with its card after it).
  function partOf(data) {
    return data && Number.isInteger(data.part) && data.part >= 0 ? data.part : null;
  }

  // One assistant message: its reasoning, then the answer's parts in the order the
  // model wrote them (text as Markdown, each card where its block stood), then tool
  // lines, notes, chips and buttons. While it streams, each event names its part, so a
  // card is drafted at its place while the text around it still arrives; `complete`'s
  // `parts` are the final word. The first text always has its own `.text` node (empty
  // when the answer opens with a card), so the seed's shape reads as it always did.
  function assistantMessage() {
    const node = el("div", "message assistant");
    node.dataset.state = "streaming";
    const status = el("div", "status");
    const extras = el("div", "extras");
    node.append(status, extras);
    messages.appendChild(node);
    showStarters();
    let frame = 0;
    let thinking = null;
    let refused = null;
    // The answer's segments in part order: {part, node, raw} for text, {part, node}
    // for a card. `part` null: the leading text of a server that names no parts.
    let segments = [];
    let looseDraft = null;
    const leading = () => {
      let first = segments.find((s) => s.raw !== undefined);
      if (!first) {
        first = { part: null, node: el("div", "text"), raw: "" };
        node.insertBefore(first.node, segments.length ? segments[0].node : extras);
        segments.unshift(first);
      }
      return first;
    };
    leading();
    // The segment of part `part` (made, in order, when missing): text or a card slot.
    // A server that names one part for both gets both, in the order they came.
    const segment = (part, text) => {
      const found = segments.find((s) => s.part === part && (s.raw !== undefined) === text);
      if (found) return found;
      if (text) {
        // The first text the answer writes takes the leading node when no part has
        // claimed it yet and nothing stands before it.
        const first = segments[0];
        if (first.raw !== undefined && first.part === null && !first.raw && (part === 0 || segments.length === 1)) {
          first.part = part;
          return first;
        }
      }
      const made = text ? { part, node: el("div", "text"), raw: "" } : { part, node: el("div", "slot") };
      made.node.dataset.part = String(part);
      const after = segments.findIndex((s) => s.part !== null && s.part > part);
      if (after < 0) {
        node.insertBefore(made.node, extras);
        segments.push(made);
      } else {
        node.insertBefore(made.node, segments[after].node);
        segments.splice(after, 0, made);
      }
      return made;
    };
    const thought = () => {
      if (!thinking) {
        thinking = thinkingSection();
        node.insertBefore(thinking.node, segments.length ? segments[0].node : extras);
      }
      return thinking;
    };
    // A refusal or a content filter's stop (the `refusal` event, or a stored turn's
    // `refusal`): the turn's outcome, shown once in its words, never an empty bubble.
    const showRefusal = (data) => {
      if (refused) return;
      status.textContent = "";
      const reason = data && data.reason === "content_filter" ? "content_filter" : "refusal";
      const said = data && data.message ? data.message
        : reason === "content_filter" ? "The provider's content filter stopped the answer."
        : "The model refused to answer.";
      refused = el("p", "refusal", said);
      refused.dataset.reason = reason;
      extras.insertBefore(refused, extras.firstChild);
      scroll();
    };
    const paint = () => {
      frame = 0;
      segments.forEach((s) => {
        if (s.raw !== undefined && s.dirty) {
          s.node.replaceChildren(Markdown.render(s.raw));
          s.dirty = false;
        }
      });
      scroll();
    };
    const draftCard = (type, partial) => {
      const info = typeInfo(type);
      return Payloads.drafting(type, partial, cardContext({
        schema: info ? info.schema : null,
        pageHandlers: hooks.pageHandlers[context().current_page],
      }));
    };
    return {
      node,
      status(message) {
        status.textContent = message;
      },
      reasoning(piece) {
        status.textContent = "";
        thought().add(piece);
        scroll();
      },
      delta(piece, part) {
        status.textContent = "";
        const s = part === null ? leading() : segment(part, true);
        s.raw += piece;
        s.dirty = true;
        if (!frame) frame = requestAnimationFrame(paint);
      },
      tool(kind, data) {
        const line = el("div", "tool", kind === "start" ? "Running " + data.tool + "…" : kind === "progress" ? data.tool + ": " + data.message : data.tool + " finished");
        extras.appendChild(line);
      },
      drafting(type, partial, part) {
        const next = draftCard(type, partial);
        if (part === null) {
          if (looseDraft) looseDraft.replaceWith(next);
          else extras.appendChild(next);
          looseDraft = next;
        } else {
          segment(part, false).node.replaceChildren(next);
        }
        scroll();
      },
      error(message) {
        extras.appendChild(el("p", "error", message));
      },
      refusal: showRefusal,
      complete(parsed, turn, conversationId, payloadState) {
        if (frame) cancelAnimationFrame(frame);
        frame = 0;
        status.textContent = "";
        // `complete` is the final word on the reasoning too.
        if (parsed.reasoning) thought().done(parsed.reasoning);
        else if (thinking) {
          thinking.node.remove();
          thinking = null;
        }
        if (looseDraft) looseDraft.remove();
        looseDraft = null;
        segments.forEach((s) => s.node.remove());
        segments = [];
        const stateOf = typeof payloadState === "function" ? payloadState : () => payloadState || "proposed";
        const cards = layout(parsed).map((piece) => {
          if (piece.text !== undefined) {
            const s = { part: piece.part, node: el("div", "text"), raw: piece.text };
            s.node.replaceChildren(Markdown.render(piece.text));
            return s;
          }
          const s = { part: piece.part, node: el("div", "slot") };
          s.node.appendChild(payloadCard(piece.payload, piece.index, turn, conversationId, stateOf(piece.index)));
          return s;
        });
        segments = cards;
        segments.forEach((s) => {
          if (s.part !== null) s.node.dataset.part = String(s.part);
          node.insertBefore(s.node, extras);
        });
        if (parsed.refusal) showRefusal(parsed.refusal);
        finish(extras, parsed);
        node.dataset.state = "complete";
        scroll();
      },
    };
  }

  // The answer as the page shows it, in order: runs of text (the text parts between
  // two cards, together: a suggestion block or a refused one between them is not
  // shown there) and the cards of the accepted custom payloads, each with its `index`
  // among the answer's payloads. The first piece is always text (empty when the
  // answer opens with a card). Without `parts` (a server from before them): the
  // message, then the one custom payload.
  function layout(parsed) {
    if (!Array.isArray(parsed.parts)) {
      const pieces = [{ part: null, text: parsed.message || "" }];
      if (parsed.custom_payload) pieces.push({ part: null, payload: parsed.custom_payload, index: 0 });
      return pieces;
    }
    const pieces = [];
    let index = 0;
    parsed.parts.forEach((part, position) => {
      if (!part || typeof part !== "object") return;
      if (typeof part.text === "string") {
        const last = pieces[pieces.length - 1];
        if (last && last.text !== undefined) last.text += part.text;
        else pieces.push({ part: position, text: part.text });
      } else if (typeof part.type === "string" && part.data !== undefined && !SUGGESTION_TYPES.includes(part.type)) {
        pieces.push({ part: position, payload: { type: part.type, data: part.data }, index: index++ });
      }
    });
    if (!pieces.length || pieces[0].text === undefined) pieces.unshift({ part: null, text: "" });
    return pieces;
  }

  // One accepted custom payload's card: its own proposal, decided by its `index`.
  function payloadCard(payload, index, turn, conversationId, state) {
    const info = typeInfo(payload.type);
    const card = Payloads.card(payload, cardContext({
      state,
      schema: info ? info.schema : null,
      pageHandlers: hooks.pageHandlers[context().current_page],
      // Accept and Dismiss only when the app decides this type on the server.
      decide: info && info.decidable
        ? (decision, options) => decide(conversationId, turn, index, payload, decision, options)
        : null,
    }));
    card.dataset.index = String(index);
    return card;
  }

  // What follows the answer's parts: refused blocks, dropped items, chips, buttons.
  function finish(extras, parsed) {
    (parsed.rejected || []).forEach((r) => {
      const why = r.errors && r.errors[0] ? r.errors[0].message : "it was not valid";
      extras.appendChild(el("p", "note warn", "Left out a " + r.type + " block: " + why));
    });
    // Items the page cannot use (an invented action, a chip without a label) were
    // dropped by the parser; say so briefly, with the details on hover.
    const dropped = (parsed.warnings || []).filter((w) => w.kind === "dropped_item" || w.kind === "unknown_action");
    if (dropped.length) {
      const note = el("p", "note dropped", dropped.length === 1 ? "1 suggestion was left out." : dropped.length + " suggestions were left out.");
      note.title = dropped.map((w) => w.message).join("\n");
      extras.appendChild(note);
    }
    if (parsed.suggested_values && parsed.suggested_values.length) {
      const chips = el("div", "chips");
      parsed.suggested_values.forEach((s) => {
        const b = el("button", "chip", s.label);
        b.type = "button";
        b.title = s.value;
        b.addEventListener("click", () => sendMessage(s.value));
        chips.appendChild(b);
      });
      extras.appendChild(chips);
    }
    if (parsed.suggested_actions && parsed.suggested_actions.length) {
      const actions = el("div", "actions");
      parsed.suggested_actions.forEach((a) => {
        const b = el("button", "action", a.label);
        b.type = "button";
        b.dataset.action = a.action;
        if (a.handler !== "client") {
          b.disabled = true;
          b.title = "This page cannot do " + a.action;
        } else {
          b.addEventListener("click", () => runAction(a));
        }
        actions.appendChild(b);
      });
      extras.appendChild(actions);
    }
    emit("payload:complete", parsed);
  }

  // A client action is a DOM event the app's script answers; the tray answers
  // `close_chat` itself. One nobody answers says so.
  function runAction(action) {
    const detail = { action: action.action, label: action.label, page: context().current_page };
    const unhandled = emit("payload:action", detail, true);
    if (unhandled) toast("This page cannot do " + action.action + ".");
  }

  document.addEventListener("payload:action", (event) => {
    if (event.detail.action === "close_chat") {
      setChatOpen(false);
      event.preventDefault();
    }
  });

  // Decides the answer's payload at `index` (its own proposal): the index goes in the
  // query, so the body stays the user's choices, handed to the app's handler.
  async function decide(conversationId, turn, index, payload, decision, options) {
    const path = "/api/payloads/" + encodeURIComponent(conversationId) + "/" + turn + "/" + decision + "?index=" + index;
    const result = await api(path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(options || {}),
    });
    emit("payload:decided", {
      type: payload.type,
      data: payload.data,
      status: result.status,
      applied: result.applied,
      turn,
      index,
      conversationId,
    });
    return result;
  }

  // Reads `text/event-stream` from a fetch body: events are separated by a blank
  // line; `event:` names one, `data:` lines carry its JSON; comments keep it alive.
  async function readEvents(body, onEvent) {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      buffer += decoder.decode(value || new Uint8Array(), { stream: !done });
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        let name = "message";
        const data = [];
        block.split("\n").forEach((line) => {
          if (line.startsWith("event:")) name = line.slice(6).trim();
          else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
        });
        if (!data.length) continue;
        let parsed = null;
        try {
          parsed = JSON.parse(data.join("\n"));
        } catch (e) {
          parsed = { message: data.join("\n") };
        }
        onEvent(name, parsed);
      }
      if (done) return;
    }
  }

  function setBusy(busy) {
    state.busy = busy;
    send.disabled = busy;
    form.dataset.busy = String(busy);
  }

  async function sendMessage(text) {
    text = String(text || "").trim();
    if (!text || state.busy) return;
    setChatOpen(true);
    setBusy(true);
    userMessage(text);
    const answer = assistantMessage();
    answer.status("Sending…");
    scroll();
    const request = {
      message: text,
      context: context(),
      conversation_history: state.history.slice(),
      conversation_id: state.conversationId,
    };
    state.history.push({ role: "user", content: text });
    let completed = false;
    try {
      const response = await fetch("/api/chat", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(request),
      });
      if (!response.ok || !response.body) {
        const body = await response.json().catch(() => ({}));
        throw new Error(body.error || "the server answered " + response.status);
      }
      const conversationId = response.headers.get("x-conversation-id");
      const turn = Number(response.headers.get("x-turn"));
      if (conversationId) {
        state.conversationId = conversationId;
        localStorage.setItem(storageKey, conversationId);
      }
      await readEvents(response.body, (name, data) => {
        switch (name) {
          case "status": answer.status(data.message); break;
          case "text_delta": answer.delta(data.text, partOf(data)); break;
          case "reasoning_delta": answer.reasoning(data.text); break;
          case "payload_start": answer.drafting(data.type, null, partOf(data)); break;
          case "payload_progress": answer.drafting(data.type, data.partial, partOf(data)); break;
          case "tool_start": answer.tool("start", data); break;
          case "tool_progress": answer.tool("progress", data); break;
          case "tool_complete": answer.tool("complete", data); break;
          case "error": answer.error(data.message); break;
          case "refusal": answer.refusal(data); break;
          case "complete":
            completed = true;
            answer.complete(data, turn, state.conversationId);
            state.history.push({ role: "assistant", content: data.message || "" });
            break;
          default: break;
        }
      });
      if (!completed) answer.error("The answer stopped before it was complete.");
    } catch (error) {
      answer.error("Could not reach the assistant: " + error.message);
    } finally {
      answer.node.dataset.state = "complete";
      setBusy(false);
      input.focus();
    }
  }

  // Shows a stored conversation again, with what the user did with each payload.
  async function restore() {
    if (!state.conversationId) return;
    let stored;
    try {
      stored = await api("/api/conversations/" + encodeURIComponent(state.conversationId));
    } catch (error) {
      return;
    }
    // Each proposal's status by its turn and its index among the turn's payloads
    // (a store from before indexes has one per turn: index 0).
    const statuses = new Map((stored.payloads || []).map((p) => [p.turn + ":" + (p.index || 0), p.status]));
    stored.messages.forEach((m) => {
      if (m.role === "user") {
        userMessage(m.text);
        state.history.push({ role: "user", content: m.text });
      } else if (m.response) {
        const answer = assistantMessage();
        answer.complete(m.response, m.turn, state.conversationId, (index) => statuses.get(m.turn + ":" + index) || "proposed");
        state.history.push({ role: "assistant", content: m.response.message || "" });
      } else if (m.interrupted) {
        // The turn ended without an answer (the page was closed, the model failed).
        const answer = assistantMessage();
        answer.error("No answer: " + m.interrupted + ".");
        answer.node.dataset.state = "complete";
      }
    });
    scroll();
  }

  function newConversation() {
    state.conversationId = null;
    state.history = [];
    localStorage.removeItem(storageKey);
    messages.replaceChildren();
    showStarters();
  }

  async function start() {
    messages = $("messages");
    form = $("chat-form");
    input = $("chat-input");
    send = $("chat-send");
    chat = $("chat");
    try {
      manifest = await api("/api/app");
    } catch (error) {
      toast("Could not load the app: " + error.message);
    }
    storageKey = "payload.conversation." + (manifest.title || "app");
    state.conversationId = localStorage.getItem(storageKey);
    $("chat-recorded").hidden = !manifest.recorded;
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const text = input.value;
      input.value = "";
      sendMessage(text);
    });
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey) {
        event.preventDefault();
        form.requestSubmit();
      }
    });
    $("chat-toggle").addEventListener("click", () => setChatOpen(chat.hidden));
    $("chat-close").addEventListener("click", () => setChatOpen(false));
    $("chat-new").addEventListener("click", newConversation);
    await restore();
    showStarters();
    emit("payload:ready", { manifest });
  }

  window.PayloadChat = {
    /** Sets where the user is: `fn()` returns {current_page, ...the page's fields}. */
    setContext(fn) {
      hooks.context = fn;
      if (messages) showStarters();
    },
    /** Sets what the app's cards get in their context (e.g. the open table's columns). */
    setCardContext(fn) {
      hooks.cardContext = fn;
    },
    /** Registers `handler` for payload `type` on `page` only (before the global cards). */
    registerPageHandler(pageName, type, handler) {
      (hooks.pageHandlers[pageName] = hooks.pageHandlers[pageName] || {})[type] = handler;
    },
    /** Sends `text` as the user's message. */
    send: (text) => sendMessage(text),
    /** Opens or closes the tray. */
    open: setChatOpen,
    /** Shows a short note. */
    toast,
    /** The JSON API helper: rejects with the server's `error`. */
    api,
    /** The app's manifest (after `payload:ready`). */
    manifest: () => manifest,
  };

  document.addEventListener("DOMContentLoaded", start);
})();
