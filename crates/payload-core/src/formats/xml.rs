//! XML responses, read by a small tolerant reader.
//!
//! Why not quick-xml, roxmltree or xmlparser: they are right to reject malformed XML,
//! and malformed XML is the common case in model output: a bare `&` in prose
//! (`R&D`), a forgotten close tag, prose before and after the root, a ```` ```xml ````
//! fence, `<Task>...</task>` with mismatched case. A reader that stops at the first
//! such error returns nothing, where a person reads the answer without trouble. What
//! this reader does instead, in one forward pass with an explicit stack:
//!
//! - `<` that does not start a well-formed tag is text; `&` that is not a known entity
//!   (`&amp; &lt; &gt; &quot; &apos; &nbsp; &#..;`) is text.
//! - a close tag closes the nearest open element of that name (any case), and every
//!   element opened inside it; a close tag nothing matches is dropped.
//! - an element left open whose own text came before its first child
//!   (`<task>Parse files` followed by `<confidence>`) was a leaf the model forgot to
//!   close: its children move up to its parent.
//! - comments, `<?...?>` and `<!DOCTYPE>` are skipped; CDATA is text.
//! - nesting deeper than 128 elements is text, so nothing can overflow.
//!
//! Tagged content (`<TASK>...</TASK>` without a root) is the same reader with a
//! different choice of where the fields are; see [`super::tagged`].

use super::convert::Converter;
use super::node::{Node, fold};
use super::options::{self, field_names};
use super::{Format, FormatFailure};
use serde_json::Value;

/// How deep elements may nest before further open tags are read as text.
pub(crate) const MAX_DEPTH: usize = 128;

/// One open element while reading: the node and how much text it had when its first
/// child arrived.
struct Open {
    node: Node,
    lead: Option<usize>,
}

/// Reads `text` into a document node whose children are the top-level elements and
/// whose text is the prose around them.
pub(crate) fn read_forest(text: &str) -> Node {
    read_forest_checked(text).0
}

/// [`read_forest`], and whether elements nested past [`MAX_DEPTH`] (read as text), which
/// the readers report as a `parsing` error.
pub(crate) fn read_forest_checked(text: &str) -> (Node, bool) {
    let mut too_deep = false;
    let bytes = text.as_bytes();
    let mut stack: Vec<Open> = vec![Open {
        node: Node::named("", 0),
        lead: None,
    }];
    let mut i = 0;
    while i < bytes.len() {
        let Some(rel) = memchr::memchr(b'<', &bytes[i..]) else {
            push_text(&mut stack, &decode_entities(&text[i..]));
            break;
        };
        let j = i + rel;
        if j > i {
            push_text(&mut stack, &decode_entities(&text[i..j]));
        }
        let rest = &text[j..];
        if rest.starts_with("<!--") {
            i = find_after(text, j + 4, "-->");
        } else if let Some(body) = rest.strip_prefix("<![CDATA[") {
            let end = body.find("]]>").map_or(body.len(), |e| e);
            push_text(&mut stack, &body[..end]);
            i = (j + 9 + end + 3).min(text.len());
        } else if rest.starts_with("<?") {
            i = find_after(text, j + 2, "?>");
        } else if rest.starts_with("<!") {
            i = find_after(text, j + 2, ">");
        } else if let Some((tag, end)) = read_tag(text, j) {
            i = end;
            match tag {
                Tag::Close(name) => close(&mut stack, &name),
                Tag::Open { name, attrs, empty } => {
                    if stack.len() > MAX_DEPTH {
                        too_deep = true;
                        push_text(&mut stack, &text[j..end]);
                        continue;
                    }
                    let mut node = Node::named(name, j);
                    node.attrs = attrs;
                    if empty {
                        add_child(&mut stack, node);
                    } else {
                        stack.push(Open { node, lead: None });
                    }
                }
            }
        } else {
            push_text(&mut stack, "<");
            i = j + 1;
        }
    }
    while stack.len() > 1 {
        pop_unclosed(&mut stack);
    }
    (stack.pop().map(|o| o.node).unwrap_or_default(), too_deep)
}

/// The byte just after the next `pattern` at or after `from`, or the end of the text
/// (an unclosed comment or CDATA runs to the end, which keeps every search linear).
fn find_after(text: &str, from: usize, pattern: &str) -> usize {
    let from = from.min(text.len());
    text[from..]
        .find(pattern)
        .map_or(text.len(), |p| from + p + pattern.len())
}

fn push_text(stack: &mut [Open], text: &str) {
    if let Some(top) = stack.last_mut() {
        top.node.text.push_str(text);
    }
}

fn add_child(stack: &mut [Open], node: Node) {
    if let Some(top) = stack.last_mut() {
        if top.lead.is_none() {
            top.lead = Some(top.node.text.len());
        }
        top.node.children.push(node);
    }
}

/// Closes the nearest open element named `name` (any case) and everything opened
/// inside it; a close tag that matches nothing is dropped.
fn close(stack: &mut Vec<Open>, name: &str) {
    let Some(k) = (1..stack.len())
        .rev()
        .find(|&k| stack[k].node.name.eq_ignore_ascii_case(name))
    else {
        return;
    };
    while stack.len() > k + 1 {
        pop_unclosed(stack);
    }
    if let Some(open) = stack.pop() {
        add_child(stack, open.node);
    }
}

/// Pops an element that was never closed. If it had text of its own before its first
/// child, it was a leaf: the children belong to its parent.
fn pop_unclosed(stack: &mut Vec<Open>) {
    let Some(mut open) = stack.pop() else { return };
    match open.lead {
        Some(lead) if !open.node.text[..lead].trim().is_empty() => {
            let children = std::mem::take(&mut open.node.children);
            open.node.text.truncate(lead);
            add_child(stack, open.node);
            for child in children {
                add_child(stack, child);
            }
        }
        _ => add_child(stack, open.node),
    }
}

enum Tag {
    Open {
        name: String,
        attrs: Vec<(String, String)>,
        empty: bool,
    },
    Close(String),
}

fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':')
}

/// Reads a tag starting at the `<` at `start`: the tag and the byte after its `>`.
/// Gives up (the `<` is text) at anything a tag cannot contain, including another `<`,
/// so a failed attempt never scans past the next `<`.
fn read_tag(text: &str, start: usize) -> Option<(Tag, usize)> {
    let bytes = text.as_bytes();
    let mut i = start + 1;
    let closing = bytes.get(i) == Some(&b'/');
    if closing {
        i += 1;
    }
    let name_start = i;
    if !bytes.get(i).copied().is_some_and(is_name_start) {
        return None;
    }
    while bytes.get(i).copied().is_some_and(is_name_byte) {
        i += 1;
    }
    let full = &text[name_start..i];
    let name = full.rsplit(':').next().unwrap_or(full).to_string();
    if closing {
        while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        return (bytes.get(i) == Some(&b'>')).then(|| (Tag::Close(name), i + 1));
    }
    let mut attrs = Vec::new();
    loop {
        while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        match bytes.get(i)? {
            b'>' => {
                return Some((
                    Tag::Open {
                        name,
                        attrs,
                        empty: false,
                    },
                    i + 1,
                ));
            }
            b'/' if bytes.get(i + 1) == Some(&b'>') => {
                return Some((
                    Tag::Open {
                        name,
                        attrs,
                        empty: true,
                    },
                    i + 2,
                ));
            }
            b if is_name_start(*b) => {
                let attr_start = i;
                while bytes.get(i).copied().is_some_and(is_name_byte) {
                    i += 1;
                }
                let attr_name = text[attr_start..i].to_string();
                while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
                    i += 1;
                }
                if bytes.get(i) != Some(&b'=') {
                    attrs.push((attr_name, String::new()));
                    continue;
                }
                i += 1;
                while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
                    i += 1;
                }
                let value = match bytes.get(i)? {
                    q @ (b'"' | b'\'') => {
                        let from = i + 1;
                        let len = bytes[from..].iter().position(|b| b == q || *b == b'<')?;
                        if bytes[from + len] == b'<' {
                            return None;
                        }
                        i = from + len + 1;
                        &text[from..from + len]
                    }
                    _ => {
                        let from = i;
                        while bytes.get(i).is_some_and(|b| {
                            !b.is_ascii_whitespace() && !matches!(b, b'>' | b'<' | b'/')
                        }) {
                            i += 1;
                        }
                        &text[from..i]
                    }
                };
                attrs.push((attr_name, decode_entities(value)));
            }
            _ => return None,
        }
    }
}

/// Decodes the five XML entities, `&nbsp;` and character references; anything else
/// that starts with `&` (a bare ampersand in prose) is kept as written.
pub(crate) fn decode_entities(text: &str) -> String {
    if !text.contains('&') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        // The window is cut by bytes (a character may straddle its end); `;` is ASCII,
        // so the entity before it is whole characters.
        let window = &rest.as_bytes()[1..rest.len().min(12)];
        let decoded = memchr::memchr(b';', window).and_then(|semi| {
            let entity = &rest[1..1 + semi];
            let ch = match entity {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some('\u{a0}'),
                _ => entity.strip_prefix('#').and_then(|num| {
                    let code = match num.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok(),
                        None => num.parse().ok(),
                    };
                    code.and_then(char::from_u32)
                }),
            };
            ch.map(|c| (c, semi + 2))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The element that holds the fields: the `root-element` the schema names, else the
/// document itself when fields are top-level elements (no root), else the first
/// top-level element with a field among its children, else the first element with
/// children.
pub(crate) fn choose_root<'a>(doc: &'a Node, root: &Value, format: Format) -> &'a Node {
    let wanted = options::global_opt(root, root, format, "root-element")
        .and_then(Value::as_str)
        .map(fold);
    if let Some(wanted) = &wanted {
        if let Some(found) = doc.children.iter().find(|c| &fold(&c.name) == wanted) {
            return found;
        }
    }
    let names = root_field_names(root, format);
    let is_field = |n: &Node| names.contains(&fold(&n.name));
    if doc.children.iter().any(is_field) {
        return doc;
    }
    if let Some(found) = doc
        .children
        .iter()
        .find(|c| c.children.iter().any(is_field))
    {
        return found;
    }
    doc.children
        .iter()
        .find(|c| !c.children.is_empty())
        .or(doc.children.first())
        .unwrap_or(doc)
}

/// The folded names of the root schema's properties in `format`.
pub(crate) fn root_field_names(root: &Value, format: Format) -> Vec<String> {
    let schema = crate::schema_walk::resolve(root, root);
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|props| {
            props
                .keys()
                .flat_map(|k| {
                    let mut names = field_names(root, schema, k, format);
                    names.extend(options::item_names(root, schema, k, format));
                    names
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Parses an XML response into a value of `schema`.
pub(crate) fn parse(text: &str, schema: &Value) -> Result<Value, FormatFailure> {
    let (doc, too_deep) = read_forest_checked(text);
    let root = choose_root(&doc, schema, Format::Xml);
    let result = Converter::new(Format::Xml, schema, text).finish(root, doc.children.is_empty());
    if too_deep {
        return Err(crate::limits::fail_too_deep(result));
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(node: &Node) -> Vec<&str> {
        node.children.iter().map(|c| c.name.as_str()).collect()
    }

    #[test]
    fn an_ampersand_before_wide_characters_is_text() {
        // The entity window ends inside a multi-byte character.
        assert_eq!(decode_entities("&|{\\ꩌஜ𞺁 x"), "&|{\\ꩌஜ𞺁 x");
        assert_eq!(decode_entities("a &amp;ஜஜஜஜ b"), "a &ஜஜஜஜ b");
    }

    #[test]
    fn reads_elements_attributes_cdata_and_entities() {
        let doc = read_forest(
            "<r id=\"7\" kind='a &amp; b'><a>x &lt; y &#65;&#x42;</a><b><![CDATA[<raw> & ]]></b><c/></r>",
        );
        let r = &doc.children[0];
        assert_eq!(
            r.attrs,
            [("id".into(), "7".into()), ("kind".into(), "a & b".into())]
        );
        assert_eq!(names(r), ["a", "b", "c"]);
        assert_eq!(r.children[0].text, "x < y AB");
        assert_eq!(r.children[1].text, "<raw> & ");
    }

    #[test]
    fn bare_ampersands_and_stray_angles_are_text() {
        let doc = read_forest("<a>R&D costs < 5% & falling; a<<b</a>");
        assert_eq!(doc.children[0].text, "R&D costs < 5% & falling; a<<b");
    }

    #[test]
    fn a_forgotten_close_tag_does_not_swallow_siblings() {
        let doc = read_forest("<r>\n<task>Parse files\n<confidence>0.85</confidence>\n</r>");
        let r = &doc.children[0];
        assert_eq!(names(r), ["task", "confidence"]);
        assert_eq!(r.children[0].text.trim(), "Parse files");
    }

    #[test]
    fn close_tags_match_any_case_and_stray_ones_are_dropped() {
        let doc = read_forest("<Task>x</task></nothing><b>y</B>");
        assert_eq!(names(&doc), ["Task", "b"]);
    }

    #[test]
    fn unclosed_containers_keep_their_items() {
        let doc = read_forest("<r><steps>\n<step>a</step>\n<step>b</step>\n</r>");
        let r = &doc.children[0];
        assert_eq!(names(r), ["steps"]);
        assert_eq!(names(&r.children[0]), ["step", "step"]);
    }

    #[test]
    fn depth_is_limited() {
        let text = "<a>".repeat(10_000);
        let doc = read_forest(&text);
        let mut depth = 0;
        let mut node = &doc;
        while let Some(child) = node.children.first() {
            depth += 1;
            node = child;
        }
        assert_eq!(depth, MAX_DEPTH);
    }
}
