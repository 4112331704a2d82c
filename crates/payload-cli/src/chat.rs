//! `payload chat --page PAGE --provider openai|anthropic [--base-url URL] --model NAME
//! --message TEXT [--max-tokens N] [--context FILE] [--history FILE]
//! [--first-token-timeout SECS] [--idle-timeout SECS] [--deadline SECS]`: one agent
//! turn on a page against a real model server, its events printed as Server-Sent
//! Events the way `payload stream` prints them, ending with `complete`.

use crate::args::{ModelTimeouts, Provider};
use crate::error::CliError;
use crate::text::PromptInputs;
use futures::StreamExt;
use payload_agent::{Agent, AgentEvent, Model, ModelMessage};
use payload_core::stream::sse::ServerSentEvent;
use payload_providers::{Anthropic, Constraint, DEFAULT_DEADLINE, OpenAi};
use payload_registry::Registry;
use serde_json::json;
use std::io::Write;
use std::time::Duration;

/// What `payload chat` was asked for.
#[derive(Debug)]
pub(crate) struct ChatRequest {
    pub page: String,
    pub model: ClientOptions,
    pub message: String,
    /// The context and history the system prompt is built with.
    pub inputs: PromptInputs,
    /// The grammar the server is asked to enforce (OpenAI-compatible servers only).
    pub constraint: Option<Constraint>,
}

/// How to make a provider's client: the same for `payload chat` and each turn of
/// `payload serve`.
#[derive(Debug, Clone)]
pub(crate) struct ClientOptions {
    pub provider: Provider,
    pub model: String,
    pub base_url: Option<String>,
    pub max_tokens: Option<u32>,
    pub timeouts: ModelTimeouts,
}

impl ClientOptions {
    /// The options, refused when the first-token timeout cannot be waited out before
    /// the deadline (the deadline would always come first).
    pub(crate) fn checked(self) -> Result<ClientOptions, CliError> {
        let deadline = self.timeouts.deadline.unwrap_or(DEFAULT_DEADLINE);
        if let Some(first) = self.timeouts.first_token_timeout {
            if first > deadline {
                return Err(CliError::Usage(format!(
                    "--first-token-timeout ({} s) is longer than the deadline ({} s): raise --deadline too",
                    first.as_secs_f64(),
                    deadline.as_secs_f64()
                )));
            }
        }
        Ok(self)
    }
}

/// How long a whole turn may take when each model request may take `deadline`
/// (`--deadline`, the providers' default when `None`): the same bound, and a second
/// more, so that a turn of one request that runs out of time is reported by the
/// client, which says what the model was doing, rather than by the turn.
pub(crate) fn turn_deadline(deadline: Option<Duration>) -> Duration {
    deadline.unwrap_or(DEFAULT_DEADLINE) + Duration::from_secs(1)
}

/// Runs the turn, writing each event as it arrives; `Ok(false)` when the turn reported
/// an error (the events, `complete` included, are written all the same).
pub(crate) fn run(
    registry: &Registry,
    request: ChatRequest,
    out: &mut dyn Write,
) -> Result<bool, CliError> {
    let system = request.inputs.prompt(registry, &request.page)?;
    let agent = Agent::for_page(registry, &request.page)?.system(system);
    let model = client(&request.model, request.constraint.clone());
    // The tools see the app's context when one was given.
    let context = request
        .inputs
        .context
        .clone()
        .unwrap_or_else(|| json!({"current_page": request.page}));
    // One thread is enough for one turn; the clients need tokio's IO and timers.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(CliError::Runtime)?;
    let limit = turn_deadline(request.model.timeouts.deadline);
    runtime.block_on(async {
        let mut turn = agent.turn(
            model,
            vec![ModelMessage::user(request.message.clone())],
            context,
        );
        let deadline = tokio::time::Instant::now() + limit;
        let mut clean = true;
        loop {
            let event = match tokio::time::timeout_at(deadline, turn.next()).await {
                Ok(Some(event)) => event,
                Ok(None) => break,
                Err(_) => {
                    let error = AgentEvent::Error {
                        message: format!(
                            "the turn took longer than its deadline of {} s and was stopped",
                            limit.as_secs_f64()
                        ),
                    };
                    error.write_sse(out)?;
                    out.flush()?;
                    return Ok(false);
                }
            };
            clean &= !matches!(event, AgentEvent::Error { .. });
            event.write_sse(out)?;
            out.flush()?;
        }
        Ok(clean)
    })
}

/// The builder settings both clients share, applied to either.
macro_rules! configure {
    ($client:expr, $options:expr) => {{
        let options: &ClientOptions = $options;
        let mut client = $client;
        if let Some(url) = &options.base_url {
            client = client.base_url(url);
        }
        if let Some(max) = options.max_tokens {
            client = client.max_tokens(max);
        }
        let timeouts = &options.timeouts;
        if let Some(timeout) = timeouts.first_token_timeout {
            client = client.first_token_timeout(timeout);
        }
        if let Some(timeout) = timeouts.idle_timeout {
            client = client.idle_timeout(timeout);
        }
        if let Some(deadline) = timeouts.deadline {
            client = client.deadline(deadline);
        }
        client
    }};
}

/// The provider's client for `options`, with its key from the environment; a grammar
/// is sent only to an OpenAI-compatible server.
pub(crate) fn client(options: &ClientOptions, constraint: Option<Constraint>) -> Box<dyn Model> {
    match options.provider {
        Provider::Openai => {
            let mut client = configure!(OpenAi::new(&options.model), options);
            if let Some(constraint) = constraint {
                client = client.constrain(constraint);
            }
            Box::new(client)
        }
        Provider::Anthropic => Box::new(configure!(Anthropic::new(&options.model), options)),
    }
}

#[cfg(test)]
mod tests;
