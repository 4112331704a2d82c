// Payload cards (the chat architecture app): a registry of handlers keyed by payload
// type. A page may pass its own handlers, which are looked up first; the global registry
// is next; a type nobody registered gets the generic card, built from its JSON Schema
// (titles and descriptions from the schema, nested objects and lists, enum values as
// labels) and filled in from the typed partial while it streams. Every value from the
// model is put in the page as text (textContent), never as HTML.
//
// A handler: {title(data, type), render(data, ctx), preview(partial, ctx),
// acceptLabel(data, body), options(body) -> the decision's JSON object,
// note(applied) -> what accepting did, in words}; every member but render optional.
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

  /** The handler of `type`: the page's own first, then the global one, then the generic card. */
  function find(type, pageHandlers) {
    if (pageHandlers && Object.prototype.hasOwnProperty.call(pageHandlers, type)) {
      return pageHandlers[type];
    }
    return registry.get(type) || GENERIC;
  }

  // ---- the generic card ----------------------------------------------------------

  // Nesting past this is shown as JSON text: a schema or value may be deep, the page not.
  const MAX_DEPTH = 24;

  /** "table_name" → "Table name". */
  function humanize(key) {
    const words = String(key).replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/[_-]+/g, " ").trim();
    return words ? words.charAt(0).toUpperCase() + words.slice(1).toLowerCase() : String(key);
  }

  /** `schema` with local `$ref`s followed (a bounded number of hops). */
  function resolve(schema, root) {
    let node = schema;
    for (let hops = 0; node && typeof node === "object" && typeof node.$ref === "string" && hops < 32; hops++) {
      const ref = node.$ref;
      if (!ref.startsWith("#")) return {};
      let target = root;
      ref.slice(1).split("/").filter(Boolean).forEach((part) => {
        const key = part.replace(/~1/g, "/").replace(/~0/g, "~");
        target = target && typeof target === "object" ? target[key] : undefined;
      });
      node = target ? Object.assign({}, target, Object.fromEntries(Object.entries(node).filter(([k]) => k !== "$ref"))) : {};
    }
    return node && typeof node === "object" ? node : {};
  }

  function typeOf(value) {
    if (value === null) return "null";
    if (Array.isArray(value)) return "array";
    if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
    return typeof value;
  }

  function allows(schema, value) {
    const t = schema.type;
    if (!t) return true;
    const types = Array.isArray(t) ? t : [t];
    const actual = typeOf(value);
    return types.includes(actual) || (actual === "integer" && types.includes("number"));
  }

  /** The variant of a oneOf/anyOf the value is: the one whose constant tag it carries, else the first of its type. */
  function variant(schema, value, root) {
    const choices = (schema.oneOf || schema.anyOf || []).map((c) => resolve(c, root));
    if (!choices.length) return schema;
    if (value && typeof value === "object" && !Array.isArray(value)) {
      const tagged = choices.find((c) =>
        c.properties && Object.entries(c.properties).some(([k, p]) => {
          const prop = resolve(p, root);
          const constant = prop.const !== undefined ? prop.const : prop.enum && prop.enum.length === 1 ? prop.enum[0] : undefined;
          return constant !== undefined && value[k] === constant;
        })
      );
      if (tagged) return tagged;
    }
    const constant = choices.find((c) => c.const !== undefined && c.const === value) ||
      choices.find((c) => Array.isArray(c.enum) && c.enum.includes(value));
    return constant || choices.find((c) => allows(c, value)) || {};
  }

  function isLabel(schema, value) {
    return (schema.const !== undefined || Array.isArray(schema.enum)) && (typeof value !== "object" || value === null);
  }

  /**
   * The value as nodes, shaped by its schema. A final payload comes from the server as
   * its type keeps it, so all of it is shown; a `draft` (the model's text still
   * streaming) is not, so it shows only the members its schema declares where the
   * schema names them (`properties`), and other members only where the schema lets an
   * object have any (`additionalProperties`, or no `properties` at all).
   */
  function renderValue(value, schema, root, depth, draft) {
    schema = resolve(schema || {}, root);
    if (schema.oneOf || schema.anyOf) {
      const chosen = variant(schema, value, root);
      schema = Object.assign({}, schema, chosen, { oneOf: undefined, anyOf: undefined });
    }
    if (depth > MAX_DEPTH) return el("code", "json", JSON.stringify(value));
    if (value === undefined || value === null) return el("span", "empty", "—");
    if (isLabel(schema, value)) {
      const label = el("span", "label", schema.title && schema.const !== undefined ? schema.title : value);
      if (schema.description) label.title = schema.description;
      return label;
    }
    if (Array.isArray(value)) {
      if (!value.length) return el("span", "empty", "none");
      const list = el("ol", "generic-list");
      const items = resolve(schema.items || {}, root);
      value.forEach((item, i) => {
        const li = el("li");
        const itemSchema = Array.isArray(schema.prefixItems) && schema.prefixItems[i] ? schema.prefixItems[i] : items;
        li.appendChild(renderValue(item, itemSchema, root, depth + 1, draft));
        list.appendChild(li);
      });
      return list;
    }
    if (typeof value === "object") return renderObject(value, schema, root, depth, draft);
    if (typeof value === "boolean") return el("span", "value", value ? "yes" : "no");
    return el("span", "value", value);
  }

  function renderObject(value, schema, root, depth, draft) {
    const props = schema.properties || {};
    const keys = Object.keys(props).filter((k) => Object.prototype.hasOwnProperty.call(value, k));
    const open = !schema.properties || (schema.additionalProperties !== undefined && schema.additionalProperties !== false);
    if (!draft || open) {
      Object.keys(value).forEach((k) => {
        if (!keys.includes(k)) keys.push(k);
      });
    }
    const dl = el("dl", "generic-object");
    if (!keys.length) dl.appendChild(el("span", "empty", "—"));
    keys.forEach((key) => {
      const prop = resolve(props[key] || {}, root);
      const dt = el("dt", null, prop.title || humanize(key));
      dt.dataset.key = key;
      if (prop.description) dt.title = prop.description;
      const dd = el("dd");
      dd.dataset.key = key;
      dd.appendChild(renderValue(value[key], props[key] || {}, root, depth + 1, draft));
      dl.append(dt, dd);
    });
    return dl;
  }

  // A schema's title, or its type's name, in words: a title that is an identifier
  // (schemars writes the Rust type's name, `RecipeProposal`) reads "Recipe proposal".
  function schemaTitle(schema, type) {
    const title = (schema && schema.title) || type;
    return /^[A-Za-z0-9_]+$/.test(title) ? humanize(title) : title;
  }

  const GENERIC = {
    generic: true,
    title: (data, type, ctx) => schemaTitle(ctx && ctx.schema, type),
    render(data, ctx, draft) {
      const body = el("div", "generic");
      const schema = ctx.schema || {};
      if (schema.description) body.appendChild(el("p", "description", schema.description));
      body.appendChild(renderValue(data, schema, schema, 0, !!draft));
      return body;
    },
    preview(partial, ctx) {
      return GENERIC.render(partial, ctx, true);
    },
  };

  // ---- cards -----------------------------------------------------------------------

  const STATE_TEXT = { proposed: "", accepted: "Accepted", dismissed: "Dismissed" };

  /**
   * A card for `payload` ({type, data}). `ctx`: {state, schema, pageHandlers,
   * decide(decision, options) -> Promise of {status, applied}} plus what the app's
   * cards read. Accept and Dismiss appear only with `decide` (the app decides this
   * type on the server) while the payload is proposed.
   */
  function card(payload, ctx) {
    const handler = find(payload.type, ctx.pageHandlers);
    const node = el("div", "card");
    node.dataset.type = payload.type;
    node.dataset.state = ctx.state || "proposed";
    if (handler.generic) node.classList.add("generic-card");
    const head = el("div", "card-head");
    const title = handler.title ? handler.title(payload.data, payload.type, ctx) : payload.type;
    head.appendChild(el("span", "title", title));
    const state = el("span", "state", STATE_TEXT[ctx.state] || "");
    head.appendChild(state);
    node.appendChild(head);
    const bodyCtx = Object.assign({}, ctx);
    const body = el("div", "card-body");
    node.appendChild(body);
    const interactive = !!ctx.decide && (ctx.state || "proposed") === "proposed";
    let actions = null;
    let accept = null;
    const label = () => {
      if (!accept) return;
      accept.textContent = handler.acceptLabel ? handler.acceptLabel(payload.data, body) : "Accept";
      accept.disabled = handler.canAccept ? !handler.canAccept(body) : false;
    };
    bodyCtx.onChange = label;
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
        const options = decision === "accept" && handler.options ? handler.options(body) : {};
        ctx.decide(decision, options).then(
          (result) => setState(result.status, result.applied && handler.note ? handler.note(result.applied) : null),
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

  /** A card for a payload still arriving (`payload_progress`): the partial value so far. */
  function drafting(type, partial, ctx) {
    ctx = ctx || {};
    const handler = find(type, ctx.pageHandlers);
    const node = el("div", "card drafting");
    node.dataset.type = type;
    node.dataset.state = "drafting";
    if (handler.generic) node.classList.add("generic-card");
    const title = handler.title && (partial || handler.generic) ? handler.title(partial || {}, type, ctx) : type;
    node.appendChild(el("div", "card-head", title));
    const body = el("div", "card-body");
    body.appendChild(handler.preview ? handler.preview(partial || {}, ctx) : el("p", "note", "Drafting…"));
    node.appendChild(body);
    return node;
  }

  window.Payloads = { register, find, card, drafting, humanize, el };
})();
