//! Markdown responses: a header per field (`## Task`, any level, the field name in any
//! case or with spaces), lists for arrays, code fences for strings, and bold lines as
//! models write them instead of headers: `**Field:** value`, or a line that is only
//! bold text (`**Confidence**`, `**Confidence:**`) with the value below (docs/spec.md §4.6).
//! A bold line counts only when it names a field: bold text inside a value is
//! emphasis, and splitting a value there would lose it.
//!
//! Markdown has no end marker: the last section runs to the end of the text, so it may
//! have been cut (`possibly_truncated`, [`super::ending`]) unless its content ends with
//! a closed code fence or the whole response is a fenced block whose fence closes.
//!
//! Hand-written rather than a CommonMark parser (pulldown-cmark): only ATX headers,
//! fences and the `**Field:**` convention matter here, a header's content must be the
//! raw text below it (lists and code kept as written, for [`super::convert`] to read),
//! and a bold line counts only when it names a field of the schema, which a generic
//! parser cannot know. One pass over the lines; nesting is at most seven levels.

use super::convert::Converter;
use super::ending::{Cut, Reading};
use super::node::{
    Node, fold, lines_with_offsets, splice_unknown, strip_list_marker, unwrap_fence,
};
use super::options::known_names;
use super::{Format, FormatRead};
use crate::fence;
use serde_json::Value;
use std::collections::HashSet;

/// The level given to `**Field:**` lines: below every header.
const BOLD_LEVEL: usize = 7;

/// If `line` is an ATX header, its level and text (without `#`s, a trailing colon,
/// bold markers or a leading number).
pub(crate) fn header(line: &str) -> Option<(usize, &str)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let level = rest.bytes().take_while(|b| *b == b'#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let after = &rest[level..];
    if !after.is_empty() && !after.starts_with([' ', '\t']) {
        return None;
    }
    let mut text = after.trim().trim_end_matches('#').trim();
    text = text.trim_end_matches(':').trim();
    for wrap in ["**", "__", "*", "_", "`"] {
        if let Some(inner) = text.strip_prefix(wrap).and_then(|t| t.strip_suffix(wrap)) {
            text = inner.trim();
        }
    }
    text = text.trim_end_matches(':').trim();
    if let Some(rest) = strip_list_marker(text).filter(|r| !r.is_empty()) {
        text = rest;
    }
    Some((level, text))
}

/// If `line` is a `**Field:** value` line, or a line that is only bold text
/// (`**Field**`, `**Field:**`), naming a known field: the name and the value's byte
/// offset within the line (the line's end when the value is below it).
pub(crate) fn bold_field<'l>(line: &'l str, known: &HashSet<String>) -> Option<(&'l str, usize)> {
    let trimmed = line.trim_start();
    let body = strip_list_marker(trimmed).unwrap_or(trimmed);
    let body_start = line.len() - body.len() + (body.len() - body.trim_start().len());
    let body = body.trim_start();
    for wrap in ["**", "__"] {
        let Some(inner) = body.strip_prefix(wrap) else {
            continue;
        };
        let close = inner.find(wrap)?;
        let label = &inner[..close];
        let after = &inner[close + wrap.len()..];
        let (name, value_at) = if let Some(name) = label.trim_end().strip_suffix(':') {
            (name.trim(), wrap.len() + close + wrap.len())
        } else if let Some(rest) = after.strip_prefix(':') {
            (
                label.trim(),
                wrap.len() + close + wrap.len() + (after.len() - rest.len()),
            )
        } else if after.trim().is_empty() {
            (label.trim(), body.len())
        } else {
            return None;
        };
        if known.contains(&fold(name)) {
            return Some((name, body_start + value_at));
        }
        return None;
    }
    None
}

/// Reads `text` into a document node of header sections (and bold field lines), with
/// the sections the text ends inside marked cut.
#[cfg(test)]
pub(crate) fn read_sections(text: &str, known: &HashSet<String>) -> Node {
    read(text, known).0.doc
}

/// The sections, and whether a fence around the whole response closes (its end is
/// visible).
fn read(text: &str, known: &HashSet<String>) -> (Reading, bool) {
    let (body, base) = unwrap_fence(text, &["markdown", "md"]);
    // A fence around the whole response that closes is its end marker.
    let fence_closed = base + body.len() < text.len();
    let mut stack: Vec<(usize, Node)> = vec![(0, Node::named("", 0))];
    let mut fences = fence::Tracker::new();
    for (line, offset) in lines_with_offsets(body) {
        let offset = base + offset;
        let found = if fences.line(line) {
            None
        } else if let Some((level, name)) = header(line) {
            Some((level, name, ""))
        } else {
            bold_field(line, known).map(|(name, at)| (BOLD_LEVEL, name, &line[at..]))
        };
        match found {
            Some((level, name, rest)) => {
                while stack.len() > 1 && stack.last().is_some_and(|(l, _)| *l >= level) {
                    pop(&mut stack, offset);
                }
                let mut node = Node::named(name, offset);
                if !rest.trim().is_empty() {
                    node.text.push_str(rest.trim());
                    node.text.push('\n');
                }
                stack.push((level, node));
            }
            None => {
                if let Some((_, top)) = stack.last_mut() {
                    top.text.push_str(line);
                    top.text.push('\n');
                }
            }
        }
    }
    // The sections still open run to the end of the text; the innermost one did not
    // if its content ends by closing a code fence.
    let end = base + body.len();
    let mut innermost = true;
    while stack.len() > 1 {
        if let Some((_, node)) = stack.last_mut() {
            let closed = fence_closed || innermost && ends_with_closed_fence(&node.text);
            node.cut = !closed;
        }
        innermost = false;
        pop(&mut stack, end);
    }
    let mut doc = stack.pop().map(|(_, n)| n).unwrap_or_default();
    doc.end = text.len();
    doc.seal();
    let reading = Reading {
        doc,
        cut: Cut::Possible,
    };
    (reading, fence_closed)
}

/// Whether `text`'s last non-blank line closes a code fence opened in `text`.
fn ends_with_closed_fence(text: &str) -> bool {
    let mut fences = fence::Tracker::new();
    let mut closed_last = false;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let was_open = fences.is_open();
        fences.line(line);
        closed_last = was_open && !fences.is_open();
    }
    closed_last
}

fn pop(stack: &mut Vec<(usize, Node)>, end: usize) {
    if let Some((_, mut node)) = stack.pop() {
        node.end = end;
        node.seal();
        if let Some((_, parent)) = stack.last_mut() {
            parent.children.push(node);
        }
    }
}

/// Parses a markdown response into a value of `schema`, with what was noticed on the
/// way.
pub fn parse(text: &str, schema: &Value) -> FormatRead {
    let known = known_names(schema);
    let (mut reading, fence_closed) = read(text, &known);
    splice_unknown(&mut reading.doc, &known);
    let doc = &reading.doc;
    Converter::new(Format::Markdown, schema, text)
        .judging(reading.cut)
        .finish(doc, doc.children.is_empty(), !fence_closed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_in_the_ways_models_write_them() {
        assert_eq!(header("## Task"), Some((2, "Task")));
        assert_eq!(header("### **Confidence:**"), Some((3, "Confidence")));
        assert_eq!(header("# 1. Steps #"), Some((1, "Steps")));
        assert_eq!(header("#hashtag"), None);
        assert_eq!(header("    ## code"), None);
    }

    #[test]
    fn bold_lines_count_only_for_known_fields() {
        let known = HashSet::from(["confidence".to_string()]);
        let line = "**Confidence:** 0.9";
        let (name, at) = bold_field(line, &known).unwrap();
        assert_eq!((name, &line[at..]), ("Confidence", " 0.9"));
        let line = "- **Confidence**: 0.9";
        let (_, at) = bold_field(line, &known).unwrap();
        assert_eq!(line[at..].trim(), "0.9");
        assert_eq!(bold_field("**Buy:** now", &known), None);
    }

    #[test]
    fn a_line_of_only_bold_text_naming_a_field_is_a_header() {
        let known = HashSet::from(["confidence".to_string()]);
        for line in [
            "**Confidence**",
            "**Confidence:**",
            "**Confidence**:",
            "__Confidence__  ",
        ] {
            let (name, at) = bold_field(line, &known).unwrap();
            assert_eq!((name, line[at..].trim()), ("Confidence", ""), "{line}");
        }
        assert_eq!(bold_field("**Confidence** is high", &known), None);
        assert_eq!(bold_field("**Important**", &known), None);
    }

    #[test]
    fn open_sections_at_the_end_are_cut_unless_a_fence_closes_them() {
        let known = HashSet::new();
        let cut = |text: &str| -> Vec<(String, bool)> {
            let doc = read_sections(text, &known);
            let mut out = Vec::new();
            let mut stack = vec![&doc];
            while let Some(node) = stack.pop() {
                out.push((node.name.clone(), node.cut));
                stack.extend(node.children.iter().rev());
            }
            out
        };
        let pairs = |v: &[(&str, bool)]| -> Vec<(String, bool)> {
            v.iter().map(|(n, c)| (n.to_string(), *c)).collect()
        };
        assert_eq!(
            cut("## A
x
## B
### C
y"),
            pairs(&[("", false), ("A", false), ("B", true), ("C", true)])
        );
        assert_eq!(
            cut("## A
```
x
```
"),
            pairs(&[("", false), ("A", false)])
        );
        assert_eq!(
            cut("```md
## A
x
```
bye"),
            pairs(&[("", false), ("A", false)])
        );
        assert_eq!(
            cut("```md
## A
x"),
            pairs(&[("", false), ("A", true)])
        );
    }

    #[test]
    fn headers_inside_code_fences_are_text() {
        let known = HashSet::new();
        let doc = read_sections("## Code\n```bash\n# not a header\n```\n## Next\nx", &known);
        let names: Vec<&str> = doc.children.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["Code", "Next"]);
        assert!(doc.children[0].text.contains("# not a header"));
    }

    #[test]
    fn tilde_and_long_fences_hide_headers_until_a_long_enough_closer() {
        let known = HashSet::new();
        for text in [
            "## Code\n~~~bash\n# not a header\n~~~\n## Next\nx",
            "## Code\n````text\n```\n# not a header\n```\n````\n## Next\nx",
        ] {
            let doc = read_sections(text, &known);
            let names: Vec<&str> = doc.children.iter().map(|c| c.name.as_str()).collect();
            assert_eq!(names, ["Code", "Next"], "{text:?}");
        }
    }
}
