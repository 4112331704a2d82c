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
//! - an element still open when the text ends, or a tag, comment or CDATA section the
//!   text ends inside, is marked cut: the response was truncated ([`super::ending`]).
//! - 128 levels of elements are read; the first element at level 129 stops the reader
//!   with a `parsing` error ([`crate::limits::MAX_DEPTH`]), so nothing can overflow.
//!
//! Tagged content (`<TASK>...</TASK>` without a root) is the same reader with a
//! different choice of where the fields are; see [`super::tagged`].

use super::convert::Converter;
use super::ending::{Cut, Reading};
use super::node::{Node, fold};
use super::options::{self, field_names};
use super::{Format, FormatRead};
use crate::error::Location;
use crate::limits::MAX_DEPTH;
use serde_json::Value;

/// One open element while reading: the node and how much text it had when its first
/// child arrived.
struct Open {
    node: Node,
    lead: Option<usize>,
}

/// Reads `text` into a document node whose children are the top-level elements and
/// whose text is the prose around them. For detection: elements nested past
/// [`MAX_DEPTH`] are read as text instead of refused.
pub(crate) fn read_forest(text: &str) -> Node {
    match read_with(text, false) {
        Ok(reading) => reading.doc,
        Err(_) => Node::default(),
    }
}

/// Reads `text` for a value: the document, with every element the text ended inside
/// marked cut (certain: XML closes what it opens). Stops at the first element nested
/// deeper than [`MAX_DEPTH`] (level 1 is a top-level element): its location.
pub(crate) fn read(text: &str) -> Result<Reading, Location> {
    read_with(text, true)
}

fn read_with(text: &str, strict: bool) -> Result<Reading, Location> {
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
        let skipped = if rest.starts_with("<!--") {
            Some(find_after(text, j + 4, "-->"))
        } else if let Some(body) = rest.strip_prefix("<![CDATA[") {
            let end = body.find("]]>").map_or(body.len(), |e| e);
            push_text(&mut stack, &body[..end]);
            Some((j + 9 + end + 3 <= text.len()).then_some(j + 9 + end + 3))
        } else if rest.starts_with("<?") {
            Some(find_after(text, j + 2, "?>"))
        } else if rest.starts_with("<!") {
            Some(find_after(text, j + 2, ">"))
        } else {
            None
        };
        if let Some(after) = skipped {
            match after {
                Some(after) => i = after,
                None => {
                    unfinished(&mut stack, text, j);
                    break;
                }
            }
            continue;
        }
        match read_tag(text, j) {
            TagRead::Tag(Tag::Close(name), end) => {
                close(&mut stack, &name, j, end);
                i = end;
            }
            TagRead::Tag(Tag::Open { name, attrs, empty }, end) => {
                i = end;
                // The new element's level: the document is at index 0 of the stack.
                if stack.len() > MAX_DEPTH {
                    if strict {
                        return Err(Location::of_offset(text, j));
                    }
                    push_text(&mut stack, &text[j..end]);
                    continue;
                }
                let mut node = Node::named(name, j);
                node.attrs = attrs;
                if empty {
                    node.end = end;
                    add_child(&mut stack, node);
                } else {
                    stack.push(Open { node, lead: None });
                }
            }
            TagRead::Text => {
                push_text(&mut stack, "<");
                i = j + 1;
            }
            TagRead::Unfinished => {
                unfinished(&mut stack, text, j);
                break;
            }
        }
    }
    // Whatever is still open, the text ended inside.
    while stack.len() > 1 {
        if let Some(top) = stack.last_mut() {
            top.node.cut = true;
        }
        pop_unclosed(&mut stack, text.len(), true);
    }
    let mut doc = stack.pop().map(|o| o.node).unwrap_or_default();
    doc.end = text.len();
    doc.seal();
    Ok(Reading {
        doc,
        cut: Cut::Certain,
    })
}

/// The text ends inside a tag, comment or CDATA section that never finished: it
/// becomes a part of its own, marked cut, named by what it was (`<RECOMM`).
/// Its name starts with `<`, which no element's can ([`is_unfinished`]); it does not
/// count as a child that ends its parent's own text.
fn unfinished(stack: &mut [Open], text: &str, at: usize) {
    let head: String = text[at..].chars().take(40).collect();
    let mut node = Node::named(head.trim_end(), at);
    node.end = text.len();
    node.cut = true;
    if let Some(top) = stack.last_mut() {
        top.node.children.push(node);
    }
}

/// Whether `node` is an unfinished tag, comment or CDATA section the text ended in.
pub(crate) fn is_unfinished(node: &Node) -> bool {
    node.name.starts_with('<')
}

/// Whether the document holds no element at all (an unfinished tag is not one).
pub(crate) fn no_elements(doc: &Node) -> bool {
    doc.children.iter().all(is_unfinished)
}

/// The byte just after the next `pattern` at or after `from`, or `None` when the text
/// ends first (an unclosed comment is a cut; searching once keeps this linear).
fn find_after(text: &str, from: usize, pattern: &str) -> Option<usize> {
    let from = from.min(text.len());
    text[from..].find(pattern).map(|p| from + p + pattern.len())
}

fn push_text(stack: &mut [Open], text: &str) {
    if let Some(top) = stack.last_mut() {
        top.node.text.push_str(text);
    }
}

fn add_child(stack: &mut [Open], mut node: Node) {
    node.seal();
    if let Some(top) = stack.last_mut() {
        if top.lead.is_none() {
            top.lead = Some(top.node.text.len());
        }
        top.node.children.push(node);
    }
}

/// Closes the nearest open element named `name` (any case) and everything opened
/// inside it (which ends where this close tag starts, at `at`); a close tag that
/// matches nothing is dropped.
fn close(stack: &mut Vec<Open>, name: &str, at: usize, end: usize) {
    let Some(k) = (1..stack.len())
        .rev()
        .find(|&k| stack[k].node.name.eq_ignore_ascii_case(name))
    else {
        return;
    };
    while stack.len() > k + 1 {
        pop_unclosed(stack, at, false);
    }
    if let Some(mut open) = stack.pop() {
        open.node.end = end;
        add_child(stack, open.node);
    }
}

/// Pops an element that was never closed, ending at `end`. If it had text of its own
/// before its first child, it was a leaf whose close tag was forgotten: the children
/// belong to its parent, and its own text ended where they start, so it is not what
/// the text was cut inside (`at_end`).
fn pop_unclosed(stack: &mut Vec<Open>, end: usize, at_end: bool) {
    let Some(mut open) = stack.pop() else { return };
    open.node.end = end;
    match open.lead {
        Some(lead) if !open.node.text[..lead].trim().is_empty() => {
            let children = std::mem::take(&mut open.node.children);
            open.node.text.truncate(lead);
            if at_end {
                open.node.cut = false;
            }
            open.node.end = children.first().map_or(end, |c| c.offset);
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

/// What a `<` starts.
enum TagRead {
    /// A whole tag, and the byte after its `>`.
    Tag(Tag, usize),
    /// Not a tag: the `<` is text.
    Text,
    /// The text ends before the tag could finish.
    Unfinished,
}

fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':')
}

/// Reads a tag starting at the `<` at `start`. Gives up (the `<` is text) at anything
/// a tag cannot contain, including another `<`, so a failed attempt never scans past
/// the next `<`; running out of text is [`TagRead::Unfinished`].
fn read_tag(text: &str, start: usize) -> TagRead {
    let bytes = text.as_bytes();
    // Every byte read past the end means the tag was cut, not that it is text.
    macro_rules! at {
        ($i:expr) => {
            match bytes.get($i) {
                Some(b) => *b,
                None => return TagRead::Unfinished,
            }
        };
    }
    let mut i = start + 1;
    let closing = at!(i) == b'/';
    if closing {
        i += 1;
    }
    let name_start = i;
    if !is_name_start(at!(i)) {
        return TagRead::Text;
    }
    while is_name_byte(at!(i)) {
        i += 1;
    }
    let full = &text[name_start..i];
    let name = full.rsplit(':').next().unwrap_or(full).to_string();
    if closing {
        while at!(i).is_ascii_whitespace() {
            i += 1;
        }
        return if bytes[i] == b'>' {
            TagRead::Tag(Tag::Close(name), i + 1)
        } else {
            TagRead::Text
        };
    }
    let mut attrs = Vec::new();
    loop {
        while at!(i).is_ascii_whitespace() {
            i += 1;
        }
        match at!(i) {
            b'>' => {
                let tag = Tag::Open {
                    name,
                    attrs,
                    empty: false,
                };
                return TagRead::Tag(tag, i + 1);
            }
            b'/' if at!(i + 1) == b'>' => {
                let tag = Tag::Open {
                    name,
                    attrs,
                    empty: true,
                };
                return TagRead::Tag(tag, i + 2);
            }
            b if is_name_start(b) => {
                let attr_start = i;
                while is_name_byte(at!(i)) {
                    i += 1;
                }
                let attr_name = text[attr_start..i].to_string();
                while at!(i).is_ascii_whitespace() {
                    i += 1;
                }
                if bytes[i] != b'=' {
                    attrs.push((attr_name, String::new()));
                    continue;
                }
                i += 1;
                while at!(i).is_ascii_whitespace() {
                    i += 1;
                }
                let value = match bytes[i] {
                    q @ (b'"' | b'\'') => {
                        let from = i + 1;
                        let Some(len) = bytes[from..].iter().position(|b| *b == q || *b == b'<')
                        else {
                            return TagRead::Unfinished;
                        };
                        if bytes[from + len] == b'<' {
                            return TagRead::Text;
                        }
                        i = from + len + 1;
                        &text[from..from + len]
                    }
                    _ => {
                        let from = i;
                        while !at!(i).is_ascii_whitespace()
                            && !matches!(bytes[i], b'>' | b'<' | b'/')
                        {
                            i += 1;
                        }
                        &text[from..i]
                    }
                };
                attrs.push((attr_name, decode_entities(value)));
            }
            _ => return TagRead::Text,
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
        .or_else(|| doc.children.iter().find(|c| !is_unfinished(c)))
        .unwrap_or(doc)
}

/// The folded names of the root schema's properties in `format`.
pub(crate) fn root_field_names(root: &Value, format: Format) -> Vec<String> {
    let schema = payload_schema::walk::resolve(root, root);
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

/// Parses an XML response into a value of `schema`, with what was noticed on the way.
pub fn parse(text: &str, schema: &Value) -> FormatRead {
    let reading = match read(text) {
        Ok(reading) => reading,
        Err(location) => return FormatRead::too_deep(location),
    };
    let doc = &reading.doc;
    let root = choose_root(doc, schema, Format::Xml);
    Converter::new(Format::Xml, schema, text)
        .judging(reading.cut)
        .finish(root, no_elements(doc), std::ptr::eq(root, doc))
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

    /// The names of the parts marked cut, in document order.
    fn cut_names(text: &str) -> Vec<String> {
        let doc = read(text).unwrap().doc;
        let mut out = Vec::new();
        let mut stack = vec![&doc];
        while let Some(node) = stack.pop() {
            if node.cut {
                out.push(node.name.clone());
            }
            stack.extend(node.children.iter().rev());
        }
        out
    }

    #[test]
    fn parts_the_text_ends_inside_are_cut_and_forgotten_ones_are_not() {
        assert_eq!(
            cut_names("<r><task>Parse files\n<confidence>0.8"),
            ["r", "confidence"],
            "task was left open before its sibling: forgotten, not cut"
        );
        assert!(cut_names("<r><task>Parse<confidence>0.8</confidence></r>").is_empty());
        assert!(cut_names("<r><a>x</a></r>\nThanks, a < b.").is_empty());
        assert_eq!(cut_names("<r><a>x</a></r"), ["r", "</r"]);
        assert_eq!(cut_names("<A>x</A>\n<RECOMM"), ["<RECOMM"]);
        assert_eq!(cut_names("<A>x</A>\n<"), ["<"]);
        assert_eq!(cut_names("<A>x</A><B k=\"v"), ["<B k=\"v"]);
        assert_eq!(cut_names("<a>x<!-- note"), ["a", "<!-- note"]);
        assert_eq!(cut_names("<a><![CDATA[abc"), ["a", "<![CDATA[abc"]);
        assert!(cut_names("<a>x</a><!-- done -->").is_empty());
    }

    #[test]
    fn level_128_is_read_and_level_129_stops_the_reader() {
        let nest = |n: usize| "<a>".repeat(n) + "x" + &"</a>".repeat(n);
        let doc = read(&nest(MAX_DEPTH)).unwrap().doc;
        let mut depth = 0;
        let mut node = &doc;
        while let Some(child) = node.children.first() {
            depth += 1;
            node = child;
        }
        assert_eq!((depth, node.text.as_str()), (MAX_DEPTH, "x"));
        // The reader stops at the first element too deep.
        let column = 3 * MAX_DEPTH + 1;
        assert_eq!(
            read(&nest(MAX_DEPTH + 1)).unwrap_err(),
            Location { line: 1, column }
        );
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
