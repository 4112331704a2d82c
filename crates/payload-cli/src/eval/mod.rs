//! `payload eval --provider P --model NAME [--base-url URL] [--constrain TARGET]
//! [--choice auto|required|none] [--lazy] [--max-length N] [--max-items N]
//! [--markdown] TURNS`: runs a file of scripted user turns against a model and
//! reports, per turn, per page or type and overall, whether the expected payload was
//! accepted, what was rejected (by error kind), near-miss markers, re-asks and whether
//! they recovered, answers cut by the token limit, refusals and content filter stops
//! (counted apart as `refused` and `filtered`: outcomes of the model, neither a
//! rejected payload nor a failed turn), tokens and latency.
//!
//! A page turn runs as `payload chat` runs it (the page's system prompt with the turn's
//! context and history, its tools, the re-ask of a rejected payload); a type turn asks
//! for a whole response in JSON (the type's instructions as the system prompt) and
//! reads it with `extract`. With `--constrain` each request carries the grammar of its
//! page (with the turn's choice and expected types) or of its type (with the length
//! hints).

mod record;
mod report;
mod turns;

use crate::chat::{ClientOptions, RefusalOutcome, client, turn_deadline};
use crate::error::CliError;
use crate::grammar::{page_constraint, type_constraint};
use crate::{find_type, print_json};
use futures::StreamExt;
use payload_agent::{Agent, AgentEvent, FinishReason, Model, ModelMessage, ModelRequest};
use payload_core::formats::Format;
use payload_core::stream::StreamEvent;
use payload_core::{ErrorKind, ParsedResponse};
use payload_grammar::{Choice, Hints, PageOptions, Target};
use payload_instructions::{InstructionOptions, whole_response_instructions_in};
use payload_registry::Registry;
use record::{Call, Recorder};
use report::{RejectedOutcome, Report, TurnOutcome};
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;
use turns::{Turn, TurnTarget};

/// What `payload eval` was asked for.
#[derive(Debug)]
pub(crate) struct EvalRequest {
    /// The turn file.
    pub file: PathBuf,
    /// The model's client.
    pub model: ClientOptions,
    /// The grammar target sent with each request, if any.
    pub constrain: Option<Target>,
    /// The choice of turns that do not name one.
    pub choice: Choice,
    /// Page grammars switch on at the marker (GBNF).
    pub lazy: bool,
    /// Bounds on whole-response values the schema leaves open.
    pub hints: Hints,
    /// Markdown tables instead of JSON.
    pub markdown: bool,
}

/// Runs every turn and prints the report; `Ok(false)` when a turn failed (the model
/// or its time limit), so the command exits 1.
pub(crate) fn run(
    registry: &Registry,
    request: EvalRequest,
    limit: u64,
    out: &mut dyn Write,
) -> Result<bool, CliError> {
    let (description, turns) = turns::read(&request.file, request.choice, limit)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(CliError::Runtime)?;
    let mut outcomes = Vec::with_capacity(turns.len());
    for turn in &turns {
        let outcome = match &turn.target {
            TurnTarget::Page(page) => runtime.block_on(page_turn(registry, turn, page, &request)),
            TurnTarget::Type(name) => runtime.block_on(type_turn(registry, turn, name, &request)),
        }?;
        outcomes.push(outcome);
    }
    let constrain = request.constrain.map(|target| {
        if request.lazy {
            format!("{target}, lazy")
        } else {
            target.to_string()
        }
    });
    let mut model = format!("{:?} {}", request.model.provider, request.model.model).to_lowercase();
    if let Some(temperature) = request.model.temperature {
        model.push_str(&format!(", temperature {temperature}"));
    }
    let report = Report::new(description, model, constrain, outcomes);
    if request.markdown {
        write!(out, "{}", report.markdown())?;
    } else {
        print_json(out, &report)?;
    }
    Ok(report.overall.errors == 0)
}

/// A marker-mode turn on `page`, as `payload chat` runs it.
async fn page_turn(
    registry: &Registry,
    turn: &Turn,
    page: &str,
    request: &EvalRequest,
) -> Result<TurnOutcome, CliError> {
    let constraint = match request.constrain {
        Some(target) => {
            let options = PageOptions {
                choice: turn.choice,
                expected: if turn.choice == Choice::Required {
                    turn.expected.clone()
                } else {
                    Vec::new()
                },
                lazy: request.lazy,
                hints: request.hints,
            };
            Some(page_constraint(registry, page, target, &options, false)?)
        }
        None => None,
    };
    let system = turn.inputs.prompt(registry, page)?;
    let agent = Agent::for_page(registry, page)?
        .system(system)
        .capture_content(crate::telemetry::capture_content());
    let (model, log) = Recorder::new(client(&request.model, constraint));
    let context = turn
        .inputs
        .context
        .clone()
        .unwrap_or_else(|| json!({"current_page": page}));
    let started = Instant::now();
    let limit = turn_deadline(request.model.timeouts.deadline);
    let mut stream = agent.turn(
        model,
        vec![ModelMessage::user(turn.message.clone())],
        context,
    );
    let deadline = tokio::time::Instant::now() + limit;
    let mut parsed: Option<ParsedResponse> = None;
    let mut error = None;
    let mut refusal = None;
    loop {
        match tokio::time::timeout_at(deadline, stream.next()).await {
            Ok(Some(AgentEvent::Stream(StreamEvent::Complete(response)))) => {
                parsed = Some(*response)
            }
            Ok(Some(AgentEvent::Error { message })) => error = Some(message),
            Ok(Some(AgentEvent::Refusal { message, reason })) => {
                refusal = Some(RefusalOutcome { message, reason })
            }
            Ok(Some(_)) => {}
            Ok(None) => break,
            Err(_) => {
                error = Some(format!(
                    "the turn took longer than its deadline of {} s and was stopped",
                    limit.as_secs_f64()
                ));
                break;
            }
        }
    }
    drop(stream);
    let calls = log.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let mut outcome = outcome(turn, &calls, started, error);
    // A refused or filtered answer is its own outcome: what the filter cut is not
    // judged as a rejected payload.
    outcome.refusal = refusal;
    if let Some(parsed) = parsed.filter(|_| outcome.refusal.is_none()) {
        judge_page(&mut outcome, &parsed, &turn.expected);
    }
    Ok(outcome)
}

/// Fills in what the final parse says: the accepted payload, the refused ones, the
/// near misses.
fn judge_page(outcome: &mut TurnOutcome, parsed: &ParsedResponse, expected: &[String]) {
    let mut kinds: Vec<&str> = Vec::new();
    if let Some(payload) = &parsed.custom_payload {
        kinds.push(payload.kind.as_str());
    }
    if parsed.suggested_values.is_some() {
        kinds.push(payload_core::suggestions::SUGGESTED_VALUES_NAME);
    }
    if parsed.suggested_actions.is_some() {
        kinds.push(payload_core::suggestions::SUGGESTED_ACTIONS_NAME);
    }
    let hit = kinds.iter().find(|k| expected.iter().any(|e| e == *k));
    outcome.payload = hit
        .map(|k| k.to_string())
        .or_else(|| parsed.custom_payload.as_ref().map(|p| p.kind.clone()));
    if !expected.is_empty() {
        outcome.accepted = Some(hit.is_some());
    }
    // Each payload block is its own count: every accepted custom payload, in text
    // order, beside every refused block.
    outcome.payloads = parsed.payloads().map(|p| p.kind.clone()).collect();
    outcome.rejected = parsed
        .rejected
        .iter()
        .map(|r| RejectedOutcome::of(&r.kind, &r.errors))
        .collect();
    outcome.near_misses = parsed.missed_blocks().len();
    outcome.recovered = outcome.reasks > 0 && outcome.accepted == Some(true);
    outcome.truncated |= parsed
        .rejected
        .iter()
        .any(|r| r.errors.iter().any(|e| e.kind() == ErrorKind::Truncated));
}

/// A whole-response turn: one value of `name` as JSON.
async fn type_turn(
    registry: &Registry,
    turn: &Turn,
    name: &str,
    request: &EvalRequest,
) -> Result<TurnOutcome, CliError> {
    let payload = find_type(registry, name)?;
    let constraint = request
        .constrain
        .map(|target| type_constraint(payload, target, &request.hints, false))
        .transpose()?;
    let system =
        whole_response_instructions_in(payload, Format::Json, &InstructionOptions::default());
    let (mut model, log) = Recorder::new(client(&request.model, constraint));
    let model_request = ModelRequest {
        page: String::new(),
        system,
        messages: vec![ModelMessage::user(turn.message.clone())],
        tools: Vec::new(),
        output: None,
        iteration: 1,
    };
    let started = Instant::now();
    let limit = turn_deadline(request.model.timeouts.deadline);
    let mut stream = model.stream(&model_request);
    let drained = tokio::time::timeout(limit, async { while stream.next().await.is_some() {} });
    let mut error = drained.await.err().map(|_| {
        format!(
            "the turn took longer than its deadline of {} s and was stopped",
            limit.as_secs_f64()
        )
    });
    drop(stream);
    let calls = log.lock().unwrap_or_else(|e| e.into_inner()).clone();
    if error.is_none() {
        error = calls.last().and_then(|c| c.error.clone());
    }
    let mut outcome = outcome(turn, &calls, started, error);
    outcome.refusal = calls.last().and_then(|c| c.refused());
    if outcome.refusal.is_some() {
        // Counted as refused or filtered, never read as "no JSON value found".
        outcome.accepted = Some(false);
    } else if outcome.error.is_none() {
        let result = payload_core::extract_as(&outcome.text, payload, Some(Format::Json));
        outcome.accepted = Some(result.success);
        if result.success {
            outcome.payload = Some(payload.name.to_string());
            outcome.payloads = vec![payload.name.to_string()];
        } else {
            outcome.rejected = vec![RejectedOutcome::of(payload.name, &result.errors)];
        }
    } else {
        outcome.accepted = Some(false);
    }
    Ok(outcome)
}

/// What the calls of a turn say, before the answer is judged.
fn outcome(turn: &Turn, calls: &[Call], started: Instant, error: Option<String>) -> TurnOutcome {
    // A call that is not the last and called no tool was answered by a re-ask.
    let reasks = calls
        .iter()
        .take(calls.len().saturating_sub(1))
        .filter(|c| !c.called_tools)
        .count();
    let last = calls.last();
    TurnOutcome {
        target: turn.target.label(),
        message: turn.message.clone(),
        choice: turn.choice,
        expected: turn.expected.clone(),
        accepted: (!turn.expected.is_empty()).then_some(false),
        payload: None,
        payloads: Vec::new(),
        rejected: Vec::new(),
        near_misses: 0,
        reasks,
        recovered: false,
        truncated: last.is_some_and(|c| c.finish == Some(FinishReason::Length)),
        input_tokens: calls
            .iter()
            .filter_map(|c| c.usage.as_ref())
            .map(|u| u.input_tokens)
            .sum(),
        output_tokens: calls
            .iter()
            .filter_map(|c| c.usage.as_ref())
            .map(|u| u.output_tokens)
            .sum(),
        first_token_ms: calls
            .first()
            .and_then(|c| c.first_content)
            .map(|d| d.as_millis() as u64),
        total_ms: started.elapsed().as_millis() as u64,
        refusal: None,
        error,
        text: last.map(|c| c.text.clone()).unwrap_or_default(),
    }
}

/// Runs `payload eval`: exits 1 when a turn failed.
pub(crate) fn command(
    registry: &Registry,
    args: crate::args::EvalArgs,
    limit: u64,
    out: &mut dyn Write,
) -> Result<std::process::ExitCode, CliError> {
    let crate::args::ConstrainArgs {
        constrain,
        choice,
        hints,
    } = args.grammar;
    if !choice.expect.is_empty() {
        return Err(CliError::Usage(
            "payload eval takes the expected types from each turn's \"expect\"".into(),
        ));
    }
    let request = EvalRequest {
        file: args.file,
        model: ClientOptions::from(args.client).checked()?,
        constrain: constrain
            .as_deref()
            .map(crate::grammar::target)
            .transpose()?,
        choice: choice.choice,
        lazy: choice.lazy,
        hints: hints.hints(),
        markdown: args.markdown,
    };
    Ok(crate::exit_status(run(registry, request, limit, out)?))
}

#[cfg(test)]
mod tests;
