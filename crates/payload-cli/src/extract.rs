//! `payload extract (--type NAME | --schema FILE [--example FILE]) [--format F] [FILE]`
//! (docs/spec.md §4, §6): a whole response read as one value of a type, the
//! `ExtractResult` printed as JSON; exits 1 when `success` is false.

use crate::args::ExtractArgs;
use crate::error::CliError;
use crate::input::{limits, read_input};
use crate::{print_json, type_or_schema};
use payload_core::formats::Format;
use payload_registry::Registry;
use std::io::Write;
use std::process::ExitCode;

/// Runs `payload extract`.
pub(crate) fn command(
    registry: &Registry,
    args: ExtractArgs,
    limit: u64,
    out: &mut dyn Write,
) -> Result<ExitCode, CliError> {
    let payload = type_or_schema(
        registry,
        args.type_name.as_deref(),
        args.schema.as_ref(),
        args.example.as_ref(),
        limit,
    )?;
    let format = match args.format.as_str() {
        "auto" => None,
        other => Some(other.parse::<Format>().map_err(CliError::Format)?),
    };
    let text = read_input(args.file.as_ref(), limit)?;
    let result = payload_core::extract_as_with(&text, payload, format, limits(limit));
    print_json(out, &result)?;
    Ok(crate::exit_status(result.success))
}
