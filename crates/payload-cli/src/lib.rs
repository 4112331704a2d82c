//! # payload-cli
//!
//! The `payload` command (docs/spec.md §6) as a library: any app can call [`main`] from
//! its own `main` to get the same commands over its own registry, or [`run`] them over
//! a registry it built, writing to any output.
//!
//! It sits on top of the other crates and nothing depends on it: `payload-registry`
//! (pages and types to parse with), `payload-prompt` (`payload prompt`, `payload docs`),
//! `payload-agent` (the page options `payload stream` replays with, the turn `payload
//! chat` runs), `payload-providers` (the model clients of `payload chat`) and
//! `payload-core`; clap reads the command line. An app that only needs a registry does not link it.
//!
//! Each subcommand is one function in the subcommand's own module (`parse`, `extract`,
//! `stream`, `chat`, `eval`, `serve`, `grammar`, `schema`, `list` for `pages` and
//! `types`, `text` for `instructions`, `prompt` and `docs`, `bench`), and its arguments
//! one crate-private `clap::Args` struct (the command line's types are not part of the
//! API: an app passes [`run`] the words a user types); [`run_with_server`] only reads
//! the command line and dispatches.
//!
//! The `providers` feature (on by default) is `payload chat` and the model of `payload
//! serve`: the provider clients and their HTTP stack. Without it the crate links no
//! HTTP client and no async runtime, and those two commands say the build has no
//! providers (`CliError::NoProviders`); everything else works the same.

#![forbid(unsafe_code)]

mod args;
mod bench;
#[cfg(feature = "providers")]
mod chat;
mod error;
#[cfg(feature = "providers")]
mod eval;
mod extract;
mod grammar;
mod input;
mod list;
mod parse;
mod schema;
mod serve;
mod stream;
mod telemetry;
mod text;

// The command line's clap structs are the command's own: an app runs commands through
// [`run`] with the words a user types, so no flag's type is part of this crate's API.
use args::{Cli, Command, ModelTimeouts, Provider};
pub use error::CliError;
pub use input::{limits, read_input};
pub use serve::{ModelFactory, Serve, ServeRequest, Server};
pub use text::{instructions_for, instructions_text, prompt_text, schema_type};

use clap::{CommandFactory, FromArgMatches};
use payload_registry::Registry;
use std::ffi::OsString;
use std::io::{self, Write};
use std::process::ExitCode;

/// Runs the `payload` command over the global registry with the process's arguments.
/// `payload serve` says this build has no app to serve: see [`main_with_server`].
pub fn main() -> ExitCode {
    main_inner(None)
}

/// [`main`], with the app `payload serve` runs (a `payload_serve::App`, or any
/// [`Serve`]).
pub fn main_with_server(server: impl Serve + 'static) -> ExitCode {
    main_inner(Some(Box::new(server)))
}

fn main_inner(server: Option<Server>) -> ExitCode {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    match run_with_server(std::env::args_os(), Registry::global(), &mut out, server) {
        Ok(code) => code,
        Err(CliError::ClosedPipe) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("payload: {}", error.chain());
            ExitCode::from(2)
        }
    }
}

/// Runs the command given by `args` (the first is the program name) over `registry`,
/// writing its output to `out`.
pub fn run(
    args: impl IntoIterator<Item = impl Into<OsString> + Clone>,
    registry: &Registry,
    out: &mut dyn Write,
) -> Result<ExitCode, CliError> {
    run_with_server(args, registry, out, None)
}

/// [`run`], with the app `payload serve` runs (`None`: the command says there is none).
pub fn run_with_server(
    args: impl IntoIterator<Item = impl Into<OsString> + Clone>,
    registry: &Registry,
    out: &mut dyn Write,
    server: Option<Server>,
) -> Result<ExitCode, CliError> {
    // `serve`'s help names the app this build serves, which only the caller knows.
    let about = serve::about(server.as_ref());
    let command = Cli::command().mut_subcommand("serve", |serve| serve.about(about));
    let parsed = command
        .try_get_matches_from(args)
        .and_then(|matches| Cli::from_arg_matches(&matches));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(error) if !error.use_stderr() => {
            write!(out, "{error}")?;
            return Ok(ExitCode::SUCCESS);
        }
        Err(error) => return Err(CliError::Usage(error.to_string().trim_end().to_string())),
    };
    let limit = cli.max_input_bytes;
    // Kept to the end of the command: dropping it exports what is left.
    let _telemetry = telemetry::start(&cli.command);
    // One function per subcommand, in the subcommand's module.
    match cli.command {
        Command::Parse(args) => parse::command(registry, args, limit, out),
        Command::Extract(args) => extract::command(registry, args, limit, out),
        Command::Stream(args) => stream::command(registry, args, limit, out),
        #[cfg(feature = "providers")]
        Command::Chat(args) => chat::command(registry, args, limit, out),
        #[cfg(feature = "providers")]
        Command::Eval(args) => eval::command(registry, args, limit, out),
        #[cfg(not(feature = "providers"))]
        Command::Chat(_) | Command::Eval(_) => Err(CliError::NoProviders),
        Command::Serve(args) => serve::command(args, server),
        Command::Grammar(args) => grammar::command(registry, args, out),
        Command::Schema(args) => schema::command(registry, args, out),
        Command::Pages => list::pages(registry, out),
        Command::Types => list::types(registry, out),
        Command::Instructions(args) => text::instructions_command(registry, args, limit, out),
        Command::Prompt(args) => text::prompt_command(registry, args, limit, out),
        Command::Docs => text::docs_command(registry, out),
        Command::Bench(args) => bench::command(registry, args, limit, out),
    }
}

/// The registered type named `name`, or else the type the schema file describes (clap
/// makes sure exactly one is given).
pub(crate) fn type_or_schema<'r>(
    registry: &'r Registry,
    name: Option<&str>,
    schema: Option<&std::path::PathBuf>,
    example: Option<&std::path::PathBuf>,
    limit: u64,
) -> Result<&'r payload_core::PayloadType, CliError> {
    match (name, schema) {
        (Some(name), _) => find_type(registry, name),
        (None, Some(schema)) => schema_type(schema, example, limit),
        (None, None) => Err(CliError::Usage("name a type or give --schema FILE".into())),
    }
}

/// The registered type named `name`, or the error listing the registered ones.
pub(crate) fn find_type<'r>(
    registry: &'r Registry,
    name: &str,
) -> Result<&'r payload_core::PayloadType, CliError> {
    registry
        .payload_type(name)
        .ok_or_else(|| CliError::UnknownType {
            name: name.to_string(),
            known: registry.types().map(|t| t.name).collect(),
        })
}

/// The exit status of a command that ran and reports whether what it did succeeded:
/// 0, or 1 (a usage or input error is 2, from [`main`]).
pub(crate) fn exit_status(success: bool) -> ExitCode {
    if success {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

pub(crate) fn print_json(
    out: &mut dyn Write,
    value: &impl serde::Serialize,
) -> Result<(), CliError> {
    serde_json::to_writer_pretty(&mut *out, value).map_err(|e| match e.io_error_kind() {
        Some(kind) => CliError::from(io::Error::from(kind)),
        None => CliError::Output(io::Error::other(e)),
    })?;
    writeln!(out)?;
    Ok(())
}

#[cfg(test)]
mod limits_tests;
