//! `format(...)`: the output-schema app's `x-format` options as attributes, on the type and on its
//! fields, written into the schema as one `x-format` object.
//!
//! ```text
//! #[payload(format(xml(root = "analysis-result"), delimited(section = "===={NAME}====")))]
//! struct AnalysisResult {
//!     #[payload(format(xml(item = "recommendation"), delimited(list = "bullet")))]
//!     recommendations: Vec<String>,
//! }
//! ```
//!
//! becomes `{"xml": {"root-element": "analysis-result", "properties": {"recommendations":
//! {"item-element": "recommendation"}}}, "delimited": {...}}`, the shape the output-schema app
//! gives and the format readers, renderers and hints in `payload_core::formats` read.

use crate::ctxt::Ctxt;
use syn::meta::ParseNestedMeta;
use syn::{Expr, Lit, Token};

/// Where the attribute stands: on the type or on a field.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// `#[payload(format(...))]` on the type.
    Container,
    /// `#[payload(format(...))]` on a field.
    Field,
}

/// How a key's value is written.
#[derive(Clone, Copy)]
enum Kind {
    /// `key = "text"`.
    Text,
    /// `key = 2`.
    Number,
    /// `key` or `key = true`.
    Flag,
}

/// An option's value, as JSON.
#[derive(Clone)]
pub enum Value {
    /// A string.
    Text(String),
    /// An integer.
    Number(i64),
    /// A boolean.
    Flag(bool),
}

/// The options given for each format, in the order written.
#[derive(Default, Clone)]
pub struct Options {
    /// (format, [(x-format key, value)]).
    pub groups: Vec<(String, Vec<(String, Value)>)>,
}

impl Options {
    /// Whether nothing was given.
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }
}

/// The formats, and for each the attribute keys with their `x-format` names.
fn keys(format: &str, level: Level) -> Option<&'static [(&'static str, &'static str, Kind)]> {
    use Kind::*;
    Some(match (format, level) {
        ("xml", Level::Container) => &[
            ("root", "root-element", Text),
            ("namespace", "namespace", Text),
            ("pretty_print", "pretty-print", Flag),
        ],
        ("xml", Level::Field) => &[
            ("element", "element", Text),
            ("item", "item-element", Text),
            ("attribute", "attribute", Flag),
            ("cdata", "cdata", Flag),
        ],
        ("delimited", Level::Container) => &[
            ("section", "section-pattern", Text),
            ("end", "end-pattern", Text),
            ("case_insensitive", "case-insensitive", Flag),
        ],
        ("delimited", Level::Field) => &[
            ("list", "list-format", Text),
            ("prefix", "item-prefix", Text),
            ("wrapper", "wrapper", Text),
        ],
        ("tagged", Level::Container) => &[("case", "tag-case", Text)],
        ("tagged", Level::Field) => &[("tag", "tag", Text), ("multi", "multi-value", Text)],
        ("markdown", Level::Container) => &[],
        ("markdown", Level::Field) => &[
            ("header", "header", Text),
            ("level", "level", Number),
            ("list", "list-style", Text),
            ("code_block", "code-block", Flag),
            ("code", "code-fence", Text),
        ],
        _ => return None,
    })
}

/// Parses the inside of `format(...)`; every problem goes to `cx`.
pub fn parse(
    cx: &Ctxt,
    meta: &ParseNestedMeta,
    level: Level,
    into: &mut Options,
) -> syn::Result<()> {
    meta.parse_nested_meta(|group| {
        let format = group
            .path
            .get_ident()
            .map(|i| i.to_string())
            .unwrap_or_default();
        let Some(table) = keys(&format, level) else {
            cx.error_spanned_by(
                &group.path,
                format!(
                    "unknown format `{format}` in `format(...)`: expected `xml(...)`, \
                     `delimited(...)`, `tagged(...)` or `markdown(...)`"
                ),
            );
            return skip(&group);
        };
        let mut options = Vec::new();
        group.parse_nested_meta(|option| {
            let key = option
                .path
                .get_ident()
                .map(|i| i.to_string())
                .unwrap_or_default();
            let Some(&(_, name, kind)) = table.iter().find(|(k, _, _)| *k == key) else {
                let valid: Vec<String> = table.iter().map(|(k, _, _)| format!("`{k}`")).collect();
                cx.error_spanned_by(
                    &option.path,
                    format!(
                        "unknown `{format}` option `{key}` {}: expected {}",
                        match level {
                            Level::Container => "on the type",
                            Level::Field => "on a field",
                        },
                        if valid.is_empty() {
                            "none here".to_string()
                        } else {
                            valid.join(", ")
                        }
                    ),
                );
                return skip(&option);
            };
            if let Some(value) = value(cx, &option, kind, &format, &key)? {
                options.push((name.to_string(), value));
            }
            Ok(())
        })?;
        into.groups.push((format, options));
        Ok(())
    })
}

fn value(
    cx: &Ctxt,
    option: &ParseNestedMeta,
    kind: Kind,
    format: &str,
    key: &str,
) -> syn::Result<Option<Value>> {
    if !option.input.peek(Token![=]) {
        return Ok(match kind {
            Kind::Flag => Some(Value::Flag(true)),
            _ => {
                cx.error_spanned_by(&option.path, format!("expected `{format}({key} = ...)`"));
                None
            }
        });
    }
    let expr: Expr = option.value()?.parse()?;
    let lit = match &expr {
        Expr::Lit(lit) => Some(&lit.lit),
        _ => None,
    };
    let parsed = match (kind, lit) {
        (Kind::Text, Some(Lit::Str(s))) => Some(Value::Text(s.value())),
        (Kind::Number, Some(Lit::Int(i))) => i.base10_parse().ok().map(Value::Number),
        (Kind::Flag, Some(Lit::Bool(b))) => Some(Value::Flag(b.value)),
        _ => None,
    };
    if parsed.is_none() {
        let expected = match kind {
            Kind::Text => "a string",
            Kind::Number => "an integer",
            Kind::Flag => "`true` or `false`",
        };
        cx.error_spanned_by(&expr, format!("`{format}({key} = ...)` takes {expected}"));
    }
    Ok(parsed)
}

fn skip(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if !meta.input.is_empty() && !meta.input.peek(Token![,]) {
        meta.parse_nested_meta(|inner| skip(&inner))?;
    }
    Ok(())
}

/// The `x-format` object for the type's options and its fields' (by serialized name),
/// as JSON text; empty when no option was given.
pub fn to_json(container: &Options, fields: &[(String, &Options)]) -> String {
    let mut formats: Vec<&str> = Vec::new();
    for (format, _) in container
        .groups
        .iter()
        .chain(fields.iter().flat_map(|(_, o)| o.groups.iter()))
    {
        if !formats.contains(&format.as_str()) {
            formats.push(format);
        }
    }
    if formats.is_empty() {
        return String::new();
    }
    let mut out = String::from("{");
    for (i, format) in formats.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&format!("{}:{{", quote(format)));
        let mut members: Vec<String> = options_of(container, format)
            .map(|(k, v)| format!("{}:{}", quote(k), render(v)))
            .collect();
        let properties: Vec<String> = fields
            .iter()
            .filter_map(|(name, options)| {
                let inner: Vec<String> = options_of(options, format)
                    .map(|(k, v)| format!("{}:{}", quote(k), render(v)))
                    .collect();
                (!inner.is_empty()).then(|| format!("{}:{{{}}}", quote(name), inner.join(",")))
            })
            .collect();
        if !properties.is_empty() {
            members.push(format!("\"properties\":{{{}}}", properties.join(",")));
        }
        out.push_str(&members.join(","));
        out.push('}');
    }
    out.push('}');
    out
}

fn options_of<'a>(
    options: &'a Options,
    format: &'a str,
) -> impl Iterator<Item = &'a (String, Value)> {
    options
        .groups
        .iter()
        .filter(move |(f, _)| f == format)
        .flat_map(|(_, o)| o.iter())
}

fn render(value: &Value) -> String {
    match value {
        Value::Text(s) => quote(s),
        Value::Number(n) => n.to_string(),
        Value::Flag(b) => b.to_string(),
    }
}

/// A JSON string literal.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_become_seed_002_x_format() {
        let container = Options {
            groups: vec![(
                "xml".into(),
                vec![("root-element".into(), Value::Text("analysis-result".into()))],
            )],
        };
        let field = Options {
            groups: vec![
                (
                    "xml".into(),
                    vec![("item-element".into(), Value::Text("recommendation".into()))],
                ),
                (
                    "markdown".into(),
                    vec![
                        ("level".into(), Value::Number(3)),
                        ("code-block".into(), Value::Flag(true)),
                    ],
                ),
            ],
        };
        assert_eq!(
            to_json(&container, &[("recommendations".into(), &field)]),
            r#"{"xml":{"root-element":"analysis-result","properties":{"recommendations":{"item-element":"recommendation"}}},"markdown":{"properties":{"recommendations":{"level":3,"code-block":true}}}}"#
        );
        assert_eq!(to_json(&Options::default(), &[]), "");
    }
}
