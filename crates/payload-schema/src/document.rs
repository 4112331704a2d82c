//! Checks of a schema document written by hand, beyond what the meta-schema checks.
//!
//! A document from a file or from a model's proposal is untrusted: its `$ref`s may
//! lead nowhere or out of the document. The walks here are bounded by
//! [`MAX_DOCUMENT_DEPTH`].

use crate::limits::MAX_DOCUMENT_DEPTH;
use crate::pointer;
use crate::walk;
use serde_json::Value;

/// One thing wrong with a schema document, at a JSON Pointer into it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaProblem {
    /// Where in the document (a JSON Pointer; empty for the root).
    pub pointer: String,
    /// What is wrong, in a sentence.
    pub message: String,
}

/// Every `$ref` of `document` that is not a local pointer (`#`, `#/...`) resolving
/// inside it, in document order, each at its `$ref` member.
pub fn unresolved_references(document: &Value) -> Vec<SchemaProblem> {
    let mut problems = Vec::new();
    let mut at = String::new();
    references(document, document, &mut at, &mut problems, 0);
    problems
}

fn references(
    root: &Value,
    node: &Value,
    at: &mut String,
    problems: &mut Vec<SchemaProblem>,
    depth: usize,
) {
    if depth > MAX_DOCUMENT_DEPTH {
        return;
    }
    let len = at.len();
    match node {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get("$ref") {
                let message = match reference.strip_prefix('#') {
                    Some(_) if walk::target(root, reference).is_some() => None,
                    Some(_) => Some(format!("'{reference}' leads nowhere in the document")),
                    None => Some(format!(
                        "'{reference}' points outside the document; put what it names under $defs"
                    )),
                };
                if let Some(message) = message {
                    problems.push(SchemaProblem {
                        pointer: pointer::join(at, "$ref"),
                        message,
                    });
                }
            }
            for (key, value) in map {
                pointer::push_token(at, key);
                references(root, value, at, problems, depth + 1);
                at.truncate(len);
            }
        }
        Value::Array(items) => {
            for (index, value) in items.iter().enumerate() {
                pointer::push_index(at, index);
                references(root, value, at, problems, depth + 1);
                at.truncate(len);
            }
        }
        _ => {}
    }
}

/// Every name of a `required` that its object's `properties` do not declare, in
/// document order, each at its place in `required`. JSON Schema allows any name there,
/// but one no property declares is a typo or a member left out: the model is told to
/// write a member it knows nothing about (or, beside `additionalProperties: false`, one
/// it may not write, so no value could pass). Objects whose members may be declared
/// elsewhere (`$ref`, `allOf`, `if`, `patternProperties`...) are left alone.
pub fn undeclared_required(document: &Value) -> Vec<SchemaProblem> {
    let mut problems = Vec::new();
    let mut at = String::new();
    required(document, &mut at, &mut problems, 0);
    problems
}

fn required(node: &Value, at: &mut String, problems: &mut Vec<SchemaProblem>, depth: usize) {
    if depth > MAX_DOCUMENT_DEPTH {
        return;
    }
    let len = at.len();
    match node {
        Value::Object(map) => {
            let declared = map.get("properties").and_then(Value::as_object);
            let elsewhere =
                crate::keywords::names_any(map, crate::keywords::Property::DeclaresElsewhere);
            if let (Some(Value::Array(names)), Some(declared), false) =
                (map.get("required"), declared, elsewhere)
            {
                for (index, name) in names.iter().enumerate() {
                    if let Some(name) = name.as_str().filter(|n| !declared.contains_key(*n)) {
                        let mut place = pointer::join(at, "required");
                        pointer::push_index(&mut place, index);
                        problems.push(SchemaProblem {
                            pointer: place,
                            message: format!(
                                "required names '{name}', which properties does not declare; \
                                 declare it or take it out of required"
                            ),
                        });
                    }
                }
            }
            for (key, value) in map {
                pointer::push_token(at, key);
                required(value, at, problems, depth + 1);
                at.truncate(len);
            }
        }
        Value::Array(items) => {
            for (index, value) in items.iter().enumerate() {
                pointer::push_index(at, index);
                required(value, at, problems, depth + 1);
                at.truncate(len);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_unresolved_reference_is_named_where_it_is() {
        let document = json!({
            "properties": {
                "a": {"$ref": "#/$defs/a"},
                "b/c": {"$ref": "#/$defs/missing"},
                "d": {"$ref": "https://example.invalid/x"},
                "e": {"$ref": "#/$defs/with%20space"}
            },
            "$defs": {"a": {"type": "string"}, "with space": {}}
        });
        let problems = unresolved_references(&document);
        let pointers: Vec<&str> = problems.iter().map(|p| p.pointer.as_str()).collect();
        assert_eq!(pointers, ["/properties/b~1c/$ref", "/properties/d/$ref"]);
        assert!(problems[1].message.contains("outside the document"));
    }

    #[test]
    fn a_required_name_no_property_declares_is_named() {
        let document = json!({
            "properties": {"a": {
                "type": "object",
                "properties": {"qty": {}},
                "required": ["qty", "unit"]
            }},
            "required": ["a"],
            "$defs": {"open": {"allOf": [{"properties": {"x": {}}}], "properties": {}, "required": ["x"]}}
        });
        let problems = undeclared_required(&document);
        let pointers: Vec<&str> = problems.iter().map(|p| p.pointer.as_str()).collect();
        assert_eq!(pointers, ["/properties/a/required/1"]);
        assert!(problems[0].message.contains("'unit'"));
    }
}
