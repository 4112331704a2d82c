//! One-line summaries of payload instances, for the conversation's payload manifest.

use serde_json::Value;

/// How long a quoted string may be in a summary before it is cut.
const MAX_VALUE_CHARS: usize = 40;
/// How many members a default summary names.
const MAX_MEMBERS: usize = 4;

/// The summary a type gets when it declares none: its name, then its first few members
/// (strings and numbers as written, arrays as a count).
pub fn default_summary(name: &str, value: &Value) -> String {
    let parts: Vec<String> = match value {
        Value::Object(map) => map
            .iter()
            .filter_map(|(key, member)| describe_member(member).map(|d| format!("{key}: {d}")))
            .take(MAX_MEMBERS)
            .collect(),
        Value::Array(items) => vec![format!("{} items", items.len())],
        other => describe_member(other).into_iter().collect(),
    };
    if parts.is_empty() {
        name.to_string()
    } else {
        format!("{name} ({})", parts.join(", "))
    }
}

fn describe_member(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(truncate(s)),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Array(items) => Some(format!("{} items", items.len())),
        Value::Null | Value::Object(_) => None,
    }
}

fn truncate(s: &str) -> String {
    if s.chars().count() <= MAX_VALUE_CHARS {
        s.to_string()
    } else {
        let cut: String = s.chars().take(MAX_VALUE_CHARS - 1).collect();
        format!("{cut}…")
    }
}

/// Fills a `summary = "..."` template: `{member}` is the top-level member as text,
/// `{member.len}` the length of an array or string member, `{{` and `}}` are braces.
/// A placeholder naming an absent member is left empty, and a placeholder that never
/// closes is kept as written.
pub fn fill_template(template: &str, value: &Value) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(open) = rest.find(['{', '}']) {
        out.push_str(&rest[..open]);
        let tail = &rest[open..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push_str(&tail[..1]);
            rest = &tail[2..];
            continue;
        }
        if let Some(after) = tail.strip_prefix('}') {
            out.push('}');
            rest = after;
            continue;
        }
        let Some(close) = tail.find('}') else {
            out.push_str(tail);
            return out;
        };
        out.push_str(&placeholder(&tail[1..close], value));
        rest = &tail[close + 1..];
    }
    out.push_str(rest);
    out
}

fn placeholder(name: &str, value: &Value) -> String {
    let (member, len) = match name.strip_suffix(".len") {
        Some(member) => (member, true),
        None => (name, false),
    };
    match (value.get(member), len) {
        (Some(Value::Array(items)), true) => items.len().to_string(),
        (Some(Value::String(s)), true) => s.chars().count().to_string(),
        (Some(Value::String(s)), false) => truncate(s),
        (Some(Value::Null) | None, _) => String::new(),
        (Some(other), _) => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn default_names_scalars_and_counts_arrays() {
        let value = json!({"mode": "create", "operations": [1, 2], "nested": {"a": 1}});
        assert_eq!(
            default_summary("schema_proposal", &value),
            "schema_proposal (mode: create, operations: 2 items)"
        );
    }

    #[test]
    fn templates_fill_members_and_lengths() {
        let value = json!({"mode": "create", "table_name": "Jobs", "operations": [1, 2, 3]});
        assert_eq!(
            fill_template(
                "{mode} {table_name}: {operations.len} ops {{x}} {missing}",
                &value
            ),
            "create Jobs: 3 ops {x} "
        );
        assert_eq!(fill_template("open {brace", &value), "open {brace");
    }
}
