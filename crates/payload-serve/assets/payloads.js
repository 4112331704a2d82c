// Payload cards (the chat architecture app): a registry of handlers keyed by payload type.
// A page may pass its own handlers, which are looked up first; the global registry is
// the fallback, and a type nobody registered is shown as its JSON. Every value from
// the model is put in the page as text (textContent), never as HTML.
"use strict";

(function () {
  const registry = new Map();

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  /** Registers the global handler of payload `type`. */
  function register(type, handler) {
    registry.set(type, handler);
  }

  /** The handler of `type`: the page's own first, then the global one, then JSON. */
  function find(type, pageHandlers) {
    if (pageHandlers && Object.prototype.hasOwnProperty.call(pageHandlers, type)) {
      return pageHandlers[type];
    }
    return registry.get(type) || JSON_HANDLER;
  }

  const JSON_HANDLER = {
    title: (data, type) => type,
    render(data) {
      return el("pre", "json", JSON.stringify(data, null, 2));
    },
  };

  function show(value) {
    if (value === null || value === undefined) return "";
    if (Array.isArray(value)) return value.map(show).join(", ");
    if (typeof value === "object") return JSON.stringify(value);
    return String(value);
  }

  function tableOf(headers, rows) {
    const table = el("table");
    const head = el("tr");
    headers.forEach((h) => head.appendChild(el("th", null, h)));
    table.appendChild(head);
    rows.forEach((row) => table.appendChild(row));
    return table;
  }

  function row(className, cells) {
    const tr = el("tr", className);
    cells.forEach((cell) => {
      const td = el("td");
      if (cell instanceof Node) td.appendChild(cell);
      else td.textContent = show(cell);
      tr.appendChild(td);
    });
    return tr;
  }

  function columnName(columns, id) {
    const found = (columns || []).find((c) => c.id === id);
    return found ? found.name : id;
  }

  function describeColumn(column) {
    const parts = [column.type || "text"];
    if (column.required) parts.push("required");
    if (Array.isArray(column.options)) parts.push("options: " + column.options.join(", "));
    if (column.filterDisplay) parts.push("filter: " + column.filterDisplay);
    return parts.join("; ");
  }

  // The column diff of a SCHEMA_PROPOSAL: one row per operation, with what changes
  // from the column as it is now (the page passes its columns in `ctx.columns`).
  const SCHEMA_PROPOSAL = {
    title(data) {
      return data.mode === "create"
        ? "New table: " + show(data.table_name || "Untitled")
        : "Change columns";
    },
    acceptLabel: (data) => (data.mode === "create" ? "Create table" : "Apply changes"),
    render(data, ctx) {
      const body = el("div");
      if (data.reasoning) body.appendChild(el("p", "reasoning", data.reasoning));
      if (data.table_description) body.appendChild(el("p", null, data.table_description));
      const rows = (data.operations || []).map((op) => {
        switch (op.action) {
          case "add": {
            const where = op.after_column_id ? " (after " + columnName(ctx.columns, op.after_column_id) + ")" : "";
            return row("add", ["add", (op.column && op.column.name) + where, describeColumn(op.column || {})]);
          }
          case "modify": {
            const before = (ctx.columns || []).find((c) => c.id === op.column_id) || {};
            const changes = Object.entries(op.changes || {}).map(([key, value]) => {
              const was = key === "filterDisplay" ? before.filterDisplay : before[key];
              return key + ": " + (was === undefined || was === null ? "" : show(was) + " → ") + show(value);
            });
            return row("modify", ["change", columnName(ctx.columns, op.column_id), changes.join("; ")]);
          }
          case "remove":
            return row("remove", ["remove", columnName(ctx.columns, op.column_id), ""]);
          case "reorder":
            return row("reorder", ["move", columnName(ctx.columns, op.column_id),
              op.after_column_id ? "after " + columnName(ctx.columns, op.after_column_id) : "to the start"]);
          default:
            return row("", [show(op.action), "", show(op)]);
        }
      });
      body.appendChild(tableOf(["", "Column", "Details"], rows));
      if (Array.isArray(data.sample_rows) && data.sample_rows.length) {
        body.appendChild(el("p", "note", data.sample_rows.length + " sample rows will be added."));
      }
      return body;
    },
    preview(partial) {
      const ops = Array.isArray(partial && partial.operations) ? partial.operations.length : 0;
      return el("p", "note", "Drafting " + (partial && partial.table_name ? "“" + partial.table_name + "”, " : "") + ops + " column change" + (ops === 1 ? "" : "s") + " so far…");
    },
  };

  // The rows of a DATA_PROPOSAL, each with a checkbox: only the ticked ones are applied.
  const DATA_PROPOSAL = {
    title: () => "Row changes",
    acceptLabel: (data, ticked) => "Apply " + ticked + " change" + (ticked === 1 ? "" : "s"),
    render(data, ctx) {
      const body = el("div");
      if (data.reasoning) body.appendChild(el("p", "reasoning", data.reasoning));
      const rows = (data.operations || []).map((op, index) => {
        const box = el("input");
        box.type = "checkbox";
        box.checked = ctx.state === "proposed";
        box.disabled = ctx.state !== "proposed";
        box.dataset.index = String(index);
        box.setAttribute("aria-label", "Apply change " + (index + 1));
        const values = op.data || op.changes || {};
        const detail = Object.entries(values).map(([k, v]) => k + ": " + show(v)).join("; ");
        const target = op.action === "add" ? "new row" : "row " + show(op.row_id);
        const tr = row(op.action, [box, op.action, target, detail]);
        box.addEventListener("change", () => {
          tr.classList.toggle("unticked", !box.checked);
          if (ctx.onTicked) ctx.onTicked();
        });
        return tr;
      });
      body.appendChild(tableOf(["", "", "Row", "Values"], rows));
      return body;
    },
    // The indices of the operations left ticked.
    ticked(body) {
      return Array.from(body.querySelectorAll("input[type=checkbox]"))
        .filter((box) => box.checked)
        .map((box) => Number(box.dataset.index));
    },
    preview(partial) {
      const ops = Array.isArray(partial && partial.operations) ? partial.operations.length : 0;
      return el("p", "note", "Drafting " + ops + " row change" + (ops === 1 ? "" : "s") + " so far…");
    },
  };

  register("schema_proposal", SCHEMA_PROPOSAL);
  register("data_proposal", DATA_PROPOSAL);

  const STATE_TEXT = { proposed: "", accepted: "Applied", dismissed: "Dismissed" };

  /**
   * A card for `payload` ({type, data}). `ctx`: {state, columns, pageHandlers,
   * decide(decision, rows) -> Promise}. Interactive handlers get Accept and Dismiss
   * buttons while the payload is proposed.
   */
  function card(payload, ctx) {
    const handler = find(payload.type, ctx.pageHandlers);
    const node = el("div", "card");
    node.dataset.type = payload.type;
    node.dataset.state = ctx.state || "proposed";
    const head = el("div", "card-head");
    const title = handler.title ? handler.title(payload.data, payload.type) : payload.type;
    head.appendChild(el("span", "title", title));
    const state = el("span", "state", STATE_TEXT[ctx.state] || "");
    head.appendChild(state);
    node.appendChild(head);
    const bodyCtx = Object.assign({}, ctx);
    const body = el("div", "card-body");
    node.appendChild(body);
    // Only a payload still proposed can be decided; a restored, decided one shows its state.
    const interactive = !!ctx.decide && handler !== JSON_HANDLER && (ctx.state || "proposed") === "proposed";
    let actions = null;
    let accept = null;
    const label = () => {
      if (!accept) return;
      const ticked = handler.ticked ? handler.ticked(body).length : null;
      accept.textContent = handler.acceptLabel ? handler.acceptLabel(payload.data, ticked) : "Accept";
      accept.disabled = ticked === 0;
    };
    bodyCtx.onTicked = label;
    body.appendChild(handler.render(payload.data, bodyCtx));
    const setState = (value, note) => {
      node.dataset.state = value;
      state.textContent = STATE_TEXT[value] || "";
      node.classList.toggle("decided", value !== "proposed");
      body.querySelectorAll("input").forEach((input) => (input.disabled = value !== "proposed"));
      if (value !== "proposed" && actions) {
        actions.remove();
        actions = null;
      }
      if (note) body.appendChild(el("p", "note", note));
    };
    if (interactive) {
      actions = el("div", "card-actions");
      accept = el("button", "primary accept");
      accept.type = "button";
      const dismiss = el("button", "dismiss", "Dismiss");
      dismiss.type = "button";
      actions.appendChild(accept);
      actions.appendChild(dismiss);
      node.appendChild(actions);
      label();
      const decideWith = (decision) => {
        accept.disabled = true;
        dismiss.disabled = true;
        const rows = decision === "accept" && handler.ticked ? handler.ticked(body) : undefined;
        ctx.decide(decision, rows).then(
          (result) => setState(result.status, result.note),
          (error) => {
            body.appendChild(el("p", "note warn", String(error.message || error)));
            accept.disabled = false;
            dismiss.disabled = false;
            label();
          }
        );
      };
      accept.addEventListener("click", () => decideWith("accept"));
      dismiss.addEventListener("click", () => decideWith("dismiss"));
    }
    setState(ctx.state || "proposed");
    return node;
  }

  /** A card for a payload still arriving (`payload_progress`). */
  function drafting(type, partial, pageHandlers) {
    const handler = find(type, pageHandlers);
    const node = el("div", "card drafting");
    node.dataset.type = type;
    node.dataset.state = "drafting";
    node.appendChild(el("div", "card-head", handler.title && partial ? handler.title(partial, type) : type));
    const body = el("div", "card-body");
    body.appendChild(handler.preview ? handler.preview(partial || {}) : el("p", "note", "Drafting…"));
    node.appendChild(body);
    return node;
  }

  window.Payloads = { register, find, card, drafting };
})();
