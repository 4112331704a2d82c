//! The commands whose output is text for a model: a type's instructions and a page's
//! assembled system prompt.

use crate::error::CliError;
use crate::find_type;
use crate::input::read_json;
use payload_core::Dialect;
use payload_core::formats::Format;
use payload_prompt::{ManifestEntry, PromptBuilder};
use payload_registry::Registry;
use serde_json::Value;
use std::path::PathBuf;

/// The instructions of the type `name` in `format`: `marker` (inside a conversational
/// reply) or a whole-response format: `json`, `xml`, `delimited`, `tagged` or
/// `markdown`. A type the format cannot write faithfully (a map, an array of objects in
/// markdown) is refused with the reason.
pub fn instructions_text(
    registry: &Registry,
    name: &str,
    format: &str,
) -> Result<String, CliError> {
    use payload_core::instructions::{
        InstructionOptions, payload_instructions, whole_response_instructions_in,
    };
    let payload = find_type(registry, name)?;
    let options = InstructionOptions::default();
    if format == "marker" {
        return Ok(payload_instructions(payload, &options));
    }
    let parsed: Format = format.parse().map_err(|_| {
        CliError::Format(format!(
            "unknown format '{format}' (use marker, json, xml, delimited, tagged or markdown)"
        ))
    })?;
    payload_core::formats::expressible(parsed, &payload.schema(Dialect::Draft2020_12)).map_err(
        |reason| {
            CliError::Format(format!(
                "{name} cannot be written as {parsed}: {reason}; use json or marker"
            ))
        },
    )?;
    Ok(whole_response_instructions_in(payload, parsed, &options))
}

/// The system prompt of `page`, with the context and history read from their files.
pub fn prompt_text(
    registry: &Registry,
    page: &str,
    context: Option<&PathBuf>,
    history: Option<&PathBuf>,
    limit: u64,
) -> Result<String, CliError> {
    let mut builder = PromptBuilder::for_page(registry, page)?;
    if let Some(path) = context {
        let value: Value = read_json(path, limit)?;
        builder = builder.context(&value);
    }
    if let Some(path) = history {
        let entries: Vec<ManifestEntry> = read_json(path, limit)?;
        builder = builder.history(&entries);
    }
    Ok(builder.build())
}
