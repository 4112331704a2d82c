//! Whole-response mode over a model: ask for one value of a payload type (natively, with
//! the type's schema as the provider's structured output), read the answer with
//! payload-core's JSON extraction, and re-ask with the errors until it is valid, with
//! payload-core's retry driver on tokio's timer. The answer's reasoning (the provider's
//! reasoning channel, then any `<think>` section of its text) is never read for the value;
//! it is the result's `reasoning`.

use crate::native::native_schema;
use futures::StreamExt;
use payload_agent::{
    FinishReason, Model, ModelChunk, ModelError, ModelErrorKind, ModelMessage, ModelRequest,
    OutputMode, RefusalReason, StructuredOutput, Usage,
};
use payload_core::stream::ReasoningText;
use payload_core::{
    LlmPayload, PayloadType, extract_json, retry::RetryOutcome, retry::RetryPolicy,
    retry::RetryRequest, schema::Dialect,
};
use payload_instructions::{InstructionOptions, whole_response_instructions};
use serde_json::Value;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The structured output asked of the provider for `payload`, the one place that
/// decides the schemas: for native mode, the type's schema in each dialect that can
/// send it ([`native_schema`]: what a dialect does not enforce left out and listed, a
/// non-object root wrapped); for tool mode, the openai-strict one when there is one
/// (sent with `strict: true`), else the type's ordinary schema (wrapped the same way).
pub fn structured_output(payload: &PayloadType) -> StructuredOutput {
    let mut output = StructuredOutput::new(
        payload.name,
        payload.description,
        payload.schema(Dialect::Draft2020_12),
    );
    for dialect in crate::native::PROVIDER_DIALECTS {
        let Ok(native) = native_schema(payload, dialect) else {
            continue;
        };
        output.unenforced.extend(native.unenforced.iter().map(|u| {
            let at = if u.path.is_empty() { "/" } else { &u.path };
            format!("{}: {at} {}", dialect.as_str(), u.keyword)
        }));
        output
            .native
            .insert(dialect.as_str().to_string(), native.schema);
    }
    let (schema, wrapped) = crate::native::wrap_root(std::mem::take(&mut output.schema));
    output.wrapped = wrapped.map(str::to_string);
    match output
        .native
        .get(payload_core::schema::Dialect::OpenAiStrict.as_str())
    {
        Some(strict) => {
            output.schema = strict.clone();
            output.strict = true;
        }
        None => output.schema = schema,
    }
    output
}

/// Asks `model` for one `T` after `messages`, re-asking with the errors until the
/// answer is valid or `policy.max_attempts` are spent. The system prompt is `T`'s
/// whole-response instructions. See [`extract_with`].
pub async fn extract<T: LlmPayload>(
    model: &mut impl Model,
    messages: Vec<ModelMessage>,
    policy: RetryPolicy,
) -> (Option<T>, RetryOutcome<ModelError>) {
    let system = whole_response_instructions(&T::TYPE, &InstructionOptions::default());
    let mut request = ModelRequest::new(messages);
    request.system = system;
    extract_with(model, request, policy).await
}

/// [`extract`] from a request of the caller's (its page, system prompt and
/// conversation; its `output` is set to `T`'s), in [`OutputMode::Auto`], with no token
/// budget. See [`extract_in`].
pub async fn extract_with<T: LlmPayload>(
    model: &mut impl Model,
    request: ModelRequest,
    policy: RetryPolicy,
) -> (Option<T>, RetryOutcome<ModelError>) {
    let extraction = extract_in::<T>(model, request, ExtractOptions::new(policy)).await;
    (extraction.value, extraction.outcome)
}

/// How an extraction asks and re-asks: the output mode and the budget across re-asks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExtractOptions {
    /// How the client asks for the value (resolved by its provider's capability, see
    /// docs/cli.md's provider table).
    pub mode: OutputMode,
    /// Attempts in all, the wait between them, the time one may take.
    pub policy: RetryPolicy,
    /// The most tokens (input and output, every attempt's added up) the extraction may
    /// spend: no attempt starts once they are spent. `None` for no limit.
    pub max_tokens: Option<u64>,
}

impl ExtractOptions {
    /// `policy` in [`OutputMode::Auto`], without a token budget.
    pub fn new(policy: RetryPolicy) -> ExtractOptions {
        ExtractOptions {
            mode: OutputMode::Auto,
            policy,
            max_tokens: None,
        }
    }

    /// Sets the output mode.
    pub fn mode(mut self, mode: OutputMode) -> ExtractOptions {
        self.mode = mode;
        self
    }

    /// Sets the token budget across every attempt.
    pub fn max_tokens(mut self, tokens: u64) -> ExtractOptions {
        self.max_tokens = Some(tokens);
        self
    }
}

/// What an extraction gave: the value, every attempt, and what they cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Extraction<T> {
    /// The value, when an attempt was valid.
    pub value: Option<T>,
    /// Every attempt, the last one's result, and the error that stopped the loop (a
    /// model failure, a refusal, or a [`ModelErrorKind::Budget`] stop).
    pub outcome: RetryOutcome<ModelError>,
    /// The tokens of every attempt, added up (on success and on failure alike).
    pub usage: Usage,
}

/// Asks `model` for one `T` after the request's conversation, re-asking with the
/// errors until the answer is valid or the budget is spent. See [`extract_payload`].
pub async fn extract_in<T: LlmPayload>(
    model: &mut impl Model,
    request: ModelRequest,
    options: ExtractOptions,
) -> Extraction<T> {
    let extraction = extract_payload(model, request, &T::TYPE, options).await;
    let value = extraction
        .outcome
        .result
        .as_ref()
        .and_then(|r| r.decode::<T>());
    Extraction {
        value,
        outcome: extraction.outcome,
        usage: extraction.usage,
    }
}

/// [`extract_in`] for a payload type known at run time (a registry's), its value as
/// JSON (the outcome's result). The economics of the re-asks:
///
/// - A re-ask sends the request's conversation, the last answer and its errors only:
///   the conversation does not grow with the attempts (it holds one rejected answer
///   at most, never the transcript of every attempt).
/// - The loop stops before an attempt once the token budget is spent, and when the
///   same errors come back twice in a row (the model is not correcting them); both
///   are a [`ModelErrorKind::Budget`] error in the outcome.
/// - Usage is summed over every attempt and returned whatever the outcome.
/// - A model error ends the loop (the clients have already retried what the network
///   failed); a refusal is a [`ModelErrorKind::Refused`] error, a content filter's
///   stop a [`ModelErrorKind::Filtered`] one, never re-asked. An answer cut by the
///   token limit is checked like any other (and fails as incomplete JSON).
pub async fn extract_payload(
    model: &mut impl Model,
    request: ModelRequest,
    payload: &PayloadType,
    options: ExtractOptions,
) -> Extraction<Value> {
    let mut request = request;
    let mut output = structured_output(payload);
    output.mode = options.mode;
    // Strict and native output write `null` for a member left out: read it as absent.
    let checked = if output.strict || !output.native.is_empty() {
        payload.strict_nulls()
    } else {
        *payload
    };
    let wrapped = output.wrapped.clone();
    request.output = Some(output);
    let state = Mutex::new(Conversation {
        model,
        base: request.messages.clone(),
        request,
        answer: None,
        reasoning: String::new(),
        usage: Usage::default(),
        max_tokens: options.max_tokens,
        last_feedback: None,
    });
    let state = &state;
    let outcome = payload_core::retry::retry_async(
        options.policy,
        move |retry: RetryRequest| {
            // The lock is held to start the stream and to keep its answer, never
            // across an await.
            let started = lock(state).start(retry);
            async move {
                let (text, reasoning, usage) = collect(started?).await;
                let mut conversation = lock(state);
                conversation.usage.input_tokens += usage.input_tokens;
                conversation.usage.output_tokens += usage.output_tokens;
                let text = text?;
                conversation.answer = Some(text.clone());
                conversation.reasoning = reasoning;
                Ok(text)
            }
        },
        |text| match &wrapped {
            Some(member) => unwrap_answer(text, member, &checked),
            None => extract_json(text, &checked),
        },
        tokio::time::sleep,
    )
    .await;
    let mut outcome = outcome;
    let mut conversation = lock(state);
    if let Some(result) = outcome.result.as_mut() {
        // The last answer's reasoning channel goes before the reasoning in its text.
        let channel = std::mem::take(&mut conversation.reasoning);
        let mut reasoning = ReasoningText::new();
        for part in [Some(channel.as_str()), result.reasoning.as_deref()]
            .into_iter()
            .flatten()
        {
            reasoning.section();
            reasoning.push(part);
        }
        result.reasoning = reasoning.text().map(str::to_owned);
    }
    let value = outcome
        .result
        .as_ref()
        .filter(|r| r.success)
        .and_then(|r| r.data.clone());
    Extraction {
        value,
        outcome,
        usage: conversation.usage,
    }
}

/// An answer to a wrapped output (`{"value": ...}`) read as the type's value: the
/// member's value is checked as the type. An answer written without the wrapper is
/// read as it is (nothing the model wrote is lost either way).
fn unwrap_answer(text: &str, member: &str, checked: &PayloadType) -> payload_core::ExtractResult {
    let wrapper = crate::native::wrapper_type(member);
    if let Some(wrapper) = wrapper {
        let outer = extract_json(text, wrapper);
        if let Some(inner) = outer.data.as_ref().and_then(|d| d.get(member)) {
            let mut result = extract_json(&inner.to_string(), checked);
            result.reasoning = outer.reasoning;
            return result;
        }
    }
    extract_json(text, checked)
}

/// The conversation of an extraction, as the attempts go.
struct Conversation<'m, M> {
    model: &'m mut M,
    /// The caller's conversation, which every attempt starts from.
    base: Vec<ModelMessage>,
    request: ModelRequest,
    /// The last answer, until the re-ask that sends it back.
    answer: Option<String>,
    /// The last answer's reasoning channel (never read for the value).
    reasoning: String,
    /// Every attempt's tokens, added up.
    usage: Usage,
    max_tokens: Option<u64>,
    /// The errors the last re-ask sent.
    last_feedback: Option<String>,
}

fn lock<'a, 'm, M>(state: &'a Mutex<Conversation<'m, M>>) -> MutexGuard<'a, Conversation<'m, M>> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<M: Model> Conversation<'_, M> {
    /// Starts attempt `retry`, or says why it must not start.
    fn start(&mut self, retry: RetryRequest) -> Result<payload_agent::ModelStream, ModelError> {
        let spent = self.usage.input_tokens + self.usage.output_tokens;
        if let Some(budget) = self.max_tokens.filter(|budget| spent >= *budget) {
            return Err(ModelError::new(
                ModelErrorKind::Budget,
                format!(
                    "the token budget of {budget} is spent ({spent} tokens over {} attempt(s)); not asking again",
                    retry.attempt - 1
                ),
            ));
        }
        if let Some(feedback) = &retry.feedback {
            if self.last_feedback.as_ref() == Some(feedback) {
                return Err(ModelError::new(
                    ModelErrorKind::Budget,
                    "the same errors came back twice; not asking again",
                ));
            }
        }
        // A re-ask sends the conversation, the last answer, then its errors: never the
        // earlier attempts. After an attempt that timed out there is no new answer: the
        // re-ask before it is sent again as it was.
        if let (Some(feedback), Some(answer)) = (retry.feedback, self.answer.take()) {
            let mut messages = self.base.clone();
            messages.push(ModelMessage::assistant(answer));
            messages.push(ModelMessage::user(feedback.clone()));
            self.request.messages = messages;
            self.last_feedback = Some(feedback);
        }
        self.request.iteration = retry.attempt;
        Ok(self.model.stream(&self.request))
    }
}

/// The answer's text (or the error that ended it), its reasoning channel and its
/// tokens. A refusal is a [`ModelErrorKind::Refused`] error carrying the model's
/// words, a content filter's stop a [`ModelErrorKind::Filtered`] one: outcomes the
/// retry driver does not re-ask (the same request would be refused again).
async fn collect(
    mut stream: payload_agent::ModelStream,
) -> (Result<String, ModelError>, String, Usage) {
    let mut text = String::new();
    let mut reasoning = String::new();
    let mut usage = Usage::default();
    let mut refusal = String::new();
    let mut finish: Option<FinishReason> = None;
    while let Some(chunk) = stream.next().await {
        match chunk {
            ModelChunk::Text(piece) => text.push_str(&piece),
            ModelChunk::Reasoning(piece) => reasoning.push_str(&piece),
            ModelChunk::Refusal(piece) => refusal.push_str(&piece),
            ModelChunk::Finish(reason) => finish = Some(reason),
            ModelChunk::Usage(tokens) => {
                usage.input_tokens += tokens.input_tokens;
                usage.output_tokens += tokens.output_tokens;
            }
            ModelChunk::Error(error) => return (Err(error), reasoning, usage),
            _ => {}
        }
    }
    // A filter's stop is an outcome like a refusal: what text came before it is not
    // an answer to check (and re-ask as "no JSON value found").
    let text = match RefusalReason::of(&refusal, finish.as_ref()) {
        Some(reason) => Err(ModelError::refused(reason, &refusal)),
        None => Ok(text),
    };
    (text, reasoning, usage)
}

#[cfg(test)]
mod tests {
    use super::*;
    use payload_core::LlmPayload;

    /// A type OpenAI's strict subset can say, with an optional member.
    #[derive(
        Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema, LlmPayload,
    )]
    #[payload(name = "note", marker = "NOTE")]
    struct Note {
        /// The title.
        title: String,
        /// A remark, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        remark: Option<String>,
    }

    #[test]
    fn a_type_with_a_strict_schema_is_asked_for_strictly() {
        let output = structured_output(&Note::TYPE);
        assert!(output.strict);
        assert_eq!(output.schema["additionalProperties"], false);
        assert_eq!(
            output.schema["required"],
            serde_json::json!(["title", "remark"])
        );
        // A free-form map cannot be strict: the ordinary schema, not marked strict.
        let refused = structured_output(&payload_builtin::DataProposal::TYPE);
        assert!(!refused.strict);
    }

    #[tokio::test]
    async fn a_strict_answer_writing_null_for_a_member_left_out_is_accepted() {
        let mut seen = Vec::new();
        let mut model = |request: &ModelRequest| {
            seen.push(request.output.clone());
            vec![ModelChunk::Text(
                r#"{"title": "Groceries", "remark": null}"#.into(),
            )]
        };
        let (note, outcome) = extract::<Note>(
            &mut model,
            vec![ModelMessage::user("note")],
            RetryPolicy::attempts(1),
        )
        .await;
        assert_eq!(
            note,
            Some(Note {
                title: "Groceries".into(),
                remark: None
            }),
            "{outcome:?}"
        );
        assert!(seen[0].as_ref().is_some_and(|o| o.strict));
    }

    #[tokio::test]
    async fn reasoning_is_never_the_value_and_is_returned_apart() {
        let mut model = |_: &ModelRequest| {
            vec![
                ModelChunk::Reasoning(r#"Draft: {"title": "Wrong"}"#.into()),
                ModelChunk::Text("<think>Check it.</think>\n".into()),
                ModelChunk::Text(r#"{"title": "Groceries"}"#.into()),
            ]
        };
        let (note, outcome) = extract::<Note>(
            &mut model,
            vec![ModelMessage::user("note")],
            RetryPolicy::attempts(1),
        )
        .await;
        assert_eq!(note.unwrap().title, "Groceries");
        let result = outcome.result.unwrap();
        assert_eq!(
            result.reasoning.as_deref(),
            Some("Draft: {\"title\": \"Wrong\"}\n\nCheck it.")
        );
    }

    /// A script answering `answers` in turn, each with `tokens` of usage, keeping every
    /// request it got.
    fn script<'s>(
        answers: Vec<&'static str>,
        seen: &'s mut Vec<ModelRequest>,
    ) -> impl FnMut(&ModelRequest) -> Vec<ModelChunk> + Send + 's {
        let mut next = 0;
        move |request: &ModelRequest| {
            seen.push(request.clone());
            let answer = answers[next.min(answers.len() - 1)];
            next += 1;
            vec![
                ModelChunk::Text(answer.into()),
                ModelChunk::Usage(Usage {
                    input_tokens: 60,
                    output_tokens: 40,
                }),
            ]
        }
    }

    fn options(attempts: usize) -> ExtractOptions {
        let mut policy = RetryPolicy::attempts(attempts);
        policy.delay = std::time::Duration::ZERO;
        ExtractOptions::new(policy)
    }

    #[tokio::test]
    async fn a_reask_sends_the_last_answer_and_its_errors_only_so_the_context_never_grows() {
        let mut seen = Vec::new();
        // Errors that change every time, so that the loop does not stop for repeats.
        let answers = vec![
            r#"{"title": 1}"#,
            r#"{"remark": "a"}"#,
            r#"{"title": 2}"#,
            r#"{"remark": "b"}"#,
            r#"{"title": "Groceries"}"#,
        ];
        let request = ModelRequest::new(vec![
            ModelMessage::user("earlier"),
            ModelMessage::assistant("ok"),
            ModelMessage::user("note"),
        ]);
        let extraction =
            extract_in::<Note>(&mut script(answers, &mut seen), request, options(5)).await;
        assert_eq!(
            extraction.value.map(|n| n.title).as_deref(),
            Some("Groceries")
        );
        assert_eq!(seen.len(), 5);
        assert_eq!(seen[0].messages.len(), 3);
        for (n, request) in seen.iter().enumerate().skip(1) {
            assert_eq!(request.messages.len(), 5, "attempt {}", n + 1);
            assert_eq!(request.messages[..3], seen[0].messages[..]);
        }
        // The re-ask of attempt 5 carries attempt 4's answer, not the earlier ones.
        assert_eq!(
            seen[4].messages[3],
            ModelMessage::assistant(r#"{"remark": "b"}"#)
        );
        assert_eq!(
            extraction.usage,
            Usage {
                input_tokens: 300,
                output_tokens: 200
            },
            "usage is summed over every attempt"
        );
    }

    #[tokio::test]
    async fn the_same_errors_twice_stop_the_loop_with_the_usage_so_far() {
        let mut seen = Vec::new();
        let extraction = extract_in::<Note>(
            &mut script(vec!["{}"], &mut seen),
            ModelRequest::new(vec![]),
            options(5),
        )
        .await;
        assert!(extraction.value.is_none());
        assert_eq!(
            seen.len(),
            2,
            "the second identical errors are not re-asked"
        );
        let error = extraction.outcome.model_error.unwrap();
        assert_eq!(error.kind, ModelErrorKind::Budget);
        assert!(error.message.contains("same errors"), "{error}");
        assert_eq!(extraction.usage.input_tokens, 120);
    }

    #[tokio::test]
    async fn no_attempt_starts_once_the_token_budget_is_spent() {
        let mut seen = Vec::new();
        let answers = vec![r#"{"title": 1}"#, r#"{"remark": "a"}"#, r#"{"title": 2}"#];
        let extraction = extract_in::<Note>(
            &mut script(answers, &mut seen),
            ModelRequest::new(vec![]),
            options(5).max_tokens(150),
        )
        .await;
        assert_eq!(
            seen.len(),
            2,
            "100 tokens spent < 150: a second attempt; 200: none"
        );
        let error = extraction.outcome.model_error.unwrap();
        assert_eq!(error.kind, ModelErrorKind::Budget);
        assert!(error.message.contains("token budget of 150"), "{error}");
        assert_eq!(
            extraction.usage.input_tokens + extraction.usage.output_tokens,
            200
        );
    }

    #[tokio::test]
    async fn a_refusal_ends_extraction_as_a_refused_error() {
        let mut model = |_: &ModelRequest| {
            vec![
                ModelChunk::Refusal("No.".into()),
                ModelChunk::Finish(FinishReason::Refusal),
            ]
        };
        let (note, outcome) = extract::<Note>(
            &mut model,
            vec![ModelMessage::user("note")],
            RetryPolicy::attempts(3),
        )
        .await;
        assert!(note.is_none());
        let error = outcome.model_error.unwrap();
        assert_eq!(
            (error.kind, error.message.as_str()),
            (ModelErrorKind::Refused, "No.")
        );
        assert!(outcome.result.is_none());
    }

    #[tokio::test]
    async fn a_content_filter_stop_ends_extraction_as_a_filtered_error_never_reasked() {
        for (chunks, said) in [
            (
                vec![ModelChunk::Finish(FinishReason::ContentFilter)],
                "The provider's content filter stopped the answer.",
            ),
            (
                vec![
                    ModelChunk::Text("{\"title\": \"Gro".into()),
                    ModelChunk::Refusal("blocked (SAFETY)".into()),
                    ModelChunk::Finish(FinishReason::ContentFilter),
                ],
                "blocked (SAFETY)",
            ),
        ] {
            let mut calls = 0;
            let mut model = |_: &ModelRequest| {
                calls += 1;
                chunks.clone()
            };
            let (note, outcome) = extract::<Note>(
                &mut model,
                vec![ModelMessage::user("note")],
                RetryPolicy::attempts(3),
            )
            .await;
            assert!(note.is_none());
            let error = outcome.model_error.unwrap();
            assert_eq!(
                (error.kind, error.message.as_str()),
                (ModelErrorKind::Filtered, said)
            );
            assert_eq!(error.refusal(), Some(RefusalReason::ContentFilter));
            assert!(outcome.result.is_none(), "nothing was read as an answer");
            assert_eq!(calls, 1, "a filter's stop is not re-asked");
        }
    }
}
