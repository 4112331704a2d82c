//! Where a response ends, and what that says about a cut (docs/spec.md §4.5).
//!
//! A model's answer can stop anywhere: the output token limit, a dropped stream. A cut
//! response must never pass for a whole one (`<confidence>0.8` cut from `0.87` is not
//! the value 0.8), so every reader marks the parts the text ended inside ([`Node::cut`])
//! and the converter judges them by how much the format can tell:
//!
//! - **Certain** (`truncated` error, never accepted). An XML or tagged response that
//!   ends while an element is open (a start tag without its close tag, or the text ends
//!   inside a tag, a comment or a CDATA section); a delimited response that ends inside
//!   a section when end lines are expected: the schema configures an `end-pattern`, or
//!   the response itself closes a section that holds no other section with an END
//!   line (it shows its own convention, so a missing one at the end is a cut). The
//!   error's path is the innermost value the text ended inside, and that value is
//!   never taken: not as data, not into `partial_data` (an object keeps the members
//!   that did close, for `partial_data` only). An element left open and then closed
//!   by an ancestor's close tag was forgotten, not cut: it is read as before.
//!   In XML only the element that holds the fields counts: once the root closes, what
//!   follows is prose.
//!
//! - **Possible** (`possibly_truncated` warning, accepted). Formats without an end
//!   marker for the whole response cannot prove they are whole. "Could have been cut"
//!   holds, and the warning names the field, exactly when:
//!   1. the last field's value runs to the end of the text with nothing after it that
//!      closes it: markdown's last section (unless the response was a fenced markdown
//!      block whose fence closes, or the section's content ends with a closed code
//!      fence), a delimited section without END line when none are expected; or
//!   2. the response has no root that closes (tagged, XML without a root element,
//!      delimited, markdown not fenced as a whole), and after its last field a field
//!      the schema declares later is absent (a cut between two fields looks like a
//!      whole response); or
//!   3. as in 2, in tagged content or XML, and the last field is an array item written
//!      as its own tag (`<RECOMMENDATIONS>Hold</RECOMMENDATIONS>`: one line, no item
//!      elements inside, not a comma-separated field): the next item may be cut.
//!
//!   It does not hold when the value's end is visible: an END line or close tag after
//!   the last field with every later field present, a root element that closes, a
//!   closed fence around a markdown response.

use super::Format;
use super::node::{Node, fold};
use super::options::{self, field_names, item_names};
use crate::error::{ErrorKind, Location, PayloadError};
use crate::warning::{Warning, WarningKind};
use payload_schema::walk::{resolve, single_branch};
use serde_json::Value;

/// How sure a reader is that a part it found open at the end of the text was cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cut {
    /// The format has an end marker and it is missing: `truncated`.
    Certain,
    /// The format has no end marker here: `possibly_truncated`.
    Possible,
}

/// What a reader found: the document node and how to judge its open parts.
#[derive(Debug)]
pub(crate) struct Reading {
    /// The document: its children are the top-level parts.
    pub doc: Node,
    /// How the parts marked [`Node::cut`] are judged.
    pub cut: Cut,
}

/// How a part is named in messages: `<confidence>` or section 'Confidence'.
pub(crate) fn part_label(format: Format, name: &str) -> String {
    match format {
        Format::Xml | Format::Tagged if name.starts_with('<') => format!("'{name}'"),
        Format::Xml | Format::Tagged => format!("<{name}>"),
        _ => format!("section '{name}'"),
    }
}

/// The `truncated` error for a value the text ended inside.
pub(crate) fn truncated(
    format: Format,
    root: &Value,
    node: &Node,
    path: &str,
    location: Location,
) -> PayloadError {
    let label = part_label(format, &node.name);
    let how = match format {
        Format::Xml | Format::Tagged if node.name.starts_with('<') => {
            "finish every tag and close every element".to_string()
        }
        Format::Xml | Format::Tagged => {
            format!("close every element, this one with </{}>", node.name)
        }
        _ => match options::global_opt(root, root, Format::Delimited, "end-pattern")
            .and_then(Value::as_str)
            .filter(|p| p.contains("{NAME}"))
        {
            Some(pattern) => format!(
                "end every section with its end line, this one with {}",
                pattern.replace("{NAME}", &node.name)
            ),
            None => "end every section with its END line, as the other sections are".into(),
        },
    };
    PayloadError::new(
        ErrorKind::Truncated,
        path,
        format!("the response ends inside {label} before it closes: the value was cut off"),
    )
    .with_suggestion(format!("send the whole response again and {how}"))
    .with_location(location)
}

/// The `possibly_truncated` warning for the last field, whose value runs to the end of
/// the text.
pub(crate) fn runs_to_end(format: Format, node: &Node, path: &str) -> Warning {
    Warning::new(
        WarningKind::PossiblyTruncated,
        format!(
            "the value at '{path}' ({}) runs to the end of the response with nothing after \
             it that closes it: if the response was cut off, this value may be incomplete",
            part_label(format, &node.name)
        ),
    )
}

/// Rules 2 and 3 of the module docs for a response without a closing root: whether
/// the text could have gone on to another field or item, as a `possibly_truncated`
/// warning.
pub(crate) fn could_continue(format: Format, root: &Value, holder: &Node) -> Option<Warning> {
    let schema = resolve(root, root);
    let schema = resolve(root, single_branch(root, schema).unwrap_or(schema));
    let props = schema.get("properties").and_then(Value::as_object)?;
    let names: Vec<(Vec<String>, Vec<String>)> = props
        .keys()
        .map(|prop| {
            (
                field_names(root, schema, prop, format),
                item_names(root, schema, prop, format),
            )
        })
        .collect();
    let index_of = |node: &Node| {
        let name = fold(&node.name);
        names
            .iter()
            .position(|(fields, items)| fields.contains(&name) || items.contains(&name))
    };
    let (last, index) = holder
        .children
        .iter()
        .rev()
        .find_map(|child| index_of(child).map(|i| (child, i)))?;
    let present: Vec<bool> = names
        .iter()
        .map(|(fields, items)| {
            holder.children.iter().any(|c| {
                let name = fold(&c.name);
                fields.contains(&name) || items.contains(&name)
            })
        })
        .collect();
    let keys: Vec<&String> = props.keys().collect();
    let absent: Vec<&str> = (index + 1..keys.len())
        .filter(|&i| !present[i])
        .map(|i| keys[i].as_str())
        .collect();
    let last_name = keys[index];
    if !absent.is_empty() {
        return Some(Warning::new(
            WarningKind::PossiblyTruncated,
            format!(
                "the response ends after '{last_name}' with nothing that marks the end of \
                 the value, and '{}' {} absent: if the response was cut off there, {} lost",
                absent.join("', '"),
                if absent.len() == 1 { "is" } else { "are" },
                if absent.len() == 1 {
                    "it was"
                } else {
                    "they were"
                },
            ),
        ));
    }
    // Only tags are written once per item; a section holds its whole list.
    if !matches!(format, Format::Xml | Format::Tagged) {
        return None;
    }
    let prop_schema = &props[last_name];
    let single_item = last.children.is_empty()
        && !last.text.trim().contains('\n')
        && !options::comma_separated(root, schema, last_name, format);
    if options::is_array(root, prop_schema) && single_item {
        return Some(Warning::new(
            WarningKind::PossiblyTruncated,
            format!(
                "the response ends after an item of '{last_name}' written as its own part, \
                 with nothing that marks the end of the list: if the response was cut off \
                 there, later items were lost"
            ),
        ));
    }
    None
}

/// The deepest part marked cut in `node`'s tree (`node` included), if any. Iterative,
/// so a deep tree cannot overflow the stack.
pub(crate) fn innermost_cut(node: &Node) -> Option<&Node> {
    let mut best: Option<(&Node, usize)> = node.cut.then_some((node, 0));
    let mut stack: Vec<(&Node, usize)> = node.children.iter().map(|c| (c, 1)).collect();
    while let Some((current, depth)) = stack.pop() {
        if current.cut && best.is_none_or(|(_, d)| depth > d) {
            best = Some((current, depth));
        }
        stack.extend(current.children.iter().map(|c| (c, depth + 1)));
    }
    best.map(|(n, _)| n)
}
