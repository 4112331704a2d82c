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

  // Inline spans: `code`, **strong**, *em* / _em_, [text](url). Anything unmatched is
  // text. Nesting is handled by rendering the inside of strong/em/link recursively.
  const INLINE = /(`+)([\s\S]*?[^`])\1(?!`)|\*\*([\s\S]+?)\*\*|__([\s\S]+?)__|\*([^*\s][^*]*?)\*|(?<![\w])_([^_\s][^_]*?)_(?![\w])|\[([^\]\n]+)\]\(([^)\s]+)\)/g;

  function inline(text, into, depth) {
    let last = 0;
    INLINE.lastIndex = 0;
    let match;
    while ((match = INLINE.exec(text)) !== null) {
      if (match.index > last) into.appendChild(document.createTextNode(text.slice(last, match.index)));
      last = INLINE.lastIndex;
      const [whole, , code, strong1, strong2, em1, em2, linkText, href] = match;
      if (code !== undefined) {
        const node = el("code");
        node.textContent = code.trim() === "" ? code : code.replace(/^ (.*) $/s, "$1");
        into.appendChild(node);
      } else if (depth > 8) {
        into.appendChild(document.createTextNode(whole));
      } else if (strong1 !== undefined || strong2 !== undefined) {
        const node = el("strong");
        inline(strong1 !== undefined ? strong1 : strong2, node, depth + 1);
        into.appendChild(node);
      } else if (em1 !== undefined || em2 !== undefined) {
        const node = el("em");
        inline(em1 !== undefined ? em1 : em2, node, depth + 1);
        into.appendChild(node);
      } else if (linkText !== undefined) {
        if (SAFE_LINK.test(href)) {
          const node = el("a");
          node.href = href;
          node.rel = "noopener noreferrer nofollow";
          node.target = "_blank";
          inline(linkText, node, depth + 1);
          into.appendChild(node);
        } else {
          into.appendChild(document.createTextNode(whole));
        }
      }
      // The regex state is shared with the recursive calls: restore it.
      INLINE.lastIndex = last;
    }
    if (last < text.length) into.appendChild(document.createTextNode(text.slice(last)));
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
