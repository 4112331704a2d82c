//! The instructions of one payload type: in marker mode (the payload sits inside a
//! conversational reply after `MARKER:`) and in whole-response mode (the reply is the
//! JSON value and nothing else, output-schema and SelfHelp).

use super::InstructionOptions;
use super::shape::{Definitions, TopLevel, render_shape, render_shape_in, top_level};
use payload_core::{PayloadKind, PayloadType};
use payload_schema::dialect::Dialect;
use serde_json::Value;
use std::fmt::Write;

/// Instructions for emitting `payload` in marker mode, for a system prompt's
/// "structured responses" section.
///
/// Layout: the marker and when to use the type (its description); the exact marker
/// line; the shape; then, when detailed, the required members and bounds in words; the
/// type's rules; the common mistakes (`error_prevention`); and the example written after
/// its marker (`include_example`). Concise keeps the first three and the rules.
pub fn payload_instructions(payload: &PayloadType, options: &InstructionOptions) -> String {
    let schema = payload.schema(Dialect::Draft2020_12);
    payload_instructions_in(payload, options, &mut Definitions::of(&[&schema]))
}

/// [`payload_instructions`] as one of several types in one prompt (a page's STRUCTURED
/// RESPONSES): a definition `definitions` counts as shared among them is written out
/// once, in the first type's shape that uses it, and named in the others
/// ([`Definitions`]).
pub fn payload_instructions_in(
    payload: &PayloadType,
    options: &InstructionOptions,
    definitions: &mut Definitions,
) -> String {
    let mut out = String::new();
    for (_, text) in marker_sections(payload, options, definitions) {
        out.push_str(&text);
    }
    finish(out)
}

/// The parts of [`payload_instructions`], in order, each named (`when to use`,
/// `marker`, `shape`, `requirements`, `rules`, `mistakes`, `example`), so their sizes
/// can be reported ([`section_sizes`]) from the very text the model gets. A part with
/// nothing to say is left out.
pub(super) fn marker_sections(
    payload: &PayloadType,
    options: &InstructionOptions,
    definitions: &mut Definitions,
) -> Vec<(&'static str, String)> {
    let schema = payload.schema(Dialect::Draft2020_12);
    let marker = payload.marker;
    let tag = payload.tag;
    let (open, close, kind) = brackets(&schema);
    let mut parts = Vec::new();
    // A type written in tags (docs/spec.md §1.21) is taught in its tags, never its marker.
    let mut head = if tag.is_empty() {
        format!("{marker}\n")
    } else {
        format!("<{tag}>\n")
    };
    if !payload.description.trim().is_empty() {
        let _ = writeln!(head, "When to use: {}", one_line(payload.description));
    }
    // A proposal is what the prompt assumes unless told (examples/payload/docs/prompts.md, "Payload
    // kinds"): only the other kinds say theirs, so the model knows what its reply
    // may claim.
    match payload.kind {
        PayloadKind::Proposal => {}
        PayloadKind::Command => head.push_str(
            "Kind: command. The application runs it as soon as your reply arrives, with no review.\n",
        ),
        PayloadKind::Display => head.push_str(
            "Kind: display. The application shows it to the user; it changes nothing.\n",
        ),
    }
    parts.push(("when to use", head));
    parts.push((
        "marker",
        if tag.is_empty() {
            format!(
                "\nWrite the marker {marker}: (capitals, with the colon), then one JSON {kind} on the same line or the next:\n{marker}: {open} ... {close}\n"
            )
        } else {
            format!(
                "\nWrite one JSON {kind} between the tags <{tag}> and </{tag}>, on lines of its own:\n<{tag}>\n{open} ... {close}\n</{tag}>\n"
            )
        },
    ));
    parts.push((
        "shape",
        format!(
            "\nShape ({}):\n{}\n",
            shape_legend(options),
            render_shape_in(&schema, options, definitions)
        ),
    ));
    let mut push = |name: &'static str, title: &str, items: &[String]| {
        let mut text = String::new();
        section(&mut text, title, items);
        if !text.is_empty() {
            parts.push((name, text));
        }
    };
    if options.detailed() && options.include_constraints {
        push(
            "requirements",
            "Requirements:",
            &requirements(&schema, options),
        );
    }
    push("rules", "Rules:", &rules(payload));
    if options.detailed() && options.error_prevention {
        let written = if tag.is_empty() {
            format!(
                "Write the marker exactly as {marker}: — same capitals and underscores, the colon right after it, no other words between the marker and the JSON."
            )
        } else {
            format!(
                "Write the tags exactly as <{tag}> and </{tag}>, with nothing but the JSON between them."
            )
        };
        let mistakes = vec![
            written,
            format!(
                "Write strict JSON: one {kind}, keys and strings in double quotes, no comments, no trailing commas, every bracket closed."
            ),
            "Use only the field names shown, spelled exactly; write enum values exactly as shown."
                .into(),
            crate::count::too_many(payload, options.payload_count),
        ];
        push("mistakes", "Avoid these mistakes:", &mistakes);
    }
    if options.detailed() && options.include_example {
        if let Some(example) = pretty_example(payload) {
            let written = if tag.is_empty() {
                format!("{marker}: {example}")
            } else {
                format!("<{tag}>\n{example}\n</{tag}>")
            };
            parts.push(("example", format!("\nExample:\n{written}\n")));
        }
    }
    parts
}

/// The size in characters of each part of `payload`'s marker-mode instructions with
/// `options`, in order (see [`payload_instructions`]): what the docs report so an app
/// knows what each part costs.
pub fn section_sizes(
    payload: &PayloadType,
    options: &InstructionOptions,
) -> Vec<(&'static str, usize)> {
    let schema = payload.schema(Dialect::Draft2020_12);
    marker_sections(payload, options, &mut Definitions::of(&[&schema]))
        .into_iter()
        .map(|(name, text)| (name, text.trim().chars().count()))
        .collect()
}

/// Instructions for a response that is the payload's JSON and nothing else (the output-schema app's
/// "RESPONSE FORMAT REQUIRED" layout; SelfHelp's "return ONLY JSON").
pub fn whole_response_instructions(payload: &PayloadType, options: &InstructionOptions) -> String {
    let schema = payload.schema(Dialect::Draft2020_12);
    let (open, close, kind) = brackets(&schema);
    let mut out = String::from("RESPONSE FORMAT REQUIRED:\n");
    if !payload.description.trim().is_empty() {
        let _ = writeln!(out, "\n{}", one_line(payload.description));
    }
    let _ = writeln!(
        out,
        "\nReturn your response as valid JSON matching this exact structure ({}):\n",
        shape_legend(options)
    );
    let _ = writeln!(out, "{}", render_shape(&schema, options));
    if options.detailed() && options.include_example {
        if let Some(example) = pretty_example(payload) {
            let _ = write!(out, "\nEXAMPLE OUTPUT:\n{example}\n");
        }
    }
    let mut requirements_list =
        vec!["Return ONLY valid JSON, no additional text or markdown.".to_string()];
    if options.detailed() && options.include_constraints {
        requirements_list.extend(requirements(&schema, options));
    }
    requirements_list.extend(rules(payload));
    if options.detailed() && options.error_prevention {
        requirements_list.push(format!(
            "Start your response with {open} and end it with {close}: no greeting, no explanation, no code fence."
        ));
        requirements_list.push(format!(
            "Write strict JSON: one {kind}, keys and strings in double quotes, no comments, no trailing commas."
        ));
        requirements_list.push(
            "Use only the field names shown, spelled exactly; write enum values exactly as shown."
                .into(),
        );
    }
    section(&mut out, "VALIDATION REQUIREMENTS:", &requirements_list);
    finish(out)
}

/// What the shape's notation means, said once before it.
pub(super) fn shape_legend(options: &InstructionOptions) -> &'static str {
    if options.include_constraints || options.include_descriptions {
        "only the fields shown; those marked ? are optional; // comments are notes, not part of the JSON"
    } else {
        "only the fields shown; those marked ? are optional"
    }
}

/// The required members and the bounds of the top level, in words.
pub(super) fn requirements(schema: &Value, options: &InstructionOptions) -> Vec<String> {
    let Some(TopLevel {
        required,
        optional,
        bounds,
        variants,
    }) = top_level(schema, options)
    else {
        return Vec::new();
    };
    let mut list = Vec::new();
    let mut fields = format!("Required fields: {}", or_none(&required));
    if !optional.is_empty() {
        let verb = if optional.len() == 1 { "is" } else { "are" };
        let _ = write!(fields, " ({} {verb} optional)", optional.join(", "));
    }
    fields.push('.');
    list.push(fields);
    for (tag, members) in variants {
        list.push(format!(
            "With {tag}, also required: {}.",
            members.join(", ")
        ));
    }
    for (name, text) in bounds {
        // An optional member's bounds hold when it is there: "at least 1 item" on a
        // member that may be left out would read as a contradiction.
        if optional.contains(&name) {
            list.push(format!("{name}, when given: {text}."));
        } else {
            list.push(format!("{name}: {text}."));
        }
    }
    list
}

pub(super) fn rules(payload: &PayloadType) -> Vec<String> {
    payload
        .rules
        .iter()
        .map(|rule| one_line(rule))
        .filter(|rule| !rule.is_empty())
        .collect()
}

pub(super) fn section(out: &mut String, title: &str, items: &[String]) {
    if items.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n{title}");
    for item in items {
        let _ = writeln!(out, "- {item}");
    }
}

/// `{`, `}` and "object" for an object schema; `[`, `]` and "array" for an array.
fn brackets(schema: &Value) -> (&'static str, &'static str, &'static str) {
    let root = payload_schema::walk::resolve(schema, schema);
    match root.get("type").and_then(Value::as_str) {
        Some("array") => ("[", "]", "array"),
        _ => ("{", "}", "object"),
    }
}

fn pretty_example(payload: &PayloadType) -> Option<String> {
    payload
        .example()
        .and_then(|example| serde_json::to_string_pretty(&example).ok())
}

fn or_none(names: &[String]) -> String {
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

/// Doc comments may wrap; a prompt line should not.
pub(super) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub(super) fn finish(mut out: String) -> String {
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out
}
