//! Whole-response mode over a model: ask for one value of a payload type (natively, with
//! the type's schema as the provider's structured output), read the answer with
//! payload-core's JSON extraction, and re-ask with the errors until it is valid, with
//! payload-core's retry driver on tokio's timer. The answer's reasoning (the provider's
//! reasoning channel, then any `<think>` section of its text) is never read for the value;
//! it is the result's `reasoning`.

use futures::StreamExt;
use payload_agent::{Model, ModelChunk, ModelError, ModelMessage, ModelRequest, StructuredOutput};
use payload_core::instructions::{InstructionOptions, whole_response_instructions};
use payload_core::stream::ReasoningText;
use payload_core::{
    LlmPayload, PayloadType, extract_json, retry::RetryOutcome, retry::RetryPolicy,
    retry::RetryRequest, schema::Dialect,
};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The structured output asked of the provider for `payload`: OpenAI's strict subset
/// when the type has one ([`PayloadType::strict_schema`], sent with `strict: true`),
/// else its ordinary schema, not marked strict (OpenAI-compatible clients then ask for
/// JSON mode and the instructions carry the shape; Anthropic enforces the schema as a
/// forced tool's input either way). This is the one place that decides the schema.
pub fn structured_output(payload: &PayloadType) -> StructuredOutput {
    let (schema, strict) = match payload.strict_schema() {
        Ok(schema) => (schema, true),
        Err(_) => (payload.schema(Dialect::Draft2020_12), false),
    };
    StructuredOutput {
        name: payload.name.to_string(),
        description: payload.description.to_string(),
        schema,
        strict,
    }
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
/// conversation; its `output` is set to `T`'s). Each re-ask appends the rejected
/// answer and the re-prompt message naming its errors to the conversation. A model
/// error ends the loop and is kept in [`RetryOutcome::model_error`] (the clients have
/// already retried what the network failed); an answer cut by the token limit is
/// checked like any other (and fails as incomplete JSON).
pub async fn extract_with<T: LlmPayload>(
    model: &mut impl Model,
    request: ModelRequest,
    policy: RetryPolicy,
) -> (Option<T>, RetryOutcome<ModelError>) {
    let mut request = request;
    let output = structured_output(&T::TYPE);
    // Strict output writes `null` for a member left out: read it as absent.
    let checked = if output.strict {
        T::TYPE.strict_nulls()
    } else {
        T::TYPE
    };
    request.output = Some(output);
    let state = Mutex::new(Conversation {
        model,
        request,
        answer: None,
        reasoning: String::new(),
    });
    let state = &state;
    let outcome = payload_core::retry::retry_async(
        policy,
        move |retry: RetryRequest| {
            // The lock is held to start the stream and to keep its answer, never
            // across an await.
            let stream = lock(state).start(retry);
            async move {
                let (text, reasoning) = collect(stream).await?;
                let mut conversation = lock(state);
                conversation.answer = Some(text.clone());
                conversation.reasoning = reasoning;
                Ok(text)
            }
        },
        |text| extract_json(text, &checked),
        tokio::time::sleep,
    )
    .await;
    let mut outcome = outcome;
    if let Some(result) = outcome.result.as_mut() {
        // The last answer's reasoning channel goes before the reasoning in its text.
        let channel = std::mem::take(&mut lock(state).reasoning);
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
    let value = outcome.result.as_ref().and_then(|r| r.decode::<T>());
    (value, outcome)
}

/// The conversation of an extraction, as the attempts grow it.
struct Conversation<'m, M> {
    model: &'m mut M,
    request: ModelRequest,
    /// The last answer, until the re-ask that sends it back.
    answer: Option<String>,
    /// The last answer's reasoning channel (never read for the value).
    reasoning: String,
}

fn lock<'a, 'm, M>(state: &'a Mutex<Conversation<'m, M>>) -> MutexGuard<'a, Conversation<'m, M>> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<M: Model> Conversation<'_, M> {
    fn start(&mut self, retry: RetryRequest) -> payload_agent::ModelStream {
        // A re-ask after a rejected answer sends the answer back, then its errors. After
        // an attempt that timed out there is no new answer: the feedback it repeats is
        // already in the conversation.
        if let (Some(feedback), Some(answer)) = (retry.feedback, self.answer.take()) {
            self.request.messages.push(ModelMessage::assistant(answer));
            self.request.messages.push(ModelMessage::user(feedback));
        }
        self.request.iteration = retry.attempt;
        self.model.stream(&self.request)
    }
}

/// The answer's text and its reasoning channel, or the error that ended it.
async fn collect(mut stream: payload_agent::ModelStream) -> Result<(String, String), ModelError> {
    let mut text = String::new();
    let mut reasoning = String::new();
    while let Some(chunk) = stream.next().await {
        match chunk {
            ModelChunk::Text(piece) => text.push_str(&piece),
            ModelChunk::Reasoning(piece) => reasoning.push_str(&piece),
            ModelChunk::Error(error) => return Err(error),
            _ => {}
        }
    }
    Ok((text, reasoning))
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
}
