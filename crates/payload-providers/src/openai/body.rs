//! The body of an OpenAI-compatible `POST /chat/completions`: the conversation as
//! chat messages (the system prompt first), the tools as functions, and whole-response
//! output in the mode [`crate::mode::resolve`] chose: a `response_format` json_schema
//! (native), an output function the model must call (tool), JSON mode (prompted).

use crate::config::ClientConfig;
use crate::mode::{Sent, native, tool_schema};
use crate::output_name;
use payload_agent::{ModelMessage, ModelRequest, StructuredOutput, ToolSpec};
use payload_core::schema::Dialect;
use serde_json::{Map, Value, json};

/// The JSON body for `request` sent in mode `sent`, streamed with usage at the end.
pub(crate) fn body(config: &ClientConfig, request: &ModelRequest, sent: Sent) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(config.model));
    body.insert("messages".into(), Value::Array(messages(request)));
    body.insert("stream".into(), json!(true));
    body.insert("stream_options".into(), json!({"include_usage": true}));
    let mut tools: Vec<Value> = request.tools.iter().map(tool).collect();
    if let Some(output) = &request.output {
        match sent {
            Sent::Native => {
                body.insert("response_format".into(), json_schema(output));
            }
            Sent::Tool => {
                // The output function, which the model must call (or, with the page's
                // tools beside it, any function: they stay callable).
                let name = output_name(&output.name);
                let (parameters, strict) = tool_schema(output, Dialect::OpenAiStrict);
                let choice = if tools.is_empty() {
                    json!({"type": "function", "function": {"name": name}})
                } else {
                    json!("required")
                };
                tools.push(json!({
                    "type": "function",
                    "function": {
                        "name": name,
                        "description": output.description,
                        "parameters": parameters,
                        "strict": strict,
                    },
                }));
                body.insert("tool_choice".into(), choice);
            }
            Sent::Prompted => {
                body.insert("response_format".into(), json!({"type": "json_object"}));
            }
            Sent::Marker => {}
        }
    }
    if !tools.is_empty() {
        body.insert("tools".into(), tools.into());
    }
    if let Some(max) = config.max_tokens {
        body.insert(token_limit_key(&config.base_url).into(), json!(max));
    }
    if let Some(temperature) = config.temperature {
        body.insert("temperature".into(), json!(temperature));
    }
    Value::Object(body)
}

/// OpenAI's own API names the limit `max_completion_tokens` (its reasoning models
/// refuse `max_tokens`); compatible servers (vLLM, Ollama, llama.cpp, LM Studio) read
/// `max_tokens`, and not all of them read the newer name.
fn token_limit_key(base_url: &str) -> &'static str {
    let host = base_url
        .split("://")
        .nth(1)
        .unwrap_or(base_url)
        .split(['/', ':'])
        .next()
        .unwrap_or_default();
    if host.eq_ignore_ascii_case("api.openai.com") {
        "max_completion_tokens"
    } else {
        "max_tokens"
    }
}

fn messages(request: &ModelRequest) -> Vec<Value> {
    let system =
        (!request.system.is_empty()).then(|| json!({"role": "system", "content": request.system}));
    system
        .into_iter()
        .chain(request.messages.iter().map(message))
        .collect()
}

fn message(message: &ModelMessage) -> Value {
    match message {
        ModelMessage::User { text } => json!({"role": "user", "content": text}),
        ModelMessage::Assistant {
            text, tool_calls, ..
        } if tool_calls.is_empty() => {
            json!({"role": "assistant", "content": text})
        }
        ModelMessage::Assistant {
            text, tool_calls, ..
        } => {
            let calls: Vec<Value> = tool_calls
                .iter()
                .map(|call| {
                    json!({
                        "id": call.id,
                        "type": "function",
                        // The API takes the arguments as JSON text, not as a value.
                        "function": {"name": call.name, "arguments": call.input.to_string()},
                    })
                })
                .collect();
            let content = if text.is_empty() {
                Value::Null
            } else {
                json!(text)
            };
            json!({"role": "assistant", "content": content, "tool_calls": calls})
        }
        ModelMessage::Tool { id, text, .. } => {
            json!({"role": "tool", "tool_call_id": id, "content": text})
        }
    }
}

fn tool(spec: &ToolSpec) -> Value {
    json!({
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": spec.input_schema,
        },
    })
}

/// A strict schema, enforced by the API (native mode). Any other schema only gets JSON
/// mode (prompted), and the prompt's instructions describe the shape.
fn json_schema(output: &StructuredOutput) -> Value {
    json!({
        "type": "json_schema",
        "json_schema": {
            "name": output_name(&output.name),
            "description": output.description,
            "schema": native(output, Dialect::OpenAiStrict).unwrap_or(&output.schema),
            "strict": true,
        },
    })
}

/// Adds `constraint` to `body`, in the field the servers that accept it read.
pub(crate) fn constrain(body: &mut Value, constraint: &super::Constraint) {
    let Value::Object(body) = body else { return };
    match constraint {
        super::Constraint::Lark(grammar) => {
            body.insert("structured_outputs".into(), json!({"grammar": grammar}));
        }
        super::Constraint::StructuralTag(format) => {
            body.insert("response_format".into(), format.clone());
        }
        super::Constraint::Gbnf(grammar) => {
            body.insert("grammar".into(), json!(grammar));
        }
        super::Constraint::LazyGbnf { grammar, triggers } => {
            body.insert("grammar".into(), json!(grammar));
            body.insert("grammar_lazy".into(), json!(true));
            // llama.cpp's trigger kinds: 0 token, 1 word, 2 pattern, 3 full pattern
            // (`common_grammar_trigger_type`); a word is matched anywhere in the text.
            let triggers: Vec<Value> = triggers
                .iter()
                .map(|word| json!({"type": 1, "value": word}))
                .collect();
            body.insert("grammar_triggers".into(), Value::Array(triggers));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{constrain, token_limit_key};
    use crate::Constraint;
    use serde_json::json;

    #[test]
    fn a_lazy_grammar_names_its_trigger_words_as_llama_cpp_reads_them() {
        let mut body = json!({"model": "m"});
        constrain(
            &mut body,
            &Constraint::LazyGbnf {
                grammar: "root ::= \"A: \" [0-9]".into(),
                triggers: vec!["A:".into()],
            },
        );
        assert_eq!(body["grammar_lazy"], true);
        assert_eq!(
            body["grammar_triggers"],
            json!([{"type": 1, "value": "A:"}])
        );
        assert_eq!(body["grammar"], "root ::= \"A: \" [0-9]");
    }

    #[test]
    fn openai_itself_gets_the_new_name_and_compatible_servers_the_old() {
        assert_eq!(
            token_limit_key("https://api.openai.com/v1"),
            "max_completion_tokens"
        );
        assert_eq!(token_limit_key("http://127.0.0.1:8000/v1"), "max_tokens");
        assert_eq!(token_limit_key("http://localhost:11434/v1"), "max_tokens");
        assert_eq!(
            token_limit_key("https://api.openai.com.evil.test/v1"),
            "max_tokens"
        );
    }
}
