//! The commands whose output is text for a model: a type's instructions and a page's
//! assembled system prompt.

use crate::error::CliError;
use crate::find_type;
use crate::input::read_json;
use payload_core::formats::Format;
use payload_core::{PayloadType, runtime::RuntimeOptions, schema::Dialect};
use payload_instructions::{
    InstructionOptions, payload_instructions, whole_response_instructions_in,
};
use payload_prompt::{ManifestEntry, PromptBuilder};
use payload_registry::Registry;
use serde_json::Value;
use std::path::PathBuf;

/// The instructions of the registered type `name` in `format`: `marker` (inside a
/// conversational reply) or a whole-response format: `json`, `xml`, `delimited`,
/// `tagged` or `markdown`. A type the format cannot write faithfully (a map, an array
/// of objects in markdown) is refused with the reason.
pub fn instructions_text(
    registry: &Registry,
    name: &str,
    format: &str,
) -> Result<String, CliError> {
    let payload = find_type(registry, name)?;
    instructions_for(payload, format, &InstructionOptions::default())
}

/// [`instructions_text`] for any type, registered or read from a schema file, with
/// the options given.
pub fn instructions_for(
    payload: &PayloadType,
    format: &str,
    options: &InstructionOptions,
) -> Result<String, CliError> {
    if format == "marker" {
        return Ok(payload_instructions(payload, options));
    }
    let parsed: Format = format.parse().map_err(|_| {
        CliError::Format(format!(
            "unknown format '{format}' (use marker, json, xml, delimited, tagged or markdown)"
        ))
    })?;
    payload_core::formats::expressible(parsed, &payload.schema(Dialect::Draft2020_12)).map_err(
        |reason| {
            CliError::Format(format!(
                "{} cannot be written as {parsed}: {reason}; use json or marker",
                payload.name
            ))
        },
    )?;
    Ok(whole_response_instructions_in(payload, parsed, options))
}

/// The payload type a JSON Schema file describes (with the example in `example`, if
/// given), checked first: a schema that cannot be a type is an error listing why.
pub fn schema_type(
    schema: &PathBuf,
    example: Option<&PathBuf>,
    limit: u64,
) -> Result<&'static PayloadType, CliError> {
    let document: Value = read_json(schema, limit)?;
    let example: Option<Value> = example.map(|path| read_json(path, limit)).transpose()?;
    let options = RuntimeOptions {
        example,
        ..RuntimeOptions::default()
    };
    PayloadType::from_schema(&document, options).map_err(|error| CliError::Schema {
        path: schema.clone(),
        error,
    })
}

/// The system prompt of `page`, with the context and history read from their files.
pub fn prompt_text(
    registry: &Registry,
    page: &str,
    context: Option<&PathBuf>,
    history: Option<&PathBuf>,
    limit: u64,
) -> Result<String, CliError> {
    let inputs = PromptInputs::read(context, history, limit)?;
    inputs.prompt(registry, page)
}

/// What a page's system prompt is built with besides the page: the app's context and
/// the conversation's payloads, as `--context FILE` and `--history FILE` give them.
#[derive(Debug, Default)]
pub(crate) struct PromptInputs {
    /// The context JSON, for CURRENT CONTEXT.
    pub context: Option<Value>,
    /// The payloads so far, for PAYLOAD MANIFEST.
    pub history: Vec<ManifestEntry>,
}

impl PromptInputs {
    /// Reads the files given (each under the input size limit).
    pub(crate) fn read(
        context: Option<&PathBuf>,
        history: Option<&PathBuf>,
        limit: u64,
    ) -> Result<PromptInputs, CliError> {
        Ok(PromptInputs {
            context: context.map(|path| read_json(path, limit)).transpose()?,
            history: history
                .map(|path| read_json(path, limit))
                .transpose()?
                .unwrap_or_default(),
        })
    }

    /// The system prompt of `page` with these inputs.
    pub(crate) fn prompt(&self, registry: &Registry, page: &str) -> Result<String, CliError> {
        let mut builder = PromptBuilder::for_page(registry, page)?;
        if let Some(context) = &self.context {
            builder = builder.context(context);
        }
        Ok(builder.history(&self.history).build())
    }
}

/// Runs `payload instructions`.
pub(crate) fn instructions_command(
    registry: &Registry,
    args: crate::args::InstructionsArgs,
    limit: u64,
    out: &mut dyn std::io::Write,
) -> Result<std::process::ExitCode, CliError> {
    let payload = crate::type_or_schema(
        registry,
        args.name.as_deref(),
        args.schema.as_ref(),
        args.example.as_ref(),
        limit,
    )?;
    let options = InstructionOptions {
        verbosity: args.verbosity,
        ..Default::default()
    };
    let text = instructions_for(payload, &args.format, &options)?;
    writeln!(out, "{text}")?;
    Ok(std::process::ExitCode::SUCCESS)
}

/// Runs `payload prompt`.
pub(crate) fn prompt_command(
    registry: &Registry,
    args: crate::args::PromptArgs,
    limit: u64,
    out: &mut dyn std::io::Write,
) -> Result<std::process::ExitCode, CliError> {
    let text = prompt_text(
        registry,
        &args.page,
        args.context.as_ref(),
        args.history.as_ref(),
        limit,
    )?;
    writeln!(out, "{text}")?;
    Ok(std::process::ExitCode::SUCCESS)
}

/// Runs `payload docs`.
pub(crate) fn docs_command(
    registry: &Registry,
    out: &mut dyn std::io::Write,
) -> Result<std::process::ExitCode, CliError> {
    write!(out, "{}", payload_prompt::docs::render(registry))?;
    Ok(std::process::ExitCode::SUCCESS)
}
