// The page's Markdown renderer run by Node on a small stand-in for the DOM: what it
// makes of ordinary text, and that hostile runs of `[`, `*`, `_` and backticks render
// in time linear in their length. Linear is checked by the ratio of the times of the
// same text at n and 8n characters, measured in this run, never by an absolute time:
// under 32, where linear gives about 8 and quadratic 64 (the margin is for caches a
// larger text no longer fits, and for a machine shared with other work). Prints
// "N passed, N failed"; exits 1 on a failure.
"use strict";

const path = require("path");

class Element {
  constructor(tag) {
    this.tag = tag;
    this.children = [];
    this.own = null;
  }
  appendChild(child) {
    this.children.push(child);
    return child;
  }
  set textContent(text) {
    this.own = String(text);
    this.children = [];
  }
  get textContent() {
    return this.own !== null ? this.own : this.children.map((c) => c.textContent).join("");
  }
  // A compact serialization: <tag>children</tag>, text as is, a link with its href.
  get html() {
    const inner = this.own !== null ? this.own : this.children.map((c) => c.html).join("");
    if (this.tag === "#fragment") return inner;
    const href = this.tag === "a" ? ` href="${this.href}"` : "";
    return `<${this.tag}${href}>${inner}</${this.tag}>`;
  }
}

class Text {
  constructor(text) {
    this.text = String(text);
  }
  get textContent() {
    return this.text;
  }
  get html() {
    return this.text;
  }
}

global.document = {
  createElement: (tag) => new Element(tag),
  createTextNode: (text) => new Text(text),
  createDocumentFragment: () => new Element("#fragment"),
};
global.window = {};
require(path.join(__dirname, "../../assets/markdown.js"));
const render = (text) => window.Markdown.render(text).html;

let passed = 0;
let failed = 0;
function check(name, ok, detail) {
  if (ok) {
    passed++;
  } else {
    failed++;
    console.log(`FAILED ${name}: ${detail}`);
  }
}

// What ordinary text becomes.
const cases = [
  ["**bold** and *em* and _em_", "<p><strong>bold</strong> and <em>em</em> and <em>em</em></p>"],
  ["__strong__ a_b_c", "<p><strong>strong</strong> a_b_c</p>"],
  ["`a **b**` and ``x ` y``", "<p><code>a **b**</code> and <code>x ` y</code></p>"],
  ["``unclosed `and` ", "<p>``unclosed <code>and</code> </p>"],
  ["[site](https://example.com/a) [bad](javascript:x)", '<p><a href="https://example.com/a">site</a> [bad](javascript:x)</p>'],
  ["[[nested [text](https://e.com)", '<p><a href="https://e.com">[nested [text</a></p>'],
  ["[a **b**](mailto:x@y.z)", '<p><a href="mailto:x@y.z">a <strong>b</strong></a></p>'],
  ["* not em * and ** x", "<ul><li>not em * and ** x</li></ul>"],
  ["# Title\n\n- one\n- two", "<h3>Title</h3><ul><li>one</li><li>two</li></ul>"],
];
for (const [text, want] of cases) {
  const got = render(text);
  check(`renders ${JSON.stringify(text)}`, got === want, `${got} instead of ${want}`);
}

// Hostile texts of n characters (about).
function ticks(n) {
  // Backtick runs of lengths 1, 2, 3, ...: no run has a closer.
  let s = "";
  for (let k = 1; s.length < n; k++) s += "`".repeat(k) + "a";
  return s;
}
const families = {
  "a run of [": (n) => "[".repeat(n),
  "[a]( repeated": (n) => "[a](".repeat(n / 4),
  "[a] repeated": (n) => "[a]".repeat(n / 3),
  "backtick runs of growing length": ticks,
  "one backtick run": (n) => "`".repeat(n),
  "**a repeated": (n) => "**a".repeat(n / 3),
  "*a repeated": (n) => "*a".repeat(n / 2),
  "_a_b repeated": (n) => "_a_b".repeat(n / 4),
  "__ repeated": (n) => "__".repeat(n / 2) + "a",
  "one line of everything": (n) => "[*_`](".repeat(n / 6),
};

// The fastest of up to 7 renders (fewer when they are slow: a quadratic renderer is
// caught by its first).
function fastest(text) {
  let best = Infinity;
  let spent = 0;
  for (let k = 0; k < 7 && spent < 2e9; k++) {
    const start = process.hrtime.bigint();
    render(text);
    const took = Number(process.hrtime.bigint() - start);
    best = Math.min(best, took);
    spent += took;
  }
  return best;
}

// Timed renders build into nodes that keep nothing, so the times are the renderer's
// and not the garbage collector's walks over a growing tree.
class Sink {
  appendChild(child) {
    return child;
  }
  set textContent(text) {}
}
const recording = global.document;
const sink = {
  createElement: () => new Sink(),
  createTextNode: () => null,
  createDocumentFragment: () => new Sink(),
};
global.document = sink;

const n = 25000;
for (const [name, make] of Object.entries(families)) {
  const small = make(n);
  const large = make(8 * n);
  fastest(small); // warm up the compiler
  // Measured up to three times: a busy machine can slow one measure, never all three
  // down to a quadratic's ratio.
  let ratio = Infinity;
  for (let attempt = 0; attempt < 3 && ratio >= 32; attempt++) {
    ratio = Math.min(ratio, fastest(large) / Math.max(fastest(small), 1));
  }
  if (process.env.VERBOSE) console.log(name, ratio.toFixed(2));
  check(`${name} renders in linear time`, ratio < 32, `8x the text took ${ratio.toFixed(1)}x the time`);
}

global.document = recording;

// The text: 200,000 `[` render, every one of them kept as text.
const brackets = "[".repeat(200000);
check("200,000 [ are kept", window.Markdown.render(brackets).textContent === brackets, "the text changed");

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
