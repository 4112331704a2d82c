//! `payload chat --page PAGE --provider openai|openai-responses|anthropic|gemini
//! [--base-url URL] --model NAME --message TEXT [--type NAME] [--mode MODE]
//! [--max-tokens N] [--thinking-budget N] [--context FILE] [--history FILE]
//! [--first-token-timeout SECS] [--idle-timeout SECS] [--deadline SECS]
//! [--reasoning-opened-by-prompt]`: one agent
//! turn on a page against a real model server, its events printed as Server-Sent
//! Events the way `payload stream` prints them, ending with `complete`; with `--type`,
//! one value of that type asked for in `--mode` (whole-response mode, re-asked with
//! its errors), printed as JSON.

use crate::args::Mode;
use crate::args::{ClientArgs, ModelTimeouts, Provider};
use crate::error::CliError;
use crate::text::PromptInputs;
use futures::StreamExt;
use payload_agent::{
    Agent, AgentEvent, Model, ModelError, ModelMessage, ModelRequest, OutputMode, RefusalReason,
    Usage,
};
use payload_core::{ExtractResult, PayloadType, retry::RetryPolicy, stream::sse::ServerSentEvent};
use payload_providers::{
    Anthropic, Constraint, DEFAULT_DEADLINE, ExtractOptions, Gemini, OpenAi, OpenAiResponses,
};
use payload_registry::Registry;
use serde::Serialize;
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
    /// The grammar the server is asked to enforce (OpenAI-compatible servers, and a
    /// Lark grammar on the Responses API).
    pub constraint: Option<Constraint>,
    /// Whole-response mode: the type asked for, and how.
    pub output: Option<(PayloadType, OutputMode)>,
    /// The model's prompt opens its reasoning (`--reasoning-opened-by-prompt`).
    pub reasoning_opened_by_prompt: bool,
}

/// The type and mode `--type` and `--mode` ask for: none for a page's turn (marker
/// mode); a mode other than auto or marker needs a type.
pub(crate) fn output(
    registry: &payload_registry::Registry,
    type_name: Option<&str>,
    mode: Mode,
) -> Result<Option<(PayloadType, OutputMode)>, CliError> {
    let mode = match mode {
        Mode::Auto => OutputMode::Auto,
        Mode::Native => OutputMode::Native,
        Mode::Tool => OutputMode::Tool,
        Mode::Prompted => OutputMode::Prompted,
        Mode::Marker => OutputMode::Marker,
    };
    match (type_name, mode) {
        (None, OutputMode::Auto | OutputMode::Marker) => Ok(None),
        (None, mode) => Err(CliError::Usage(format!(
            "--mode {} asks for one value of a type: name it with --type",
            mode.name()
        ))),
        (Some(_), OutputMode::Marker) => Err(CliError::Usage(
            "--mode marker is a turn on the page: leave out --type".into(),
        )),
        (Some(name), mode) => {
            let payload = registry
                .payload_type(name)
                .ok_or_else(|| CliError::UnknownType {
                    name: name.to_string(),
                    known: registry.types().map(|t| t.name).collect(),
                })?;
            Ok(Some((*payload, mode)))
        }
    }
}

/// How to make a provider's client: the same for `payload chat` and each turn of
/// `payload serve`.
#[derive(Debug, Clone)]
pub(crate) struct ClientOptions {
    pub provider: Provider,
    pub model: String,
    pub base_url: Option<String>,
    pub max_tokens: Option<u32>,
    /// The sampling temperature, when not the server's.
    pub temperature: Option<f32>,
    /// The thinking budget (Anthropic and Gemini).
    pub thinking_budget: Option<u32>,
    pub timeouts: ModelTimeouts,
}

impl From<ClientArgs> for ClientOptions {
    fn from(args: ClientArgs) -> ClientOptions {
        ClientOptions {
            provider: args.provider,
            model: args.model,
            base_url: args.base_url,
            max_tokens: args.max_tokens,
            temperature: args.temperature,
            thinking_budget: None,
            timeouts: args.timeouts,
        }
    }
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
/// an error or a refusal (the events, `complete` included, are written all the same).
pub(crate) fn run(
    registry: &Registry,
    request: ChatRequest,
    out: &mut dyn Write,
) -> Result<bool, CliError> {
    if let Some((payload, mode)) = request.output {
        return whole_response(payload, mode, &request, out);
    }
    let system = request.inputs.prompt(registry, &request.page)?;
    let mut agent = Agent::for_page(registry, &request.page)?
        .system(system)
        .capture_content(crate::telemetry::capture_content());
    if request.reasoning_opened_by_prompt {
        agent = agent.reasoning_opened_by_prompt();
    }
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
            // A refusal or a filter's stop is an outcome, not a failure of the tools;
            // but the turn has no answer, which a script wants to know from the exit
            // code.
            clean &= !matches!(event, AgentEvent::Error { .. } | AgentEvent::Refusal { .. });
            event.write_sse(out)?;
            out.flush()?;
        }
        Ok(clean)
    })
}

/// A refusal or a content filter's stop as `payload chat --type` and `payload eval`
/// print it: the shape of the `refusal` event's data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct RefusalOutcome {
    /// The model's or the provider's words, or a sentence saying what happened.
    pub message: String,
    /// `refusal` or `content_filter`.
    pub reason: RefusalReason,
}

impl RefusalOutcome {
    /// The outcome a model error is, if it is one (a `Refused` or `Filtered` error).
    pub(crate) fn of(error: &ModelError) -> Option<RefusalOutcome> {
        error.refusal().map(|reason| RefusalOutcome {
            message: error.message.clone(),
            reason,
        })
    }
}

/// What `payload chat --type` prints: the last attempt's result, how many attempts
/// there were, the tokens of them all, and what stopped the loop (a model error, a
/// refusal or a content filter's stop, a spent budget).
#[derive(Serialize)]
struct WholeResponse<'a> {
    result: Option<&'a ExtractResult>,
    attempts: usize,
    usage: Usage,
    #[serde(skip_serializing_if = "Option::is_none")]
    refusal: Option<RefusalOutcome>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a ModelError>,
}

/// One value of `payload` asked for in `mode`, re-asked with its errors (three attempts
/// at most), the extraction printed as JSON; `Ok(false)` unless it succeeded.
fn whole_response(
    payload: PayloadType,
    mode: OutputMode,
    request: &ChatRequest,
    out: &mut dyn Write,
) -> Result<bool, CliError> {
    let mut model = client(&request.model, None);
    let options = payload_instructions::InstructionOptions::default();
    let mut model_request = ModelRequest::new(vec![ModelMessage::user(request.message.clone())]);
    model_request.system = payload_instructions::whole_response_instructions(&payload, &options);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(CliError::Runtime)?;
    let options = ExtractOptions::new(RetryPolicy::default()).mode(mode);
    let extraction = runtime.block_on(payload_providers::extract_payload(
        &mut model,
        model_request,
        &payload,
        options,
    ));
    let error = extraction.outcome.model_error.as_ref();
    let refusal = error.and_then(RefusalOutcome::of);
    let printed = WholeResponse {
        result: extraction.outcome.result.as_ref(),
        attempts: extraction.outcome.attempts.len(),
        usage: extraction.usage,
        refusal,
        error: error.filter(|e| e.refusal().is_none()),
    };
    crate::print_json(out, &printed)?;
    Ok(extraction.outcome.succeeded())
}

/// The builder settings every client shares, applied to any.
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
        if let Some(temperature) = options.temperature {
            client = client.temperature(temperature);
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
/// is sent only to an OpenAI-compatible server, or as a Lark grammar to the Responses
/// API (which takes no other kind).
pub(crate) fn client(options: &ClientOptions, constraint: Option<Constraint>) -> Box<dyn Model> {
    match options.provider {
        Provider::Openai => {
            let mut client = configure!(OpenAi::new(&options.model), options);
            if let Some(constraint) = constraint {
                client = client.constrain(constraint);
            }
            Box::new(client)
        }
        Provider::OpenaiResponses => {
            let mut client = configure!(OpenAiResponses::new(&options.model), options);
            if let Some(Constraint::Lark(grammar)) = constraint {
                client = client.grammar(grammar);
            }
            Box::new(client)
        }
        Provider::Anthropic => {
            let mut client = configure!(Anthropic::new(&options.model), options);
            if let Some(budget) = options.thinking_budget {
                client = client.thinking_budget(budget);
            }
            Box::new(client)
        }
        Provider::Gemini => {
            let mut client = configure!(Gemini::new(&options.model), options);
            if let Some(budget) = options.thinking_budget {
                client = client.thinking_budget(budget);
            }
            Box::new(client)
        }
    }
}

/// Runs `payload chat`: exits 1 when the turn reported an error, a refusal or a
/// content filter's stop (the `refusal` event; with `--type`, the printed `refusal`).
pub(crate) fn command(
    registry: &Registry,
    args: crate::args::ChatArgs,
    limit: u64,
    out: &mut dyn Write,
) -> Result<std::process::ExitCode, CliError> {
    let crate::args::ConstrainArgs {
        constrain,
        choice,
        hints,
    } = args.grammar;
    let constraint = constrain
        .map(|target| {
            let target = crate::grammar::target(&target)?;
            let options = choice.options(&hints);
            crate::grammar::page_constraint(registry, &args.page, target, &options, true)
        })
        .transpose()?;
    let mut model = ClientOptions::from(args.client);
    model.thinking_budget = args.thinking_budget;
    let model = model.checked()?;
    let output = output(registry, args.type_name.as_deref(), args.mode)?;
    if args.reasoning_opened_by_prompt && output.is_some() {
        return Err(CliError::Usage(
            "--reasoning-opened-by-prompt reads a turn on the page: leave out --type".into(),
        ));
    }
    let inputs = PromptInputs::read(args.context.as_ref(), args.history.as_ref(), limit)?;
    let request = ChatRequest {
        page: args.page,
        model,
        message: args.message,
        inputs,
        constraint,
        output,
        reasoning_opened_by_prompt: args.reasoning_opened_by_prompt,
    };
    Ok(crate::exit_status(run(registry, request, out)?))
}

#[cfg(test)]
mod tests;
