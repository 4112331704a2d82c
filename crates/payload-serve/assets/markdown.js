// Markdown to DOM nodes, for the model's text. The text is untrusted: nothing here
// ever parses it as HTML. Every piece of it becomes a text node (textContent), and the
// only elements made are the ones this file names; a link keeps only an http(s) or
// mailto address. What the renderer does not know stays as the characters written.
"use strict";

(function () {
  const SAFE_LINK = /^(https?:\/\/|mailto:)/i;

  function el(tag, className) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    return node;
  }

  // Inline spans: `code`, **strong** / __strong__, *em* / _em_, [text](url). Anything
  // unmatched is text. Nesting is handled by rendering the inside of strong/em/link
  // recursively (at most 8 deep). The text is read left to right once: every closer an
  // opener looks for is found through tables built in one pass (`nextOf`), never by
  // scanning ahead from each opener, so no run of `[`, `*` or backticks, however long,
  // makes a render slower than linear in the text's length.

  const WORD = /[A-Za-z0-9_]/;
  const SPACE = /\s/;

  /** Whether the UTF-16 unit `code` is one `\s` matches (as a code, not a string). */
  function isSpace(code) {
    return (code >= 9 && code <= 13) || code === 32 || code === 160 || code === 5760 ||
      (code >= 8192 && code <= 8202) || code === 8232 || code === 8233 || code === 8239 ||
      code === 8287 || code === 12288 || code === 65279;
  }

  /** For each index i, the first index >= i whose UTF-16 unit `is` (or -1). */
  function nextOf(text, is) {
    const next = new Int32Array(text.length + 1);
    next[text.length] = -1;
    for (let i = text.length - 1; i >= 0; i--) next[i] = is(text.charCodeAt(i)) ? i : next[i + 1];
    return next;
  }

  /** Each backtick run's closer: the start of the next run of the same length, or -1. */
  function codeClosers(text) {
    const runs = [];
    for (let i = 0; i < text.length; ) {
      if (text[i] !== "`") {
        i++;
        continue;
      }
      let j = i;
      while (j < text.length && text[j] === "`") j++;
      runs.push([i, j - i]);
      i = j;
    }
    const closer = new Map();
    const later = new Map(); // run length -> start of the nearest run of that length to the right
    for (let k = runs.length - 1; k >= 0; k--) {
      const [start, length] = runs[k];
      closer.set(start, later.has(length) ? later.get(length) : -1);
      later.set(length, start);
    }
    return closer;
  }

  function inline(text, into, depth) {
    const n = text.length;
    const star = nextOf(text, (c) => c === 42); // *
    const underscore = nextOf(text, (c) => c === 95); // _
    const closeBracket = nextOf(text, (c) => c === 93 || c === 10); // ] or a line's end
    const urlEnd = nextOf(text, (c) => c === 41 || isSpace(c)); // ) or a space
    let closers = null;
    // The next `cc` (a doubled `c`) at or after `from`, through the table of `c`.
    const nextDouble = (next, from) => {
      let i = from < n ? next[from] : -1;
      while (i !== -1 && i + 1 < n && text[i + 1] !== text[i]) i = next[i + 1];
      return i !== -1 && i + 1 < n ? i : -1;
    };
    // Doubled delimiters are looked for from increasing positions: remember the last
    // answer so a text with no closer is not searched again from every opener.
    const memo = new Map();
    const double = (next, from) => {
      const last = memo.get(next);
      if (last && from >= last.from && (last.at === -1 || from <= last.at)) return last.at;
      const at = nextDouble(next, from);
      memo.set(next, { from, at });
      return at;
    };
    let last = 0;
    let i = 0;
    const emit = (start, end, node) => {
      if (start > last) into.appendChild(document.createTextNode(text.slice(last, start)));
      if (node) into.appendChild(node);
      last = end;
      i = end;
    };
    const nested = (tag, inner, start, end) => {
      if (depth > 8) return emit(start, end, document.createTextNode(text.slice(start, end)));
      const node = el(tag);
      inline(inner, node, depth + 1);
      emit(start, end, node);
    };
    while (i < n) {
      const c = text[i];
      if (c === "`") {
        if (!closers) closers = codeClosers(text);
        let run = i;
        while (run < n && text[run] === "`") run++;
        const close = closers.get(i);
        if (close === undefined || close === -1) {
          i = run; // an unclosed run is text, backticks and all
          continue;
        }
        const code = text.slice(run, close);
        const node = el("code");
        node.textContent = code.trim() === "" ? code : code.replace(/^ (.*) $/s, "$1");
        emit(i, close + (run - i), node);
        continue;
      }
      if ((c === "*" || c === "_") && text[i + 1] === c) {
        const next = c === "*" ? star : underscore;
        const close = double(next, i + 3);
        if (close !== -1) {
          nested("strong", text.slice(i + 2, close), i, close + 2);
          continue;
        }
      }
      if (c === "*" || (c === "_" && (i === 0 || !WORD.test(text[i - 1])))) {
        const first = text[i + 1];
        if (first !== undefined && first !== c && !SPACE.test(first)) {
          const close = (c === "*" ? star : underscore)[i + 2];
          const after = close === -1 ? undefined : text[close + 1];
          if (close !== -1 && (c === "*" || after === undefined || !WORD.test(after))) {
            nested("em", text.slice(i + 1, close), i, close + 1);
            continue;
          }
        }
      }
      if (c === "[") {
        const close = closeBracket[i + 1];
        if (close > i + 1 && text[close] === "]" && text[close + 1] === "(") {
          const end = close + 2 < n ? urlEnd[close + 2] : -1;
          if (end > close + 2 && text[end] === ")") {
            const href = text.slice(close + 2, end);
            if (SAFE_LINK.test(href) && depth <= 8) {
              const node = el("a");
              node.href = href;
              node.rel = "noopener noreferrer nofollow";
              node.target = "_blank";
              inline(text.slice(i + 1, close), node, depth + 1);
              emit(i, end + 1, node);
            } else {
              emit(i, end + 1, document.createTextNode(text.slice(i, end + 1)));
            }
            continue;
          }
        }
      }
      i++;
    }
    if (last < n) into.appendChild(document.createTextNode(text.slice(last)));
  }

  function paragraph(lines, into) {
    const p = el("p");
    lines.forEach((line, i) => {
      if (i > 0) p.appendChild(el("br"));
      inline(line, p, 0);
    });
    into.appendChild(p);
  }

  const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
  const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
  const BULLET = /^ {0,3}[-*+]\s+(.*)$/;
  const NUMBERED = /^ {0,3}(\d{1,9})[.)]\s+(.*)$/;
  const QUOTE = /^ {0,3}>\s?(.*)$/;
  const RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;

  // Blocks, line by line; `depth` bounds blockquote nesting so hostile text cannot
  // recurse without end.
  function blocks(text, into, depth) {
    const lines = text.replace(/\r\n?/g, "\n").split("\n");
    let i = 0;
    let para = [];
    const flush = () => {
      if (para.length) paragraph(para, into);
      para = [];
    };
    while (i < lines.length) {
      const line = lines[i];
      let m;
      if ((m = FENCE.exec(line))) {
        flush();
        const fence = m[1];
        const body = [];
        i++;
        while (i < lines.length && !lines[i].trimStart().startsWith(fence)) body.push(lines[i++]);
        i++; // the closing fence (or the end of a text still streaming)
        const pre = el("pre");
        const code = el("code");
        code.textContent = body.join("\n");
        pre.appendChild(code);
        into.appendChild(pre);
        continue;
      }
      if (line.trim() === "") {
        flush();
        i++;
        continue;
      }
      if (RULE.test(line)) {
        flush();
        into.appendChild(el("hr"));
        i++;
        continue;
      }
      if ((m = HEADING.exec(line))) {
        flush();
        const h = el("h" + Math.min(m[1].length + 2, 6));
        inline(m[2], h, 0);
        into.appendChild(h);
        i++;
        continue;
      }
      if ((m = QUOTE.exec(line)) && depth < 4) {
        flush();
        const quoted = [];
        while (i < lines.length && (m = QUOTE.exec(lines[i]))) {
          quoted.push(m[1]);
          i++;
        }
        const q = el("blockquote");
        blocks(quoted.join("\n"), q, depth + 1);
        into.appendChild(q);
        continue;
      }
      const bullet = BULLET.exec(line);
      const numbered = bullet ? null : NUMBERED.exec(line);
      if (bullet || numbered) {
        flush();
        const ordered = !!numbered;
        const list = el(ordered ? "ol" : "ul");
        if (ordered && numbered[1] !== "1") list.start = Number(numbered[1]);
        while (i < lines.length) {
          const item = ordered ? NUMBERED.exec(lines[i]) : BULLET.exec(lines[i]);
          if (!item) break;
          const li = el("li");
          inline(ordered ? item[2] : item[1], li, 0);
          list.appendChild(li);
          i++;
        }
        into.appendChild(list);
        continue;
      }
      para.push(line);
      i++;
    }
    flush();
  }

  /** The Markdown `text` as a fragment of DOM nodes, safe to insert. */
  function render(text) {
    const fragment = document.createDocumentFragment();
    blocks(String(text), fragment, 0);
    return fragment;
  }

  window.Markdown = { render };
})();
