//! `payload chat --page PAGE --provider openai|anthropic [--base-url URL] --model NAME
//! --message TEXT [--max-tokens N]`: one agent turn on a page against a real model
//! server, its events printed as Server-Sent Events the way `payload stream` prints
//! them, ending with `complete`.

use crate::args::Provider;
use crate::error::CliError;
use futures::StreamExt;
use payload_agent::{Agent, AgentEvent, Model, ModelMessage};
use payload_core::ServerSentEvent;
use payload_prompt::PromptBuilder;
use payload_providers::{Anthropic, OpenAi};
use payload_registry::Registry;
use serde_json::json;
use std::io::Write;

/// What `payload chat` was asked for.
#[derive(Debug, Clone)]
pub(crate) struct ChatRequest {
    pub page: String,
    pub provider: Provider,
    pub base_url: Option<String>,
    pub model: String,
    pub message: String,
    pub max_tokens: Option<u32>,
    /// The grammar the server is asked to enforce (OpenAI-compatible servers only).
    pub constraint: Option<payload_providers::Constraint>,
}

/// Runs the turn, writing each event as it arrives; `Ok(false)` when the turn reported
/// an error (the events, `complete` included, are written all the same).
pub(crate) fn run(
    registry: &Registry,
    request: ChatRequest,
    out: &mut dyn Write,
) -> Result<bool, CliError> {
    let system = PromptBuilder::for_page(registry, &request.page)?.build();
    let agent = Agent::for_page(registry, &request.page)?.system(system);
    let model = model(&request);
    // One thread is enough for one turn; the clients need tokio's IO and timers.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(CliError::Runtime)?;
    runtime.block_on(async {
        let mut turn = agent.turn(
            model,
            vec![ModelMessage::user(request.message.clone())],
            json!({"current_page": request.page}),
        );
        let mut clean = true;
        while let Some(event) = turn.next().await {
            clean &= !matches!(event, AgentEvent::Error { .. });
            event.write_sse(out)?;
            out.flush()?;
        }
        Ok(clean)
    })
}

/// The client for the request's provider, with its key from the environment.
fn model(request: &ChatRequest) -> Box<dyn Model> {
    if let (Provider::Openai, Some(constraint)) = (request.provider, &request.constraint) {
        let mut client = OpenAi::new(&request.model).constrain(constraint.clone());
        if let Some(url) = &request.base_url {
            client = client.base_url(url);
        }
        if let Some(max) = request.max_tokens {
            client = client.max_tokens(max);
        }
        return Box::new(client);
    }
    client(
        request.provider,
        &request.model,
        request.base_url.as_deref(),
        request.max_tokens,
    )
}

/// A provider's client for `model`, with its key from the environment.
pub(crate) fn client(
    provider: Provider,
    model: &str,
    base_url: Option<&str>,
    max_tokens: Option<u32>,
) -> Box<dyn Model> {
    match provider {
        Provider::Openai => {
            let mut client = OpenAi::new(model);
            if let Some(url) = base_url {
                client = client.base_url(url);
            }
            if let Some(max) = max_tokens {
                client = client.max_tokens(max);
            }
            Box::new(client)
        }
        Provider::Anthropic => {
            let mut client = Anthropic::new(model);
            if let Some(url) = base_url {
                client = client.base_url(url);
            }
            if let Some(max) = max_tokens {
                client = client.max_tokens(max);
            }
            Box::new(client)
        }
    }
}

#[cfg(test)]
mod tests;
