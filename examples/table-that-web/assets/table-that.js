// table.that in the browser: the tables list, a table's rows, its column editor, its
// payload cards (the column diff of a SCHEMA_PROPOSAL, the ticked rows of a
// DATA_PROPOSAL) and its client actions. The chat tray is payload-serve's (chat.js):
// this script tells it where the user is (PayloadChat.setContext), what the cards need
// (the open table's columns), and answers its DOM events (`payload:action`,
// `payload:decided`). Every value from the model is put in the page as text.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const main = $("main");
  const el = Payloads.el;
  const toast = (text) => PayloadChat.toast(text);
  const api = (path, options) => PayloadChat.api(path, options);

  const state = {
    page: "tables_list",
    tableId: null,
    table: null, // {table, columns, rows} of the open table
    filters: {}, // column id -> value, on the table view
    filtersOpen: false,
  };

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

  const CLIENT_ACTIONS = {
    export_csv: exportCsv,
    open_filters: () => {
      if (state.page !== "table_view") toast("Open a table to filter it.");
      else toggleFilters(true);
    },
    open_column_editor: () => {
      if (state.tableId) location.hash = "#/tables/" + state.tableId + "/edit";
    },
  };

  document.addEventListener("payload:action", (event) => {
    const run = CLIENT_ACTIONS[event.detail.action];
    if (run) {
      event.preventDefault();
      run();
    }
  });

  // ---- payload cards ------------------------------------------------------------

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
    acceptLabel(data, body) {
      const ticked = DATA_PROPOSAL.ticked(body).length;
      return "Apply " + ticked + " change" + (ticked === 1 ? "" : "s");
    },
    canAccept: (body) => DATA_PROPOSAL.ticked(body).length > 0,
    // The decision's choices: the operations left ticked.
    options: (body) => ({ rows: DATA_PROPOSAL.ticked(body) }),
    render(data, ctx) {
      const body = el("div");
      if (data.reasoning) body.appendChild(el("p", "reasoning", data.reasoning));
      const rows = (data.operations || []).map((op, index) => {
        const box = el("input");
        box.type = "checkbox";
        box.checked = (ctx.state || "proposed") === "proposed";
        box.disabled = (ctx.state || "proposed") !== "proposed";
        box.dataset.index = String(index);
        box.setAttribute("aria-label", "Apply change " + (index + 1));
        const values = op.data || op.changes || {};
        const detail = Object.entries(values).map(([k, v]) => k + ": " + show(v)).join("; ");
        const target = op.action === "add" ? "new row" : "row " + show(op.row_id);
        const tr = row(op.action, [box, op.action, target, detail]);
        box.addEventListener("change", () => {
          tr.classList.toggle("unticked", !box.checked);
          if (ctx.onChange) ctx.onChange();
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

  // What accepting did, in words: the changes applied, and those skipped or left out
  // with why.
  function appliedNote(applied) {
    const skipped = (applied.skipped || []).map((s) => s.reason);
    const ignored = applied.ignored || [];
    return applied.applied + " change" + (applied.applied === 1 ? "" : "s") + " applied" +
      (skipped.length ? "; skipped: " + skipped.join("; ") : "") +
      (ignored.length ? "; left out: " + ignored.join("; ") : "") + ".";
  }
  SCHEMA_PROPOSAL.note = appliedNote;
  DATA_PROPOSAL.note = appliedNote;

  Payloads.register("schema_proposal", SCHEMA_PROPOSAL);
  Payloads.register("data_proposal", DATA_PROPOSAL);

  // A new table opens once created; any other accepted change shows on the page.
  document.addEventListener("payload:decided", (event) => {
    const { type, data, applied } = event.detail;
    if (!applied) return;
    if (type === "schema_proposal" && data.mode === "create") {
      location.hash = "#/tables/" + applied.table_id;
    } else {
      render();
    }
  });

  // ---- where the user is --------------------------------------------------------

  PayloadChat.setContext(() => {
    const ctx = { current_page: state.page };
    if (state.tableId) ctx.table_id = state.tableId;
    if (Object.keys(state.filters).length) ctx.filters = state.filters;
    return ctx;
  });
  PayloadChat.setCardContext(() => ({ columns: state.table ? state.table.columns : [] }));

  window.addEventListener("hashchange", render);
  render();
})();
