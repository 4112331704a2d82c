//! Tagged content: `<TASK>...</TASK>` tags, in any case, mixed with prose, with no
//! single root. Repeated tags are array items (`<RECOMMENDATIONS>` twice), a tag may
//! hold item tags (`<STEPS><STEP>..</STEP></STEPS>`), and an array field marked
//! `multi-value: comma-separated` holds `a, b, c`.
//!
//! The tags are read by the same tolerant reader as XML ([`super::xml`]); what differs
//! is where the fields are: at the top level, among the prose. A response that wraps
//! its tags in one element (`<RESPONSE>...</RESPONSE>`) is read inside that element.
//!
//! A tag left open at the end is a cut (`truncated`); a response without a wrapping
//! element has no end marker of its own, so one that could have gone on to another
//! field or item gets a `possibly_truncated` warning ([`super::ending`]). A field tag
//! written twice is a duplicate (the last one wins, with a `duplicate_key` warning),
//! unless the field is an array: then each tag is an item.

use super::FormatRead;
use super::convert::Converter;
use super::node::fold;
use super::xml::{no_elements, read, root_field_names};
use crate::formats::Format;
use serde_json::Value;

/// Parses a tagged response into a value of `schema`, with what was noticed on the way.
pub fn parse(text: &str, schema: &Value) -> FormatRead {
    let reading = match read(text) {
        Ok(reading) => reading,
        Err(location) => return FormatRead::too_deep(location),
    };
    let doc = &reading.doc;
    let names = root_field_names(schema, Format::Tagged);
    let is_field = |name: &str| names.contains(&fold(name));
    let holder = if doc.children.iter().any(|c| is_field(&c.name)) {
        doc
    } else {
        doc.children
            .iter()
            .find(|c| c.children.iter().any(|g| is_field(&g.name)))
            .unwrap_or(doc)
    };
    Converter::new(Format::Tagged, schema, text)
        .judging(reading.cut)
        .finish(holder, no_elements(doc), std::ptr::eq(holder, doc))
}
