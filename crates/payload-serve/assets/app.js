// table.that in the browser: the tables list, a table's rows, its column editor, and
// the chat tray. The chat posts to /api/chat and reads the answer as Server-Sent
// Events from the response body (EventSource cannot POST). Model text goes through
// Markdown.render, which builds DOM nodes; nothing from the model is parsed as HTML.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const main = $("main");
  const messages = $("messages");
  const form = $("chat-form");
  const input = $("chat-input");
  const send = $("chat-send");
  const chat = $("chat");
  const STORAGE_KEY = "table.that.conversation";

  const state = {
    page: "tables_list",
    tableId: null,
    table: null, // {table, columns, rows} of the open table
    filters: {}, // column id -> value, on the table view
    filtersOpen: false,
    conversationId: localStorage.getItem(STORAGE_KEY),
    history: [], // [{role, content}] sent as conversation_history
    busy: false,
  };

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

  // ---- pages ------------------------------------------------------------------

  function route() {
    const hash = location.hash || "#/";
    let m;
    if ((m = /^#\/tables\/(\d+)\/edit$/.exec(hash))) return { page: "table_edit", tableId: Number(m[1]) };
    if ((m = /^#\/tables\/(\d+)$/.exec(hash))) return { page: "table_view", tableId: Number(m[1]) };
    return { page: "tables_list", tableId: null };
  }

  async function render() {
    const where = route();
    if (where.tableId !== state.tableId) {
      state.filters = {};
      state.filtersOpen = false;
    }
    state.page = where.page;
    state.tableId = where.tableId;
    main.dataset.page = state.page;
    try {
      if (state.page === "tables_list") await renderList();
      else await renderTable();
    } catch (error) {
      main.replaceChildren(el("p", "empty", "Could not load: " + error.message));
    }
  }

  function crumbs(parts) {
    const nav = $("crumbs");
    nav.replaceChildren();
    parts.forEach((part, i) => {
      if (i > 0) nav.appendChild(document.createTextNode(" / "));
      if (part.href) {
        const a = el("a", null, part.text);
        a.href = part.href;
        nav.appendChild(a);
      } else {
        nav.appendChild(el("span", null, part.text));
      }
    });
  }

  async function renderList() {
    const { tables } = await api("/api/tables");
    state.table = null;
    crumbs([{ text: "Tables" }]);
    const page = document.createDocumentFragment();
    page.appendChild(el("h1", null, "Your tables"));
    page.appendChild(el("p", "description", "Ask the assistant to set up a table for whatever you want to track."));
    if (!tables.length) {
      page.appendChild(el("p", "empty", "No tables yet. Tell the assistant what you want to keep track of."));
    } else {
      const list = el("ul", "table-list");
      tables.forEach((t) => {
        const li = el("li");
        const a = el("a");
        a.href = "#/tables/" + t.id;
        a.dataset.tableId = String(t.id);
        a.appendChild(el("strong", null, t.name));
        a.appendChild(el("div", "count", t.row_count + " rows"));
        if (t.description) a.appendChild(el("div", "count", t.description));
        li.appendChild(a);
        list.appendChild(li);
      });
      page.appendChild(list);
    }
    main.replaceChildren(page);
  }

  async function loadTable() {
    state.table = await api("/api/tables/" + state.tableId);
    return state.table;
  }

  async function renderTable() {
    const { table, columns, rows } = await loadTable();
    const edit = state.page === "table_edit";
    crumbs([
      { text: "Tables", href: "#/" },
      { text: table.name, href: edit ? "#/tables/" + table.id : null },
      ...(edit ? [{ text: "Columns" }] : []),
    ]);
    const page = document.createDocumentFragment();
    page.appendChild(el("h1", null, table.name));
    if (table.description) page.appendChild(el("p", "description", table.description));
    const bar = el("div", "toolbar");
    if (edit) {
      const back = el("a", null, "Back to the rows");
      back.href = "#/tables/" + table.id;
      bar.appendChild(back);
    } else {
      const filters = el("button", "open-filters", "Filters");
      filters.type = "button";
      filters.addEventListener("click", () => toggleFilters(!state.filtersOpen));
      const csv = el("button", "export-csv", "Export CSV");
      csv.type = "button";
      csv.addEventListener("click", exportCsv);
      const editColumns = el("a", null, "Edit columns");
      editColumns.href = "#/tables/" + table.id + "/edit";
      bar.append(filters, csv, editColumns);
    }
    page.appendChild(bar);
    if (edit) {
      page.appendChild(columnEditor(columns));
    } else {
      page.appendChild(filterPanel(columns));
      page.appendChild(grid(columns, rows));
    }
    main.replaceChildren(page);
  }

  function columnEditor(columns) {
    const table = el("table", "grid columns");
    table.id = "column-editor";
    const head = el("tr");
    ["Id", "Name", "Type", "Required", "Options"].forEach((h) => head.appendChild(el("th", null, h)));
    table.appendChild(head);
    columns.forEach((c) => {
      const tr = el("tr");
      [c.id, c.name, c.type, c.required ? "yes" : "", (c.options || []).join(", ")].forEach((v) => tr.appendChild(el("td", null, v)));
      table.appendChild(tr);
    });
    return table;
  }

  function filterPanel(columns) {
    const panel = el("div", "filters");
    panel.id = "filters";
    panel.hidden = !state.filtersOpen;
    const selects = columns.filter((c) => c.type === "select" && Array.isArray(c.options));
    if (!selects.length) panel.appendChild(el("span", "note", "No select columns to filter by."));
    selects.forEach((column) => {
      panel.appendChild(el("strong", null, column.name + ":"));
      if (column.filterDisplay === "dropdown") {
        const select = el("select");
        select.dataset.column = column.id;
        select.setAttribute("aria-label", "Filter by " + column.name);
        [null, ...column.options].forEach((option) => {
          const choice = el("option", null, option === null ? "All" : option);
          choice.value = option === null ? "" : option;
          choice.selected = (state.filters[column.id] || "") === choice.value;
          select.appendChild(choice);
        });
        select.addEventListener("change", () => {
          if (select.value === "") delete state.filters[column.id];
          else state.filters[column.id] = select.value;
          renderTable();
        });
        panel.appendChild(select);
        return;
      }
      [null, ...column.options].forEach((option) => {
        const b = el("button", state.filters[column.id] === option || (option === null && !(column.id in state.filters)) ? "on" : "", option === null ? "All" : option);
        b.type = "button";
        b.addEventListener("click", () => {
          if (option === null) delete state.filters[column.id];
          else state.filters[column.id] = option;
          renderTable();
        });
        panel.appendChild(b);
      });
    });
    return panel;
  }

  function toggleFilters(open) {
    state.filtersOpen = open;
    const panel = $("filters");
    if (panel) panel.hidden = !open;
  }

  function grid(columns, rows) {
    if (!columns.length) return el("p", "empty", "This table has no columns yet.");
    const table = el("table", "grid");
    table.dataset.tableId = String(state.tableId);
    const head = el("tr");
    head.appendChild(el("th", null, "#"));
    columns.forEach((c) => head.appendChild(el("th", null, c.name)));
    table.appendChild(head);
    const shown = rows.filter((r) => Object.entries(state.filters).every(([id, v]) => r.values[id] === v));
    shown.forEach((r) => {
      const tr = el("tr");
      tr.dataset.rowId = String(r.row_id);
      tr.appendChild(el("td", "row-id", r.row_id));
      columns.forEach((c) => {
        const v = r.values[c.id];
        tr.appendChild(el("td", null, v === null || v === undefined ? "" : c.type === "boolean" ? (v ? "yes" : "no") : v));
      });
      table.appendChild(tr);
    });
    if (!shown.length) {
      const tr = el("tr");
      const td = el("td", "note", rows.length ? "No rows match the filters." : "No rows yet.");
      td.colSpan = columns.length + 1;
      tr.appendChild(td);
      table.appendChild(tr);
    }
    return table;
  }

  function exportCsv() {
    if (!state.tableId) {
      toast("Open a table to export it.");
      return;
    }
    const a = el("a");
    a.href = "/api/tables/" + state.tableId + "/csv";
    a.download = "";
    document.body.appendChild(a);
    a.click();
    a.remove();
    toast("Downloading " + (state.table ? state.table.table.name : "the table") + " as CSV");
  }

  // ---- client actions (SUGGESTED_ACTIONS with handler "client") ------------------

  function setChatOpen(open) {
    chat.hidden = !open;
    $("chat-toggle").setAttribute("aria-expanded", String(open));
  }

  const CLIENT_ACTIONS = {
    close_chat: () => setChatOpen(false),
    export_csv: exportCsv,
    open_filters: () => {
      if (state.page !== "table_view") toast("Open a table to filter it.");
      else toggleFilters(true);
    },
    open_column_editor: () => {
      if (state.tableId) location.hash = "#/tables/" + state.tableId + "/edit";
    },
  };

  // ---- the chat -----------------------------------------------------------------

  // The page's own payload handlers (the chat architecture app: looked up before the global registry):
  // none replace the global cards here, but the lookup goes through them.
  const PAGE_HANDLERS = { tables_list: {}, table_view: {}, table_edit: {} };

  function context() {
    const ctx = { current_page: state.page };
    if (state.tableId) ctx.table_id = state.tableId;
    if (Object.keys(state.filters).length) ctx.filters = state.filters;
    return ctx;
  }

  function userMessage(text) {
    const node = el("div", "message user", text);
    messages.appendChild(node);
    return node;
  }

  function scroll() {
    messages.scrollTop = messages.scrollHeight;
  }

  // The model's reasoning: a collapsed "Thinking" section above the answer, made on
  // its first piece and filled as it streams. Reasoning is plain text (a text node,
  // never Markdown or HTML).
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

  // One assistant message: its reasoning, text (Markdown), tool lines, the drafting
  // card, and at `complete` the final message, card, chips and buttons.
  function assistantMessage() {
    const node = el("div", "message assistant");
    node.dataset.state = "streaming";
    const status = el("div", "status");
    const text = el("div", "text");
    const extras = el("div", "extras");
    node.append(status, text, extras);
    messages.appendChild(node);
    let raw = "";
    let frame = 0;
    let draft = null;
    let thinking = null;
    const thought = () => {
      if (!thinking) {
        thinking = thinkingSection();
        node.insertBefore(thinking.node, text);
      }
      return thinking;
    };
    const paint = () => {
      frame = 0;
      text.replaceChildren(Markdown.render(raw));
      scroll();
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
      delta(piece) {
        status.textContent = "";
        raw += piece;
        if (!frame) frame = requestAnimationFrame(paint);
      },
      tool(kind, data) {
        const line = el("div", "tool", kind === "start" ? "Running " + data.tool + "…" : kind === "progress" ? data.tool + ": " + data.message : data.tool + " finished");
        extras.appendChild(line);
      },
      drafting(type, partial) {
        const next = Payloads.drafting(type, partial, PAGE_HANDLERS[state.page]);
        if (draft) draft.replaceWith(next);
        else extras.appendChild(next);
        draft = next;
        scroll();
      },
      error(message) {
        extras.appendChild(el("p", "error", message));
      },
      complete(parsed, turn, conversationId, payloadState) {
        if (frame) cancelAnimationFrame(frame);
        status.textContent = "";
        raw = parsed.message || "";
        text.replaceChildren(Markdown.render(raw));
        // `complete` is the final word on the reasoning too.
        if (parsed.reasoning) thought().done(parsed.reasoning);
        else if (thinking) {
          thinking.node.remove();
          thinking = null;
        }
        if (draft) draft.remove();
        draft = null;
        finish(extras, parsed, turn, conversationId, payloadState || "proposed");
        node.dataset.state = "complete";
        scroll();
      },
    };
  }

  function finish(extras, parsed, turn, conversationId, payloadState) {
    if (parsed.custom_payload) {
      extras.appendChild(
        Payloads.card(parsed.custom_payload, {
          state: payloadState,
          columns: state.table ? state.table.columns : [],
          pageHandlers: PAGE_HANDLERS[state.page],
          decide: (decision, rows) => decide(conversationId, turn, parsed.custom_payload, decision, rows),
        })
      );
    }
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
        const run = CLIENT_ACTIONS[a.action];
        if (!run || a.handler !== "client") {
          b.disabled = true;
          b.title = "This page cannot do " + a.action;
        } else {
          b.addEventListener("click", run);
        }
        actions.appendChild(b);
      });
      extras.appendChild(actions);
    }
  }

  async function decide(conversationId, turn, payload, decision, rows) {
    const body = rows ? JSON.stringify({ rows }) : "{}";
    const result = await api("/api/payloads/" + encodeURIComponent(conversationId) + "/" + turn + "/" + decision, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    let note = null;
    if (result.applied) {
      const skipped = (result.applied.skipped || []).map((s) => s.reason);
      const ignored = result.applied.ignored || [];
      note = result.applied.applied + " change" + (result.applied.applied === 1 ? "" : "s") + " applied" +
        (skipped.length ? "; skipped: " + skipped.join("; ") : "") +
        (ignored.length ? "; left out: " + ignored.join("; ") : "") + ".";
      if (payload.type === "schema_proposal" && payload.data.mode === "create") {
        location.hash = "#/tables/" + result.applied.table_id;
      } else {
        render();
      }
    }
    return { status: result.status, note };
  }

  // Reads `text/event-stream` from a fetch body: events are separated by a blank
  // line; `event:` names one, `data:` lines carry its JSON.
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
        localStorage.setItem(STORAGE_KEY, conversationId);
      }
      await readEvents(response.body, (name, data) => {
        switch (name) {
          case "status": answer.status(data.message); break;
          case "text_delta": answer.delta(data.text); break;
          case "reasoning_delta": answer.reasoning(data.text); break;
          case "payload_start": answer.drafting(data.type, null); break;
          case "payload_progress": answer.drafting(data.type, data.partial); break;
          case "tool_start": answer.tool("start", data); break;
          case "tool_progress": answer.tool("progress", data); break;
          case "tool_complete": answer.tool("complete", data); break;
          case "error": answer.error(data.message); break;
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
    const statuses = new Map((stored.payloads || []).map((p) => [p.turn, p.status]));
    stored.messages.forEach((m) => {
      if (m.role === "user") {
        userMessage(m.text);
        state.history.push({ role: "user", content: m.text });
      } else if (m.response) {
        const answer = assistantMessage();
        answer.complete(m.response, m.turn, state.conversationId, statuses.get(m.turn));
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
    localStorage.removeItem(STORAGE_KEY);
    messages.replaceChildren();
  }

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
  window.addEventListener("hashchange", render);

  render().then(restore);
})();
