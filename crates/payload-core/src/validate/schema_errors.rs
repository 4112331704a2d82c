//! Turning `jsonschema` validation errors into [`PayloadError`]s a model can act on:
//! the member that is missing rather than the object that lacks it, the allowed values
//! of an enum, the closest allowed name for an unknown member, and for `oneOf` / `anyOf`
//! the errors of the branch the value was evidently meant to match, not of every branch.

use crate::caps::Capped;
use crate::error::PayloadError;
use crate::validate::members::{self, Folded};
use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{ErrorIterator, ValidationError};
use payload_schema::pointer;
use payload_schema::walk::{self as schema_walk, describe, json_type, list_values};
use serde_json::Value;

use crate::schema::variants::{self, Discriminator};

/// Converts every error of one validation run into `out`, which keeps the first ones
/// and only counts the rest (nothing past its cap is built).
pub(crate) fn collect(root: &Value, errors: ErrorIterator<'_>, out: &mut Capped<PayloadError>) {
    let errors: Vec<ValidationError<'_>> = errors.collect();
    convert_all(root, &errors, out);
}

/// Converts one list of errors (a run's, or one union branch's).
fn convert_all(root: &Value, errors: &[ValidationError<'_>], out: &mut Capped<PayloadError>) {
    // Where a union failed, its branches' members are reported as unevaluated too
    // (a failed branch evaluates nothing): noise beside the union's own errors.
    let failed_unions: Vec<&str> = errors
        .iter()
        .filter(|e| {
            matches!(
                e.kind(),
                ValidationErrorKind::OneOfNotValid { .. } | ValidationErrorKind::AnyOf { .. }
            )
        })
        .map(|e| e.instance_path().as_str())
        .collect();
    for error in errors {
        if out.is_full() {
            // Past the cap an error is counted, not built; a list of unknown members
            // counts one each, as it would have been reported.
            out.count_omitted(match error.kind() {
                ValidationErrorKind::AdditionalProperties { unexpected }
                | ValidationErrorKind::UnevaluatedProperties { unexpected } => unexpected.len(),
                _ => 1,
            });
            continue;
        }
        convert(root, error, &failed_unions, out);
    }
}

/// The schema that holds the keyword `error` failed on (its `schemaPath` is the
/// keyword's absolute location in the root), or the schema at the value's path.
fn owner<'a>(root: &'a Value, error: &ValidationError<'_>) -> Option<&'a Value> {
    let keyword = error.schema_path().as_str();
    let from_keyword = keyword
        .rsplit_once('/')
        .and_then(|(parent, _)| root.pointer(parent))
        .filter(|schema| schema.is_object());
    from_keyword
        .or_else(|| schema_walk::at_pointer(root, error.instance_path().as_str()))
        .map(|schema| schema_walk::resolve(root, schema))
}

fn convert(
    root: &Value,
    error: &ValidationError<'_>,
    failed_unions: &[&str],
    out: &mut Capped<PayloadError>,
) {
    let path = error.instance_path().as_str().to_string();
    let instance: &Value = error.instance();
    let owner = owner(root, error);
    match error.kind() {
        ValidationErrorKind::Required { property } => {
            let name = property.as_str().unwrap_or_default();
            let member = pointer::join(&path, name);
            let expected = owner
                .and_then(|o| variants::property(&variants::object_properties(root, o), name))
                .map(|s| describe(root, s))
                .or_else(|| schema_walk::at_pointer(root, &member).map(|s| describe(root, s)));
            let mut e =
                PayloadError::missing(member, format!("required member '{name}' is missing"))
                    .with_suggestion(match &expected {
                        Some(what) => format!("add \"{name}\" ({what})"),
                        None => format!("add \"{name}\""),
                    });
            e.details_mut().expected = expected;
            out.push(e);
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let allowed = owner
                .map(|o| {
                    variants::object_properties(root, o)
                        .into_iter()
                        .map(|(name, _)| name.to_string())
                        .collect()
                })
                .unwrap_or_else(|| allowed_members(root, &path));
            unknown_members(&path, unexpected.iter(), &allowed, instance, out);
        }
        ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            let members = owner
                .map(|o| variants::union_members(root, o))
                .unwrap_or_else(|| allowed_members(root, &path));
            let union_failed = failed_unions.contains(&path.as_str());
            let reported = unexpected
                .iter()
                .filter(|name| !(union_failed && members.contains(name)));
            unknown_members(&path, reported, &members, instance, out);
        }
        ValidationErrorKind::Enum { options } => {
            let values = options.as_array().cloned().unwrap_or_default();
            out.push(enum_error(&path, instance, &values));
        }
        ValidationErrorKind::Constant { expected_value } => {
            out.push(
                PayloadError::validation(path, format!("must be exactly {expected_value}"))
                    .with_received(received(instance))
                    .with_expected(format!("exactly {expected_value}"))
                    .with_suggestion(format!("write {expected_value}")),
            );
        }
        ValidationErrorKind::Type { kind } => {
            let expected = match kind {
                TypeKind::Single(t) => t.to_string(),
                TypeKind::Multiple(set) => set
                    .iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(" or "),
            };
            let described = owner
                .map(|s| describe(root, s))
                .unwrap_or_else(|| expected.clone());
            out.push(
                PayloadError::validation(
                    path,
                    format!("expected {expected}, got {}", json_type(instance)),
                )
                .with_received(received(instance))
                .with_expected(described.clone())
                .with_suggestion(format!("write a value of type {described}")),
            );
        }
        ValidationErrorKind::Format { format } => {
            let looks = match format.as_str() {
                "date" => "a date as YYYY-MM-DD, e.g. 2024-01-31",
                "date-time" => "a date and time as RFC 3339, e.g. 2024-03-15T09:30:00Z",
                "time" => "a time as HH:MM:SS",
                "email" => "an email address",
                "uri" => "an absolute URL",
                _ => "",
            };
            let expected = if looks.is_empty() {
                format!("a string of format {format}")
            } else {
                looks.to_string()
            };
            out.push(
                PayloadError::validation(
                    path,
                    format!("{} is not a valid {format}", short(instance)),
                )
                .with_received(received(instance))
                .with_suggestion(format!("write {expected}"))
                .with_expected(expected),
            );
        }
        ValidationErrorKind::OneOfNotValid { context } | ValidationErrorKind::AnyOf { context } => {
            let branches = root
                .pointer(error.schema_path().as_str())
                .and_then(Value::as_array)
                .filter(|branches| branches.len() == context.len());
            branch_errors(root, &path, instance, branches, context, out);
        }
        _ => {
            let expected = owner.map(|s| describe(root, s));
            let message = match error.kind() {
                // jsonschema's message prints the whole list; the count is what matters
                // (and the list may be a pruned copy, see `schema::bounded`).
                ValidationErrorKind::MaxItems { limit } => format!("more than {limit} items"),
                ValidationErrorKind::MaxProperties { limit } => {
                    format!("more than {limit} members")
                }
                _ => error.to_string(),
            };
            let mut e = PayloadError::validation(path, message).with_received(received(instance));
            if let Some(expected) = expected {
                e.details_mut().suggestion = Some(format!("use {expected}"));
                e.details_mut().expected = Some(expected);
            }
            out.push(e);
        }
    }
}

/// For a value that matches no branch of a `oneOf`/`anyOf`: report the errors of the
/// branch it was meant for.
///
/// A tagged enum (every branch recognisable by a tag, [`variants`]) is decided by the
/// value's tag: a known tag gets that variant's errors only, each message naming the
/// variant; an unknown or missing tag is the error, listing the valid tags with the
/// closest one suggested. Other unions fall back to the errors: a branch whose only
/// failures are on a discriminating constant was not meant, and among the rest the one
/// with the fewest errors wins.
fn branch_errors(
    root: &Value,
    path: &str,
    instance: &Value,
    branches: Option<&Vec<Value>>,
    context: &[Vec<ValidationError<'static>>],
    out: &mut Capped<PayloadError>,
) {
    let depth = segment_count(path);
    // A `oneOf` of constants is how schemars writes an enum whose variants have doc
    // comments: report it as an enum, naming every allowed value.
    let constants: Option<Vec<Value>> = context
        .iter()
        .map(|errors| match errors.as_slice() {
            [e] if segment_count(e.instance_path().as_str()) == depth => match e.kind() {
                ValidationErrorKind::Constant { expected_value } => {
                    Some(vec![(**expected_value).clone()])
                }
                ValidationErrorKind::Enum { options } => options.as_array().cloned(),
                _ => None,
            },
            _ => None,
        })
        .collect::<Option<Vec<Vec<Value>>>>()
        .map(|groups| groups.into_iter().flatten().collect());
    if let Some(values) = constants.filter(|v| !v.is_empty()) {
        out.push(enum_error(path, instance, &values));
        return;
    }
    if let Some(tagged) = branches.and_then(|b| variants::discriminators(root, b)) {
        tagged_errors(root, path, instance, &tagged, context, out);
        return;
    }
    let tag_mismatch = |errors: &Vec<ValidationError<'static>>| {
        errors.iter().any(|e| {
            matches!(
                e.kind(),
                ValidationErrorKind::Constant { .. } | ValidationErrorKind::Enum { .. }
            ) && segment_count(e.instance_path().as_str()) == depth + 1
        })
    };
    // `null` is never the branch a non-null value was meant for (`Option<T>`).
    let null_branch = |index: usize| {
        !instance.is_null()
            && branches
                .and_then(|b| b.get(index))
                .is_some_and(|b| schema_walk::types_of(schema_walk::resolve(root, b)) == ["null"])
    };
    let meant: Vec<&Vec<ValidationError<'static>>> = context
        .iter()
        .enumerate()
        .filter(|(index, errs)| !tag_mismatch(errs) && !null_branch(*index))
        .map(|(_, errs)| errs)
        .collect();
    if let Some(best) = meant.iter().min_by_key(|errs| errs.len()) {
        convert_all(root, best, out);
        return;
    }
    // Every branch rejects the tag: name the allowed tags.
    let mut tags: Vec<Value> = Vec::new();
    let mut tag_key = None;
    for errors in context {
        for e in errors {
            if segment_count(e.instance_path().as_str()) != depth + 1 {
                continue;
            }
            match e.kind() {
                ValidationErrorKind::Constant { expected_value } => {
                    tags.push((**expected_value).clone());
                }
                ValidationErrorKind::Enum { options } => {
                    tags.extend(options.as_array().cloned().unwrap_or_default());
                }
                _ => continue,
            }
            tag_key = e
                .instance_path()
                .as_str()
                .rsplit('/')
                .next()
                .map(str::to_owned);
        }
    }
    tags.dedup();
    match tag_key {
        Some(key) if !tags.is_empty() => out.push(unknown_tag(path, &key, instance, &tags)),
        _ => out.push(no_shape(root, path, instance)),
    }
}

/// The errors of a tagged enum's value: those of the variant its tag names, or the
/// tag's own.
fn tagged_errors(
    root: &Value,
    path: &str,
    instance: &Value,
    tagged: &[(Discriminator, &Value)],
    context: &[Vec<ValidationError<'static>>],
    out: &mut Capped<PayloadError>,
) {
    if let Some(index) = tagged.iter().position(|(d, _)| d.matches(instance)) {
        let mut sub = Capped::errors();
        convert_all(root, &context[index], &mut sub);
        let label = tagged[index].0.label();
        let (sub, omitted) = sub.into_parts();
        for mut error in sub {
            if let Some(label) = &label {
                error.details_mut().message = format!("{} ({label})", error.message());
            }
            out.push(error);
        }
        out.count_omitted(omitted);
        return;
    }
    let tags: Vec<Value> = tagged
        .iter()
        .map(|(d, _)| d.tag())
        .filter(|tag| !tag.is_null())
        .collect();
    let member_key = tagged.iter().find_map(|(d, _)| match d {
        Discriminator::Member { key, .. } => Some(key.as_str()),
        _ => None,
    });
    match (member_key, instance) {
        (Some(key), Value::Object(map)) if !map.contains_key(key) => {
            // Which variant the content fits, when exactly one would take it with the
            // tag added.
            let fits: Vec<&Value> = tagged
                .iter()
                .zip(context)
                .filter(|(_, errors)| {
                    errors.iter().all(|e| {
                        matches!(e.kind(), ValidationErrorKind::Required { property }
                            if property.as_str() == Some(key))
                    })
                })
                .map(|((d, _), _)| match d {
                    Discriminator::Member { value, .. } => value,
                    _ => &Value::Null,
                })
                .collect();
            let member = pointer::join(path, key);
            let allowed = format!("one of {}", list_values(&tags));
            let suggestion = match fits.as_slice() {
                [only] => format!("add \"{key}\": {only} (allowed: {})", list_values(&tags)),
                _ => format!("add \"{key}\" ({allowed})"),
            };
            out.push(
                PayloadError::missing(member, format!("required member '{key}' is missing"))
                    .with_expected(allowed)
                    .with_suggestion(suggestion),
            );
        }
        (Some(key), Value::Object(_)) => out.push(unknown_tag(path, key, instance, &tags)),
        (None, Value::Object(map)) if map.len() == 1 => {
            // Externally tagged: the one member's name is the tag.
            let (name, content) = map.iter().next().expect("one member");
            let mut e = PayloadError::validation(
                pointer::join(path, name),
                format!("'{name}' is not a known variant"),
            )
            .with_received(content.clone())
            .with_expected(format!("one of {}", list_values(&tags)));
            e.details_mut().suggestion =
                Some(match closest_value(&Value::String(name.clone()), &tags) {
                    Some(best) => format!("use \"{best}\" (allowed: {})", list_values(&tags)),
                    None => format!("use one of: {}", list_values(&tags)),
                });
            out.push(e);
        }
        // `"bar"` for the variant `{"bar": {...}}`: the name is right, the content is
        // missing, and "not a known variant" would send the model looking for another.
        (None, Value::String(name))
            if tagged
                .iter()
                .any(|(d, _)| matches!(d, Discriminator::Key(key) if key == name)) =>
        {
            out.push(
                PayloadError::validation(
                    path,
                    format!("the variant \"{name}\" holds content: it is an object, not a string"),
                )
                .with_received(received(instance))
                .with_expected(format!("{{\"{name}\": ...}}"))
                .with_suggestion(format!(
                    "write {{\"{name}\": ...}} with the variant's content"
                )),
            );
        }
        (None, Value::String(_)) => {
            let mut e = enum_error(path, instance, &tags);
            e.details_mut().message = format!("{} is not a known variant", short(instance));
            out.push(e);
        }
        _ => out.push(no_shape(root, path, instance)),
    }
}

/// `"exprot" is not a known 'intent'`, with the valid tags and the closest suggested.
fn unknown_tag(path: &str, key: &str, instance: &Value, tags: &[Value]) -> PayloadError {
    let tag_path = pointer::join(path, key);
    let tag = instance.get(key).unwrap_or(&Value::Null);
    let mut e =
        PayloadError::validation(tag_path, format!("{} is not a known '{key}'", short(tag)))
            .with_received(received(tag))
            .with_expected(format!("one of {}", list_values(tags)));
    e.details_mut().suggestion = Some(match closest_value(tag, tags) {
        Some(best) => format!("use \"{best}\" (allowed: {})", list_values(tags)),
        None => format!("use one of: {}", list_values(tags)),
    });
    e
}

fn no_shape(root: &Value, path: &str, instance: &Value) -> PayloadError {
    PayloadError::validation(path, "the value matches none of the allowed shapes")
        .with_received(received(instance))
        .with_expected(
            schema_walk::at_pointer(root, path)
                .map(|s| describe(root, s))
                .unwrap_or_else(|| "one of the documented shapes".into()),
        )
}

fn enum_error(path: &str, instance: &Value, values: &[Value]) -> PayloadError {
    let mut e =
        PayloadError::validation(path, format!("{} is not an allowed value", short(instance)))
            .with_received(received(instance))
            .with_expected(format!("one of {}", list_values(values)));
    e.details_mut().suggestion = Some(match closest_value(instance, values) {
        Some(best) => format!("use \"{best}\" (allowed: {})", list_values(values)),
        None => format!("use one of: {}", list_values(values)),
    });
    e
}

fn segment_count(pointer: &str) -> usize {
    pointer.bytes().filter(|&b| b == b'/').count()
}

fn allowed_members(root: &Value, path: &str) -> Vec<String> {
    schema_walk::at_pointer(root, path)
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

/// One error per undeclared member of a closed object (docs/spec.md §7.1: a type that denies
/// unknown fields makes each one an error), with the near miss among the declared
/// members the object lacks named, by the rule of [`crate::validate::members`].
fn unknown_members<'n>(
    path: &str,
    names: impl Iterator<Item = &'n String>,
    allowed: &[String],
    instance: &Value,
    out: &mut Capped<PayloadError>,
) {
    let absent: Vec<Folded<'_>> = allowed
        .iter()
        .filter(|name| instance.get(name.as_str()).is_none())
        .map(|name| Folded::new(name))
        .collect();
    for name in names {
        if out.is_full() {
            out.count_omitted(1);
            continue;
        }
        let intended: Vec<String> = members::near_misses(name, &absent)
            .into_iter()
            .map(str::to_owned)
            .collect();
        out.push(unknown_member(path, name, allowed, &intended, instance));
    }
}

fn unknown_member(
    path: &str,
    name: &str,
    allowed: &[String],
    intended: &[String],
    instance: &Value,
) -> PayloadError {
    let mut e = PayloadError::validation(
        pointer::join(path, name),
        format!("unknown member '{name}'"),
    );
    e.details_mut().received = instance.get(name).map(received);
    e.details_mut().expected = Some(if allowed.is_empty() {
        "no other members".into()
    } else {
        format!("one of the members {}", allowed.join(", "))
    });
    e.details_mut().suggestion = Some(if !intended.is_empty() {
        members::did_you_mean(name, intended)
    } else if allowed.is_empty() {
        format!("remove '{name}'")
    } else {
        format!(
            "remove '{name}'; allowed members are {}",
            allowed.join(", ")
        )
    });
    e
}

/// The allowed value closest to a received string, if one is close.
fn closest_value(received: &Value, allowed: &[Value]) -> Option<String> {
    let received = received.as_str()?;
    closest(received, allowed.iter().filter_map(Value::as_str)).map(str::to_owned)
}

/// The candidate closest to `name` by normalized edit distance, if it is close enough
/// to be a likely typo or case/separator slip.
pub(crate) fn closest<'a>(
    name: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    let folded = fold(name);
    candidates
        .map(|c| {
            let score = if fold(c) == folded {
                1.0
            } else {
                strsim::normalized_damerau_levenshtein(&folded, &fold(c))
            };
            (c, score)
        })
        .filter(|(_, score)| *score >= 0.7)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(c, _)| c)
}

pub(crate) use crate::formats::fold_name as fold;

/// A value, shortened for a message.
fn short(value: &Value) -> String {
    let text = json_prefix(value, 240);
    if text.chars().count() <= 60 {
        text
    } else {
        let cut: String = text.chars().take(57).collect();
        format!("{cut}...")
    }
}

/// How long a received value's JSON may be before an error quotes it shortened.
const MAX_RECEIVED_BYTES: usize = 512;

/// What an error quotes as received: the value itself when its JSON is short, else the
/// start of its JSON as a string ending in `...`. A report stays small whatever the
/// model sent (docs/spec.md §8.1): a hundred errors on one large value do not copy it a hundred
/// times.
pub(crate) fn received(value: &Value) -> Value {
    if matches!(value, Value::Null | Value::Bool(_) | Value::Number(_)) {
        return value.clone();
    }
    let text = json_prefix(value, MAX_RECEIVED_BYTES + 1);
    if text.len() <= MAX_RECEIVED_BYTES {
        value.clone()
    } else {
        let mut end = MAX_RECEIVED_BYTES - 3;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        Value::String(format!("{}...", &text[..end]))
    }
}

/// The first `limit` bytes (or fewer, at a character boundary) of `value`'s JSON,
/// written without serializing the rest.
fn json_prefix(value: &Value, limit: usize) -> String {
    struct Prefix {
        bytes: Vec<u8>,
        limit: usize,
    }
    impl std::io::Write for Prefix {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let room = self.limit - self.bytes.len();
            if room == 0 {
                // Stops the serializer: the prefix is all that is wanted.
                return Err(std::io::ErrorKind::WriteZero.into());
            }
            let taken = buf.len().min(room);
            self.bytes.extend_from_slice(&buf[..taken]);
            Ok(taken)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut prefix = Prefix {
        bytes: Vec::new(),
        limit,
    };
    // An error here only means the limit was reached.
    let _ = serde_json::to_writer(&mut prefix, value);
    match String::from_utf8(prefix.bytes) {
        Ok(text) => text,
        Err(cut) => {
            let valid = cut.utf8_error().valid_up_to();
            let mut bytes = cut.into_bytes();
            bytes.truncate(valid);
            String::from_utf8(bytes).unwrap_or_default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A flattened adjacently tagged enum beside an optional member, closed with
    /// `unevaluatedProperties`, as schemars writes `#[serde(flatten)]`.
    fn command_schema() -> Value {
        json!({
            "type": "object",
            "oneOf": [
                {"type": "object", "properties": {"intent": {"const": "search"},
                  "parameters": {"$ref": "#/$defs/Search"}}, "required": ["intent", "parameters"]},
                {"type": "object", "properties": {"intent": {"const": "export"},
                  "parameters": {"$ref": "#/$defs/Export"}}, "required": ["intent", "parameters"]}
            ],
            "properties": {"confidence": {"type": ["number", "null"], "minimum": 0, "maximum": 1}},
            "unevaluatedProperties": false,
            "$defs": {
                "Search": {"type": "object", "additionalProperties": false,
                           "properties": {"query": {"type": "string"}}, "required": ["query"]},
                "Export": {"type": "object", "additionalProperties": false,
                           "properties": {"format": {"enum": ["json", "csv"]},
                                          "include_notes": {"type": ["boolean", "null"]}},
                           "required": ["format"]}
            }
        })
    }

    fn errors(schema: &Value, value: &Value) -> Vec<PayloadError> {
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(schema)
            .unwrap();
        let mut out = Capped::errors();
        collect(schema, validator.iter_errors(value), &mut out);
        out.finish()
    }

    #[test]
    fn a_known_tag_gets_its_variants_errors_without_unevaluated_noise() {
        let found = errors(
            &command_schema(),
            &json!({"intent": "export", "parameters": {"format": "pdf", "fancy": true}}),
        );
        let paths: Vec<&str> = found.iter().map(|e| e.path()).collect();
        assert_eq!(
            paths,
            ["/parameters/format", "/parameters/fancy"],
            "{found:#?}"
        );
        assert_eq!(
            found[1].expected(),
            Some("one of the members format, include_notes")
        );
        assert!(found[1].message().ends_with("(intent \"export\")"));
    }

    #[test]
    fn an_invented_top_level_member_lists_the_tag_members_as_allowed() {
        let found = errors(
            &command_schema(),
            &json!({"intent": "search", "parameters": {"query": "tech"}, "metadata": {}}),
        );
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].path(), "/metadata");
        let expected = found[0].expected().unwrap();
        assert!(
            expected.contains("confidence") && expected.contains("intent"),
            "{expected}"
        );
    }

    #[test]
    fn an_optional_tagged_value_is_checked_against_its_variant_not_null() {
        let schema = json!({
            "type": "object",
            "properties": {"op": {"anyOf": [{"$ref": "#/$defs/Op"}, {"type": "null"}]}},
            "$defs": {"Op": {"oneOf": [
                {"type": "object", "properties": {"action": {"const": "add"}, "name": {"type": "string"}},
                 "required": ["action", "name"]},
                {"type": "object", "properties": {"action": {"const": "remove"}, "id": {"type": "string"}},
                 "required": ["action", "id"]}
            ]}}
        });
        let found = errors(&schema, &json!({"op": {"action": "remove"}}));
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].path(), "/op/id");
        assert_eq!(
            found[0].message(),
            "required member 'id' is missing (action \"remove\")"
        );
    }
}
