//! Why a command failed, and how each failure reads on stderr.

use payload_agent::AgentError;
use payload_registry::UnknownPage;
use std::io;
use std::path::PathBuf;

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
    /// The type has no OpenAI strict schema (`payload schema NAME --dialect
    /// openai-strict`).
    NotStrict {
        /// The type's name.
        name: String,
        /// Why.
        refusal: payload_core::schema::StrictRefusal,
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
    /// The page's agent cannot be built (it names a tool that is not registered).
    Agent(AgentError),
    /// The async runtime for the model call could not be started.
    Runtime(io::Error),
    /// A grammar could not be made (unknown target, format, or a provider that takes
    /// no grammar).
    Grammar(String),
    /// A schema file cannot be a payload type.
    Schema {
        /// The file.
        path: PathBuf,
        /// Every problem with it.
        error: payload_core::runtime::SchemaError,
    },
    /// `payload serve` in a build that has no app to serve.
    NoServer,
    /// `payload chat` or a provider for `payload serve` in a build without the
    /// `providers` feature.
    NoProviders,
    /// The server could not start or stopped with an error.
    Serve(io::Error),
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
            CliError::NotStrict { name, refusal } => write!(
                f,
                "payload type '{name}' has no OpenAI strict schema: {refusal}"
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
            CliError::Agent(error) => write!(f, "{error}"),
            CliError::Runtime(error) => write!(f, "cannot start the async runtime: {error}"),
            CliError::Grammar(message) => f.write_str(message),
            CliError::Schema { path, error } => write!(f, "{}: {error}", path.display()),
            CliError::NoServer => f.write_str(
                "this build of payload has no app to serve (the workspace's payload binary has)",
            ),
            CliError::NoProviders => f.write_str(
                "this build of payload has no model providers (its payload-cli was built \
                 without the `providers` feature)",
            ),
            CliError::Serve(error) => write!(f, "the server failed: {error}"),
            CliError::Output(error) => write!(f, "{error}"),
            CliError::ClosedPipe => f.write_str("the output was closed"),
        }
    }
}

impl std::error::Error for CliError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CliError::Read { source, .. }
            | CliError::Output(source)
            | CliError::Runtime(source)
            | CliError::Serve(source) => Some(source),
            CliError::Agent(error) => Some(error),
            CliError::UnknownPage(error) => Some(error),
            CliError::NotStrict { refusal, .. } => Some(refusal),
            CliError::Schema { error, .. } => Some(error),
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

impl From<AgentError> for CliError {
    fn from(error: AgentError) -> Self {
        match error {
            AgentError::UnknownPage(error) => CliError::UnknownPage(error),
            other => CliError::Agent(other),
        }
    }
}
