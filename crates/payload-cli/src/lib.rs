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
mod grammar;
mod input;
mod serve;
mod stream;
mod text;

pub use args::{
    Cli, ClientArgs, Command, ConstrainArgs, GrammarChoice, LengthHints, ModelTimeouts, Provider,
};
pub use error::CliError;
pub use input::{limits, read_input};
pub use serve::{ModelFactory, Serve, ServeRequest, Server};
pub use text::{instructions_for, instructions_text, prompt_text, schema_type};

use clap::Parser;
use payload_core::formats::Format;
use payload_core::schema::Dialect;
use payload_registry::Registry;
use serde_json::{Value, json};
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
            eprintln!("payload: {error}");
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
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(error) if !error.use_stderr() => {
            write!(out, "{error}")?;
            return Ok(ExitCode::SUCCESS);
        }
        Err(error) => return Err(CliError::Usage(error.to_string().trim_end().to_string())),
    };
    let limit = cli.max_input_bytes;
    match cli.command {
        Command::Parse { page, file } => {
            let text = read_input(file.as_ref(), limit)?;
            let parser = registry
                .page(&page)
                .map_err(CliError::UnknownPage)?
                .parser()
                .clone()
                .with_limits(limits(limit));
            print_json(out, &parser.parse(&text))?;
        }
        Command::Extract {
            type_name,
            schema,
            example,
            format,
            file,
        } => {
            let payload = type_or_schema(
                registry,
                type_name.as_deref(),
                schema.as_ref(),
                example.as_ref(),
                limit,
            )?;
            let format = match format.as_str() {
                "auto" => None,
                other => Some(other.parse::<Format>().map_err(CliError::Format)?),
            };
            let text = read_input(file.as_ref(), limit)?;
            let result = payload_core::extract_as_with(&text, payload, format, limits(limit));
            print_json(out, &result)?;
            if !result.success {
                return Ok(ExitCode::from(1));
            }
        }
        Command::Stream { page, chunk, file } => {
            stream::run(registry, &page, chunk, file.as_ref(), limit, out)?
        }
        #[cfg(feature = "providers")]
        Command::Chat {
            page,
            client,
            message,
            grammar:
                ConstrainArgs {
                    constrain,
                    choice,
                    hints,
                },
            type_name,
            mode,
            thinking_budget,
            context,
            history,
        } => {
            let constraint = constrain
                .map(|target| {
                    let target = grammar::target(&target)?;
                    let options = choice.options(&hints);
                    grammar::page_constraint(registry, &page, target, &options, true)
                })
                .transpose()?;
            let mut model = chat::ClientOptions::from(client);
            model.thinking_budget = thinking_budget;
            let model = model.checked()?;
            let output = chat::output(registry, type_name.as_deref(), mode)?;
            let inputs = text::PromptInputs::read(context.as_ref(), history.as_ref(), limit)?;
            let request = chat::ChatRequest {
                page,
                model,
                message,
                inputs,
                constraint,
                output,
            };
            if !chat::run(registry, request, out)? {
                return Ok(ExitCode::from(1));
            }
        }
        #[cfg(not(feature = "providers"))]
        Command::Chat { .. } => return Err(CliError::NoProviders),
        #[cfg(feature = "providers")]
        Command::Eval {
            file,
            client,
            grammar:
                ConstrainArgs {
                    constrain,
                    choice,
                    hints,
                },
            markdown,
        } => {
            if !choice.expect.is_empty() {
                return Err(CliError::Usage(
                    "payload eval takes the expected types from each turn's \"expect\"".into(),
                ));
            }
            let request = eval::EvalRequest {
                file,
                model: chat::ClientOptions::from(client).checked()?,
                constrain: constrain.as_deref().map(grammar::target).transpose()?,
                choice: choice.choice,
                lazy: choice.lazy,
                hints: hints.hints(),
                markdown,
            };
            if !eval::run(registry, request, limit, out)? {
                return Ok(ExitCode::from(1));
            }
        }
        #[cfg(not(feature = "providers"))]
        Command::Eval { .. } => return Err(CliError::NoProviders),
        Command::Serve {
            port,
            db,
            provider,
            base_url,
            model,
            max_tokens,
            timeouts,
            allow_hosts,
        } => {
            let server = server.ok_or(CliError::NoServer)?;
            let (model, turn_deadline) =
                serve::model(provider, model, base_url, max_tokens, timeouts)?;
            server
                .serve(ServeRequest {
                    port,
                    db,
                    model,
                    allow_hosts,
                    turn_deadline,
                })
                .map_err(CliError::Serve)?;
        }
        Command::Grammar {
            page,
            type_name,
            target,
            format,
            choice,
            hints,
            json,
        } => grammar::run(
            registry,
            grammar::GrammarRequest {
                page: page.as_deref(),
                type_name: type_name.as_deref(),
                target: &target,
                format: &format,
                page_options: choice.options(&hints),
                hints: hints.hints(),
                json,
            },
            out,
        )?,
        Command::Schema { name, dialect } => {
            let payload = find_type(registry, &name)?;
            let schema = match dialect {
                // The best-effort schema of a type that has no strict form would be
                // refused by the API: say why instead.
                Dialect::OpenAiStrict => {
                    payload
                        .strict_schema()
                        .map_err(|refusal| CliError::NotStrict {
                            name: name.clone(),
                            refusal,
                        })?
                }
                // A provider's native form: what it does not enforce left out (checked
                // locally), or why the type cannot be sent at all.
                Dialect::AnthropicStrict | Dialect::Gemini => {
                    payload_schema::dialect::native::native(
                        &payload.schema(Dialect::Draft2020_12),
                        dialect,
                    )
                    .map(|native| native.schema)
                    .map_err(|refusal| CliError::NotStrict {
                        name: name.clone(),
                        refusal,
                    })?
                }
                _ => payload.schema(dialect),
            };
            print_json(out, &schema)?;
        }
        Command::Pages => {
            let pages: Vec<Value> = registry
                .pages()
                .map(|info| {
                    json!({
                        "name": info.page.name,
                        "description": info.page.description,
                        "payloads": info.payloads.iter().map(|t| t.name).collect::<Vec<_>>(),
                        "actions": info.actions.iter().map(|a| a.action).collect::<Vec<_>>(),
                        "suggestions": info.page.suggestions,
                    })
                })
                .collect();
            print_json(out, &pages)?;
        }
        Command::Types => {
            let warnings = registry.warnings();
            let types: Vec<Value> = registry
                .types()
                .map(|t| {
                    let lacks: Vec<String> = warnings
                        .iter()
                        .filter(|w| w.type_name() == t.name)
                        .map(ToString::to_string)
                        .collect();
                    json!({
                        "name": t.name,
                        "marker": t.marker,
                        "description": t.description,
                        "pages": registry.pages_offering(t.name),
                        "warnings": lacks,
                    })
                })
                .collect();
            print_json(out, &types)?;
        }
        Command::Instructions {
            name,
            schema,
            example,
            format,
            verbosity,
        } => {
            let payload = type_or_schema(
                registry,
                name.as_deref(),
                schema.as_ref(),
                example.as_ref(),
                limit,
            )?;
            let options = payload_core::instructions::InstructionOptions {
                verbosity,
                ..Default::default()
            };
            let text = instructions_for(payload, &format, &options)?;
            writeln!(out, "{text}")?;
        }
        Command::Prompt {
            page,
            context,
            history,
        } => {
            let text = prompt_text(registry, &page, context.as_ref(), history.as_ref(), limit)?;
            writeln!(out, "{text}")?;
        }
        Command::Docs => {
            write!(out, "{}", payload_prompt::docs::render(registry))?;
        }
        Command::Bench {
            page,
            iterations,
            file,
        } => bench::run(registry, &page, iterations, &file, limit, out)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// The registered type named `name`, or else the type the schema file describes (clap
/// makes sure exactly one is given).
fn type_or_schema<'r>(
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
