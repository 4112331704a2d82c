//! Why a command failed, and how each failure reads on stderr.

use payload_agent::AgentError;
use payload_registry::UnknownPage;
use std::io;
use std::path::PathBuf;

/// A failure that ends the command: printed to stderr with its causes (each
/// [`source`](std::error::Error::source) after a `: `), exit status 2 (except
/// [`CliError::ClosedPipe`], which ends it quietly). A variant with a cause prints only
/// its own words; the cause is its `source()`, printed once.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CliError {
    /// The arguments are wrong: clap's message, or a value out of range.
    #[error("{0}")]
    Usage(String),
    /// The page is not registered.
    #[error(transparent)]
    UnknownPage(UnknownPage),
    /// The payload type is not registered.
    #[error(
        "unknown payload type '{name}' (registered types: {})",
        registered(known)
    )]
    UnknownType {
        /// The name asked for.
        name: String,
        /// The registered type names.
        known: Vec<&'static str>,
    },
    /// The type has no OpenAI strict schema (`payload schema NAME --dialect
    /// openai-strict`).
    #[error("payload type '{name}' has no OpenAI strict schema")]
    NotStrict {
        /// The type's name.
        name: String,
        /// Why.
        #[source]
        refusal: payload_core::schema::StrictRefusal,
    },
    /// The format is unknown, or the type cannot be written in it.
    #[error("{0}")]
    Format(String),
    /// An input file could not be opened or read.
    #[error("cannot read {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The input is larger than `--max-input-bytes`.
    #[error("input is larger than {limit} bytes; raise --max-input-bytes to read it")]
    TooLarge {
        /// The limit in bytes.
        limit: u64,
    },
    /// The input is not UTF-8.
    #[error("input is not UTF-8 (invalid byte at offset {offset})")]
    NotUtf8 {
        /// Offset of the first invalid byte.
        offset: usize,
    },
    /// A JSON input file does not hold what the command needs.
    #[error("{} is not valid here: {message}", path.display())]
    InvalidJson {
        /// The file.
        path: PathBuf,
        /// serde_json's message.
        message: String,
    },
    /// The page's agent cannot be built (it names a tool that is not registered).
    #[error(transparent)]
    Agent(AgentError),
    /// The async runtime for the model call could not be started.
    #[error("cannot start the async runtime")]
    Runtime(#[source] io::Error),
    /// A grammar could not be made (unknown target, format, or a provider that takes
    /// no grammar).
    #[error("{0}")]
    Grammar(String),
    /// A schema file cannot be a payload type.
    #[error("{}", path.display())]
    Schema {
        /// The file.
        path: PathBuf,
        /// Every problem with it.
        #[source]
        error: payload_core::runtime::SchemaError,
    },
    /// `payload serve` in a build that has no app to serve.
    #[error("this build of payload has no app to serve (the workspace's payload binary has)")]
    NoServer,
    /// `payload chat` or a provider for `payload serve` in a build without the
    /// `providers` feature.
    #[error(
        "this build of payload has no model providers (its payload-cli was built \
         without the `providers` feature)"
    )]
    NoProviders,
    /// The server could not start or stopped with an error.
    #[error("the server failed")]
    Serve(#[source] io::Error),
    /// Writing the output failed.
    #[error(transparent)]
    Output(io::Error),
    /// The output was closed (`payload ... | head`): not a failure of the command.
    #[error("the output was closed")]
    ClosedPipe,
}

impl CliError {
    /// The error and each of its causes, `: ` between them: what the command prints
    /// after `payload: `.
    pub fn chain(&self) -> String {
        let mut text = self.to_string();
        let mut cause = std::error::Error::source(self);
        while let Some(error) = cause {
            text.push_str(": ");
            text.push_str(&error.to_string());
            cause = error.source();
        }
        text
    }
}

/// The registered type names, for [`CliError::UnknownType`].
fn registered(known: &[&str]) -> String {
    if known.is_empty() {
        "none".to_string()
    } else {
        known.join(", ")
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

#[cfg(test)]
mod tests {
    use super::CliError;
    use payload_agent::AgentError;
    use payload_registry::UnknownPage;
    use std::io;

    use payload_loopback::errors::assert_each_cause_printed_once;

    /// A cause with words of its own and a cause of its own.
    #[derive(Debug, thiserror::Error)]
    #[error("the disk said no")]
    struct Deep(#[source] io::Error);

    fn io_cause() -> io::Error {
        io::Error::other(Deep(io::Error::other("sector 7 is gone")))
    }

    #[test]
    fn every_cause_is_printed_once_and_the_chain_reads_as_before() {
        let unknown = || UnknownPage {
            name: "nope".into(),
            known: vec!["home"],
        };
        let errors = [
            CliError::Read {
                path: "in.txt".into(),
                source: io_cause(),
            },
            CliError::Runtime(io_cause()),
            CliError::Serve(io_cause()),
            CliError::Output(io_cause()),
            CliError::UnknownPage(unknown()),
            CliError::Agent(AgentError::UnknownPage(unknown())),
            CliError::Agent(AgentError::UnknownTool {
                page: "home".into(),
                tool: "t".into(),
            }),
        ];
        for error in &errors {
            assert_each_cause_printed_once(error);
        }
        let with_cause: Vec<String> = errors.iter().take(4).map(CliError::chain).collect();
        assert_eq!(
            with_cause,
            [
                "cannot read in.txt: the disk said no: sector 7 is gone",
                "cannot start the async runtime: the disk said no: sector 7 is gone",
                "the server failed: the disk said no: sector 7 is gone",
                "the disk said no: sector 7 is gone",
            ]
        );
        assert_eq!(
            errors[4].chain(),
            "unknown page 'nope' (registered pages: home)"
        );
    }
}
