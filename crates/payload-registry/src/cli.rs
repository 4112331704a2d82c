//! The `payload` command (SPEC section 6), as a library: any app can call [`main`] from
//! its own `main` to get the same commands over its own registry.

use crate::registry::{Registry, UnknownPage};
use clap::{Parser, Subcommand};
use payload_core::Dialect;
use payload_core::formats::Format;
use serde_json::{Value, json};
use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// Inputs larger than this are refused with a clear error rather than read whole.
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 16 * 1024 * 1024;

/// Command-line arguments of the `payload` command.
#[derive(Debug, Parser)]
#[command(
    name = "payload",
    version,
    about = "Parse, validate and document LLM payloads"
)]
pub struct Cli {
    /// Refuse inputs larger than this many bytes.
    #[arg(long, global = true, default_value_t = DEFAULT_MAX_INPUT_BYTES)]
    pub max_input_bytes: u64,
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Parse a response in marker mode and print the ParsedResponse.
    Parse {
        /// The page the response was given on.
        #[arg(long)]
        page: String,
        /// The response (default: standard input).
        file: Option<PathBuf>,
    },
    /// Read a whole response as one value of a type (SPEC section 4); exits 1 when
    /// `success` is false.
    Extract {
        /// The type's name.
        #[arg(long = "type")]
        type_name: String,
        /// json, xml, delimited, tagged, markdown, or auto (detect).
        #[arg(long, default_value = "auto")]
        format: String,
        /// The response (default: standard input).
        file: Option<PathBuf>,
    },
    /// Replay a response in chunks through the streaming parser and print SSE.
    Stream {
        /// The page the response was given on.
        #[arg(long)]
        page: String,
        /// Chunk size in bytes (cut at char boundaries).
        #[arg(long, default_value_t = crate::cli_stream::DEFAULT_CHUNK)]
        chunk: usize,
        /// The response (default: standard input).
        file: Option<PathBuf>,
    },
    /// Print a payload type's JSON Schema.
    Schema {
        /// The type's name.
        name: String,
        /// 2020-12, draft-07 or openai-strict.
        #[arg(long, default_value = "2020-12")]
        dialect: Dialect,
    },
    /// List the registered pages.
    Pages,
    /// List the registered payload types.
    Types,
    /// Print the LLM instructions for a payload type.
    Instructions {
        /// The type's name.
        name: String,
        /// `marker` (inside a conversational reply, the default), or the format of a
        /// response that is the value: json, xml, delimited, tagged or markdown.
        #[arg(long, default_value = "marker")]
        format: String,
    },
    /// Print the assembled system prompt of a page.
    Prompt {
        /// The page.
        #[arg(long)]
        page: String,
        /// The app's context JSON, for the CURRENT CONTEXT section.
        #[arg(long)]
        context: Option<PathBuf>,
        /// The conversation's payloads, for the PAYLOAD MANIFEST section: a JSON array of
        /// `{"turn", "payload": {"type", "data"}, "status"}`.
        #[arg(long)]
        history: Option<PathBuf>,
    },
    /// Print the generated prompt documentation (Markdown) for every page and type.
    Docs,
    /// Parse FILE N times in process and print {"bytes","iterations","seconds","mb_per_s"}.
    Bench {
        /// The page the response was given on.
        #[arg(long)]
        page: String,
        /// How many times to parse it.
        #[arg(long, default_value_t = crate::cli_bench::DEFAULT_ITERATIONS)]
        iterations: u32,
        /// The response.
        file: PathBuf,
    },
}

/// A failure that ends the command: printed to stderr, exit status 2 (except
/// [`CliError::ClosedPipe`], which ends it quietly).
#[derive(Debug)]
#[non_exhaustive]
pub enum CliError {
    /// The arguments are wrong: clap's message, or a value out of range.
    Usage(String),
    /// The page is not registered.
    UnknownPage(UnknownPage),
    /// The payload type is not registered.
    UnknownType {
        /// The name asked for.
        name: String,
        /// The registered type names.
        known: Vec<&'static str>,
    },
    /// The format is unknown, or the type cannot be written in it.
    Format(String),
    /// An input file could not be opened or read.
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The input is larger than `--max-input-bytes`.
    TooLarge {
        /// The limit in bytes.
        limit: u64,
    },
    /// The input is not UTF-8.
    NotUtf8 {
        /// Offset of the first invalid byte.
        offset: usize,
    },
    /// A JSON input file does not hold what the command needs.
    InvalidJson {
        /// The file.
        path: PathBuf,
        /// serde_json's message.
        message: String,
    },
    /// Writing the output failed.
    Output(io::Error),
    /// The output was closed (`payload ... | head`): not a failure of the command.
    ClosedPipe,
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CliError::Usage(message) | CliError::Format(message) => f.write_str(message),
            CliError::UnknownPage(error) => write!(f, "{error}"),
            CliError::UnknownType { name, known } => write!(
                f,
                "unknown payload type '{name}' (registered types: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ),
            CliError::Read { path, source } => {
                write!(f, "cannot read {}: {source}", path.display())
            }
            CliError::TooLarge { limit } => write!(
                f,
                "input is larger than {limit} bytes; raise --max-input-bytes to read it"
            ),
            CliError::NotUtf8 { offset } => {
                write!(f, "input is not UTF-8 (invalid byte at offset {offset})")
            }
            CliError::InvalidJson { path, message } => {
                write!(f, "{} is not valid here: {message}", path.display())
            }
            CliError::Output(error) => write!(f, "{error}"),
            CliError::ClosedPipe => f.write_str("the output was closed"),
        }
    }
}

impl std::error::Error for CliError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CliError::Read { source, .. } | CliError::Output(source) => Some(source),
            CliError::UnknownPage(error) => Some(error),
            _ => None,
        }
    }
}

impl From<io::Error> for CliError {
    fn from(error: io::Error) -> Self {
        if error.kind() == io::ErrorKind::BrokenPipe {
            CliError::ClosedPipe
        } else {
            CliError::Output(error)
        }
    }
}

impl From<UnknownPage> for CliError {
    fn from(error: UnknownPage) -> Self {
        CliError::UnknownPage(error)
    }
}

/// Runs the `payload` command over the global registry with the process's arguments.
pub fn main() -> ExitCode {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    match run(std::env::args_os(), Registry::global(), &mut out) {
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
            format,
            file,
        } => {
            let payload = find_type(registry, &type_name)?;
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
            crate::cli_stream::run(registry, &page, chunk, file.as_ref(), limit, out)?
        }
        Command::Schema { name, dialect } => {
            let payload = find_type(registry, &name)?;
            print_json(out, &payload.schema(dialect))?;
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
            let types: Vec<Value> = registry
                .types()
                .map(|t| {
                    json!({
                        "name": t.name,
                        "marker": t.marker,
                        "description": t.description,
                        "pages": registry.pages_offering(t.name),
                    })
                })
                .collect();
            print_json(out, &types)?;
        }
        Command::Instructions { name, format } => {
            let text = instructions_text(registry, &name, &format)?;
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
            write!(out, "{}", crate::docs::render(registry))?;
        }
        Command::Bench {
            page,
            iterations,
            file,
        } => crate::cli_bench::run(registry, &page, iterations, &file, limit, out)?,
    }
    Ok(ExitCode::SUCCESS)
}

fn find_type<'r>(
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

/// The library's limits for the `--max-input-bytes` the command was given: the one
/// setting, raised as well as lowered (SPEC 7.15), so what the command reads the
/// library reads too.
pub fn limits(max_input_bytes: u64) -> payload_core::Limits {
    let bytes = usize::try_from(max_input_bytes).unwrap_or(usize::MAX);
    payload_core::Limits::DEFAULT.max_input_bytes(bytes)
}

/// Reads FILE, or standard input when there is none, refusing more than `limit` bytes.
pub fn read_input(file: Option<&PathBuf>, limit: u64) -> Result<String, CliError> {
    let mut bytes = Vec::new();
    let read = match file {
        Some(path) => {
            let handle = std::fs::File::open(path).map_err(|source| CliError::Read {
                path: path.clone(),
                source,
            })?;
            handle.take(limit + 1).read_to_end(&mut bytes)
        }
        None => io::stdin().lock().take(limit + 1).read_to_end(&mut bytes),
    };
    read?;
    if bytes.len() as u64 > limit {
        return Err(CliError::TooLarge { limit });
    }
    String::from_utf8(bytes).map_err(|e| CliError::NotUtf8 {
        offset: e.utf8_error().valid_up_to(),
    })
}

fn print_json(out: &mut dyn Write, value: &impl serde::Serialize) -> Result<(), CliError> {
    serde_json::to_writer_pretty(&mut *out, value).map_err(|e| match e.io_error_kind() {
        Some(kind) => CliError::from(io::Error::from(kind)),
        None => CliError::Output(io::Error::other(e)),
    })?;
    writeln!(out)?;
    Ok(())
}

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
    let mut builder = registry.prompt(page)?;
    if let Some(path) = context {
        let value: Value = read_json(path, limit)?;
        builder = builder.context(&value);
    }
    if let Some(path) = history {
        let entries: Vec<crate::ManifestEntry> = read_json(path, limit)?;
        builder = builder.history(&entries);
    }
    Ok(builder.build())
}

fn read_json<T: serde::de::DeserializeOwned>(path: &PathBuf, limit: u64) -> Result<T, CliError> {
    let text = read_input(Some(path), limit)?;
    serde_json::from_str(&text).map_err(|e| CliError::InvalidJson {
        path: path.clone(),
        message: e.to_string(),
    })
}

#[cfg(test)]
#[path = "cli_limits_tests.rs"]
mod limits_tests;
