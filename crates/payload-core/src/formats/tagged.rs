//! Tagged content: `<TASK>...</TASK>` tags, in any case, mixed with prose, with no
//! single root. Repeated tags are array items (`<RECOMMENDATIONS>` twice), a tag may
//! hold item tags (`<STEPS><STEP>..</STEP></STEPS>`), and an array field marked
//! `multi-value: comma-separated` holds `a, b, c`.
//!
//! The tags are read by the same tolerant reader as XML ([`super::xml`]); what differs
//! is where the fields are: at the top level, among the prose. A response that wraps
//! its tags in one element (`<RESPONSE>...</RESPONSE>`) is read inside that element.

use super::convert::Converter;
use super::node::fold;
use super::xml::{read_forest_checked, root_field_names};
use super::{Format, FormatFailure};
use serde_json::Value;

/// Parses a tagged response into a value of `schema`.
pub(crate) fn parse(text: &str, schema: &Value) -> Result<Value, FormatFailure> {
    let (doc, too_deep) = read_forest_checked(text);
    let names = root_field_names(schema, Format::Tagged);
    let is_field = |name: &str| names.contains(&fold(name));
    let holder = if doc.children.iter().any(|c| is_field(&c.name)) {
        &doc
    } else {
        doc.children
            .iter()
            .find(|c| c.children.iter().any(|g| is_field(&g.name)))
            .unwrap_or(&doc)
    };
    let result =
        Converter::new(Format::Tagged, schema, text).finish(holder, doc.children.is_empty());
    if too_deep {
        return Err(crate::limits::fail_too_deep(result));
    }
    result
}
