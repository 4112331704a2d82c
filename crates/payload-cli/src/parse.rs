//! `payload parse --page PAGE [FILE]` (docs/spec.md §6): a response read in marker mode
//! with the page's compiled parser, the `ParsedResponse` printed as JSON;
//! `--reasoning-opened-by-prompt` reads it as if it began with `<think>`.

use crate::args::ParseArgs;
use crate::error::CliError;
use crate::input::{limits, read_input};
use crate::print_json;
use payload_registry::Registry;
use std::io::Write;
use std::process::ExitCode;

/// Runs `payload parse`.
pub(crate) fn command(
    registry: &Registry,
    args: ParseArgs,
    limit: u64,
    out: &mut dyn Write,
) -> Result<ExitCode, CliError> {
    let text = read_input(args.file.as_ref(), limit)?;
    let mut parser = registry
        .page(&args.page)
        .map_err(CliError::UnknownPage)?
        .parser()
        .clone()
        .with_limits(limits(limit));
    if args.reasoning_opened_by_prompt {
        parser = parser.with_reasoning_opened_by_prompt();
    }
    print_json(out, &parser.parse(&text))?;
    Ok(ExitCode::SUCCESS)
}
