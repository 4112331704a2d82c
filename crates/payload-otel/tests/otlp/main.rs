//! Export checked against an OTLP/HTTP receiver on 127.0.0.1: agent turns run against
//! the loopback model server (OpenAI's recorded wire format), the exporter flushes, and
//! the spans and metrics the receiver decoded are checked against the GenAI semantic
//! conventions (names, kinds, attributes, parent links, units, bucket boundaries): a
//! turn that calls a tool, a re-asked turn, a refused turn, and a turn the token limit
//! cut; in protobuf, and in JSON with message contents opted in.

mod read;
mod receiver;

use futures::StreamExt;
use opentelemetry_proto::tonic::trace::v1::Span;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use payload_agent::{Agent, AgentEvent, ModelMessage, Tool, ToolContext, ToolResult};
use payload_builtin::SchemaProposal;
use payload_core::LlmPayload;
use payload_core::stream::StreamEvent;
use payload_loopback::{Reply, Server};
use payload_otel::{OtelConfig, Protocol, Telemetry};
use payload_providers::{ClientConfig, OpenAi};
use payload_registry::{Page, Registry};
use read::{V, attr, list, text};
use receiver::{Received, Receiver};
use serde_json::{Value, json};
use std::path::Path;
use tracing_subscriber::layer::SubscriberExt;

const PAGE: &str = "otel_tables";
const TABLES: Page = Page::new(PAGE)
    .description("A table and a chat about it")
    .payloads(&[<SchemaProposal as LlmPayload>::TYPE])
    .tools(&["echo"]);
payload_registry::register_page!(TABLES);

fn echo_schema() -> Value {
    json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
}

fn echo(input: &Value, _: &ToolContext) -> ToolResult {
    ToolResult::text(format!(
        "echo: {}",
        input["text"].as_str().unwrap_or_default()
    ))
}
payload_agent::register_tool!(Tool::new("echo", "Echo the text back", echo_schema, echo));

const SYSTEM: &str = "You help with a table.";
const KEY: &str = "sk-otel-never-exported";
const RESPONSE_MODEL: &str = "gpt-4o-mini-2024-07-18";

/// A recorded OpenAI stream from the provider tests' fixtures.
fn fixture(name: &str) -> Reply {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../payload-providers/tests/fixtures/openai")
        .join(name);
    Reply::Stream(std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// An OpenAI stream of `content` (or a refusal), its finish reason and usage.
fn answer(content: &str, refusal: bool, finish: &str, tokens: (u64, u64)) -> Reply {
    let delta = if refusal {
        json!({"refusal": content})
    } else {
        json!({"content": content})
    };
    let chunk = |choices: Value, usage: Value| {
        format!(
            "data: {}\n\n",
            json!({"id": "c1", "object": "chat.completion.chunk", "model": RESPONSE_MODEL,
                   "choices": choices, "usage": usage})
        )
    };
    let mut stream = chunk(
        json!([{"index": 0, "delta": delta, "finish_reason": null}]),
        Value::Null,
    );
    stream += &chunk(
        json!([{"index": 0, "delta": {}, "finish_reason": finish}]),
        Value::Null,
    );
    stream += &chunk(
        json!([]),
        json!({"prompt_tokens": tokens.0, "completion_tokens": tokens.1}),
    );
    stream += "data: [DONE]\n\n";
    Reply::Stream(stream.into_bytes())
}

fn client(server: &Server) -> OpenAi {
    let mut config = ClientConfig::new(format!("{}/v1", server.url), "gpt-test");
    config.api_key = Some(KEY.to_string().into());
    config.temperature = Some(0.2);
    config.max_tokens = Some(256);
    OpenAi::with_config(config)
}

/// Runs the five turns (or only the tool turn) with export to a fresh receiver, and
/// returns what it received after a flush, and the model server's port.
fn run(protocol: Protocol, capture: bool, all_turns: bool) -> (Received, u16) {
    let receiver = Receiver::start();
    let mut config = OtelConfig::new("payload-test", &receiver.url);
    for signal in [config.traces.as_mut(), config.metrics.as_mut()]
        .into_iter()
        .flatten()
    {
        signal.protocol = protocol;
        signal.headers = vec![("x-team".to_string(), "observability".to_string())];
    }
    let telemetry = Telemetry::start(&config).unwrap();
    let subscriber = tracing_subscriber::registry().with(telemetry.layer());
    let guard = tracing::subscriber::set_default(subscriber);

    let mut replies = vec![fixture("tool_call.sse"), fixture("after_tool.sse")];
    if all_turns {
        replies.extend([
            // Re-asked: the payload's operations are not a list.
            answer(
                "Done.\n\nSCHEMA_PROPOSAL: {\"mode\": \"update\", \"operations\": \"drop it\"}",
                false,
                "stop",
                (100, 12),
            ),
            fixture("schema_proposal.sse"),
            // Refused.
            answer("I can't help with that.", true, "stop", (40, 7)),
            // Cut by the token limit.
            fixture("max_tokens.sse"),
            // Refused as a bad request: the call fails (never retried).
            Reply::Status(
                400,
                Vec::new(),
                r#"{"error": {"message": "bad request", "type": "invalid_request_error"}}"#
                    .to_string(),
            ),
        ]);
    }
    let server = Server::start(replies);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let agent = Agent::for_page(Registry::global(), PAGE)
        .unwrap()
        .system(SYSTEM)
        .capture_content(capture);
    let mut model = client(&server);
    let turns = if all_turns { 5 } else { 1 };
    for turn in 0..turns {
        let events: Vec<AgentEvent> = runtime.block_on(
            agent
                .turn(
                    &mut model,
                    vec![ModelMessage::user("Drop column two")],
                    json!({}),
                )
                .collect(),
        );
        let Some(AgentEvent::Stream(StreamEvent::Complete(parsed))) = events.last() else {
            panic!("turn {turn} did not complete: {events:?}");
        };
        if turn == 1 {
            assert_eq!(
                parsed.custom_payload.as_ref().map(|p| p.kind.as_str()),
                Some("schema_proposal"),
                "the re-asked turn ends with the corrected payload"
            );
        }
    }
    drop(guard);
    telemetry.flush();
    // The model server's port: the `chat` spans' `server.port`.
    let port = server.url.rsplit(':').next().unwrap().parse().unwrap();
    let received = std::mem::take(&mut *receiver.received.lock().unwrap());
    telemetry.shutdown();
    (received, port)
}

/// The spans of each turn (one trace each), in the order the turns ran.
fn turns(spans: &[Span]) -> Vec<Vec<Span>> {
    let mut roots: Vec<&Span> = spans
        .iter()
        .filter(|s| s.name.starts_with("invoke_agent"))
        .collect();
    roots.sort_by_key(|s| s.start_time_unix_nano);
    roots
        .iter()
        .map(|root| {
            let mut trace: Vec<Span> = spans
                .iter()
                .filter(|s| s.trace_id == root.trace_id)
                .cloned()
                .collect();
            trace.sort_by_key(|s| s.start_time_unix_nano);
            trace
        })
        .collect()
}

fn named<'a>(trace: &'a [Span], name: &str) -> Vec<&'a Span> {
    trace.iter().filter(|s| s.name == name).collect()
}

/// The turn's root span: `invoke_agent {page}`, no parent, every other span its child
/// (an HTTP attempt its model call's).
fn root(trace: &[Span]) -> &Span {
    let root = trace
        .iter()
        .find(|s| s.name == format!("invoke_agent {PAGE}"))
        .expect("the turn's span");
    assert!(root.parent_span_id.is_empty(), "the turn is a root span");
    assert_eq!(root.kind, SpanKind::Internal as i32);
    assert_eq!(
        text(&root.attributes, "gen_ai.operation.name"),
        "invoke_agent"
    );
    assert_eq!(text(&root.attributes, "gen_ai.agent.name"), PAGE);
    for span in trace.iter().filter(|s| s.span_id != root.span_id) {
        if span.name == "attempt" {
            // Each HTTP attempt is inside its model call.
            let call = trace.iter().find(|s| s.span_id == span.parent_span_id);
            assert_eq!(call.map(|c| c.name.as_str()), Some("chat gpt-test"));
        } else {
            assert_eq!(
                span.parent_span_id, root.span_id,
                "{} is the turn's child",
                span.name
            );
        }
    }
    root
}

/// A `chat` span with the conventions' attributes; returns its (input, output) tokens.
fn check_chat(span: &Span, finish: &str, port: u16) -> (i64, i64) {
    let a = &span.attributes;
    assert_eq!(span.name, "chat gpt-test");
    assert_eq!(span.kind, SpanKind::Client as i32);
    assert_eq!(text(a, "gen_ai.operation.name"), "chat");
    assert_eq!(text(a, "gen_ai.provider.name"), "openai");
    assert_eq!(text(a, "gen_ai.request.model"), "gpt-test");
    assert_eq!(text(a, "gen_ai.response.model"), RESPONSE_MODEL);
    assert_eq!(attr(a, "gen_ai.request.temperature"), Some(V::F(0.2)));
    assert_eq!(attr(a, "gen_ai.request.max_tokens"), Some(V::I(256)));
    assert_eq!(attr(a, "gen_ai.response.finish_reasons"), list(&[finish]));
    assert_eq!(text(a, "server.address"), "127.0.0.1");
    assert_eq!(attr(a, "server.port"), Some(V::I(i64::from(port))));
    match attr(a, "gen_ai.response.time_to_first_chunk") {
        Some(V::F(seconds)) => assert!(seconds > 0.0 && seconds < 30.0, "{seconds}"),
        other => panic!("time to first chunk: {other:?}"),
    }
    assert_eq!(attr(a, "error.type"), None);
    let tokens = |key| match attr(a, key) {
        Some(V::I(n)) => n,
        other => panic!("{key}: {other:?}"),
    };
    (
        tokens("gen_ai.usage.input_tokens"),
        tokens("gen_ai.usage.output_tokens"),
    )
}

#[test]
fn turns_are_exported_as_the_genai_conventions_say() {
    let (received, port) = run(Protocol::HttpProtobuf, false, true);
    assert!(received.errors.is_empty(), "{:?}", received.errors);
    for (content_type, team) in &received.requests {
        assert_eq!(content_type, "application/x-protobuf");
        assert_eq!(
            team.as_deref(),
            Some("observability"),
            "the configured header"
        );
    }
    assert!(
        read::service_names(&received)
            .iter()
            .all(|n| n == "payload-test")
    );
    let spans = read::spans(&received);
    for span in &spans {
        assert!(
            read::all_text(&span.attributes)
                .iter()
                .all(|t| !t.contains(KEY)),
            "the key is on {}",
            span.name
        );
        // No contents without the opt-in.
        for key in [
            "gen_ai.input.messages",
            "gen_ai.output.messages",
            "gen_ai.tool.call.arguments",
        ] {
            assert_eq!(attr(&span.attributes, key), None, "{key} on {}", span.name);
        }
    }
    let turns = turns(&spans);
    assert_eq!(turns.len(), 5, "one trace per turn");
    let mut tokens = (0, 0);
    let mut add = |t: (i64, i64)| {
        tokens.0 += t.0;
        tokens.1 += t.1;
    };

    // The tool turn: two calls, the tool between them, one read.
    let trace = &turns[0];
    let turn = root(trace);
    let chats = named(trace, "chat gpt-test");
    assert_eq!(chats.len(), 2);
    assert_eq!(check_chat(chats[0], "tool_call", port), (150, 20));
    assert_eq!(check_chat(chats[1], "stop", port), (190, 6));
    add((340, 26));
    assert_eq!(
        attr(&turn.attributes, "gen_ai.usage.input_tokens"),
        Some(V::I(340))
    );
    assert_eq!(
        attr(&turn.attributes, "gen_ai.usage.output_tokens"),
        Some(V::I(26))
    );
    let tool = named(trace, "execute_tool echo");
    assert_eq!(tool.len(), 1);
    let t = &tool[0].attributes;
    assert_eq!(text(t, "gen_ai.operation.name"), "execute_tool");
    assert_eq!(text(t, "gen_ai.tool.name"), "echo");
    assert_eq!(text(t, "gen_ai.tool.call.id"), "call_Ab12");
    assert_eq!(text(t, "gen_ai.tool.type"), "function");
    assert!(tool[0].start_time_unix_nano >= chats[0].end_time_unix_nano);
    assert!(tool[0].end_time_unix_nano <= chats[1].start_time_unix_nano);
    let reads = named(trace, "read_answer");
    assert_eq!(reads.len(), 1);
    assert_eq!(attr(&reads[0].attributes, "payload.accepted"), list(&[]));
    assert_eq!(
        attr(&reads[0].attributes, "payload.reask"),
        Some(V::B(false))
    );

    // The re-asked turn: a rejected read that asks again, then the accepted one.
    let trace = &turns[1];
    root(trace);
    let chats = named(trace, "chat gpt-test");
    assert_eq!(chats.len(), 2);
    assert_eq!(check_chat(chats[0], "stop", port), (100, 12));
    assert_eq!(check_chat(chats[1], "stop", port), (182, 41));
    add((282, 53));
    let reads = named(trace, "read_answer");
    assert_eq!(reads.len(), 2);
    let (rejected, accepted) = (&reads[0].attributes, &reads[1].attributes);
    assert_eq!(attr(rejected, "payload.reask"), Some(V::B(true)));
    assert_eq!(
        attr(rejected, "payload.rejected"),
        list(&["schema_proposal"])
    );
    assert_eq!(attr(rejected, "payload.accepted"), list(&[]));
    let Some(V::A(kinds)) = attr(rejected, "payload.error_kinds") else {
        panic!("error kinds");
    };
    assert!(!kinds.is_empty());
    let event = reads[0]
        .events
        .iter()
        .find(|e| e.name == "payload rejected")
        .expect("the rejection is an event of the read");
    assert_eq!(text(&event.attributes, "payload.type"), "schema_proposal");
    let error_type = text(&event.attributes, "error.type");
    assert_eq!(Some(V::S(error_type.clone())), kinds.first().cloned());
    // The read ends before the call that corrects it starts.
    assert!(reads[0].end_time_unix_nano <= chats[1].start_time_unix_nano);
    assert_eq!(
        attr(accepted, "payload.accepted"),
        list(&["schema_proposal"])
    );
    assert_eq!(attr(accepted, "payload.rejected"), list(&[]));
    assert_eq!(attr(accepted, "payload.reask"), Some(V::B(false)));

    // The refused turn: an outcome, not re-asked.
    let trace = &turns[2];
    let turn = root(trace);
    assert_eq!(text(&turn.attributes, "payload.refusal"), "refusal");
    let chats = named(trace, "chat gpt-test");
    assert_eq!(chats.len(), 1);
    let a = &chats[0].attributes;
    assert_eq!(attr(a, "gen_ai.response.finish_reasons"), list(&["stop"]));
    add((40, 7));
    let reads = named(trace, "read_answer");
    assert_eq!(reads.len(), 1);
    assert_eq!(
        attr(&reads[0].attributes, "payload.reask"),
        Some(V::B(false))
    );

    // The cut turn: truncated, not re-asked.
    let trace = &turns[3];
    root(trace);
    let chats = named(trace, "chat gpt-test");
    assert_eq!(chats.len(), 1);
    let (input, output) = check_chat(chats[0], "length", port);
    add((input, output));
    let reads = named(trace, "read_answer");
    assert_eq!(
        attr(&reads[0].attributes, "payload.truncated"),
        Some(V::B(true))
    );
    assert_eq!(
        attr(&reads[0].attributes, "payload.reask"),
        Some(V::B(false))
    );

    // The failed call: its error type, an error status, no tokens.
    let trace = &turns[4];
    root(trace);
    let chats = named(trace, "chat gpt-test");
    assert_eq!(chats.len(), 1);
    assert_eq!(text(&chats[0].attributes, "error.type"), "rejected");
    assert_eq!(
        attr(&chats[0].attributes, "gen_ai.usage.input_tokens"),
        None
    );
    let status = chats[0].status.as_ref().expect("a status");
    assert_eq!(status.code, 2, "an error status: {status:?}");

    // Metrics.
    let usage = read::metric(&received, "gen_ai.client.token.usage");
    assert_eq!(usage.unit, "{token}");
    let points = read::histogram(&usage);
    for (kind, total) in [("input", tokens.0), ("output", tokens.1)] {
        let of_kind: Vec<_> = points
            .iter()
            .filter(|(a, ..)| text(a, "gen_ai.token.type") == kind)
            .collect();
        assert!(!of_kind.is_empty(), "{kind} tokens");
        let sum: f64 = of_kind.iter().map(|(_, _, sum, _)| sum).sum();
        assert_eq!(sum, total as f64, "{kind} tokens");
        for (a, _, _, bounds) in of_kind {
            assert_eq!(bounds, &payload_otel::TOKEN_BUCKETS.to_vec());
            assert_eq!(text(a, "gen_ai.operation.name"), "chat");
            assert_eq!(text(a, "gen_ai.provider.name"), "openai");
            assert_eq!(text(a, "gen_ai.request.model"), "gpt-test");
            assert_eq!(text(a, "gen_ai.response.model"), RESPONSE_MODEL);
        }
    }
    let duration = read::metric(&received, "gen_ai.client.operation.duration");
    assert_eq!(duration.unit, "s");
    let points = read::histogram(&duration);
    assert_eq!(
        points.iter().map(|p| p.1).sum::<u64>(),
        7,
        "one per model call"
    );
    let failed: Vec<_> = points
        .iter()
        .filter(|p| attr(&p.0, "error.type").is_some())
        .collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(text(&failed[0].0, "error.type"), "rejected");
    assert_eq!(failed[0].1, 1);
    assert!(
        points
            .iter()
            .all(|p| p.3 == payload_otel::DURATION_BUCKETS.to_vec())
    );
    let first = read::metric(&received, "gen_ai.client.operation.time_to_first_chunk");
    assert_eq!(first.unit, "s");
    let points = read::histogram(&first);
    let with_first_chunk = spans
        .iter()
        .filter(|s| attr(&s.attributes, "gen_ai.response.time_to_first_chunk").is_some())
        .count() as u64;
    assert_eq!(points.iter().map(|p| p.1).sum::<u64>(), with_first_chunk);
    assert!(
        points
            .iter()
            .all(|p| p.3 == payload_otel::FIRST_CHUNK_BUCKETS.to_vec())
    );

    let count = |name: &str| read::counter(&read::metric(&received, name));
    let accepted = count("payload.accepted");
    assert_eq!(accepted.len(), 1);
    assert_eq!(text(&accepted[0].0, "payload.type"), "schema_proposal");
    assert_eq!(text(&accepted[0].0, "gen_ai.agent.name"), PAGE);
    assert_eq!(accepted[0].1, 1);
    // By type and first error kind: the re-asked answer's, and the cut answer's block.
    let mut rejected: Vec<(String, String, i64)> = count("payload.rejected")
        .iter()
        .map(|(a, n)| (text(a, "payload.type"), text(a, "error.type"), *n))
        .collect();
    rejected.sort();
    let mut expected = vec![
        ("schema_proposal".to_string(), error_type.clone(), 1),
        ("schema_proposal".to_string(), "truncated".to_string(), 1),
    ];
    expected.sort();
    assert_eq!(rejected, expected);
    assert_eq!(count("payload.reasks")[0].1, 1);
    assert_eq!(count("payload.truncated")[0].1, 1);
}

#[test]
fn contents_are_exported_in_json_only_when_opted_in() {
    let (received, port) = run(Protocol::HttpJson, true, false);
    assert!(received.errors.is_empty(), "{:?}", received.errors);
    assert!(!received.requests.is_empty());
    for (content_type, _) in &received.requests {
        assert_eq!(content_type, "application/json");
    }
    let spans = read::spans(&received);
    let turns = turns(&spans);
    assert_eq!(turns.len(), 1);
    let trace = &turns[0];
    let turn = root(trace);
    let json_of =
        |key: &str| -> Value { serde_json::from_str(&text(&turn.attributes, key)).unwrap() };
    assert_eq!(
        json_of("gen_ai.system_instructions"),
        json!([{"type": "text", "content": SYSTEM}])
    );
    assert_eq!(
        json_of("gen_ai.input.messages"),
        json!([{"role": "user", "parts": [{"type": "text", "content": "Drop column two"}]}])
    );
    assert_eq!(
        json_of("gen_ai.output.messages"),
        json!([{"role": "assistant", "finish_reason": "stop",
                "parts": [{"type": "text", "content": "The tool said hi back."}]}])
    );
    let tool = named(trace, "execute_tool echo");
    let t = &tool[0].attributes;
    assert_eq!(
        serde_json::from_str::<Value>(&text(t, "gen_ai.tool.call.arguments")).unwrap(),
        json!({"text": "hi"})
    );
    assert_eq!(text(t, "gen_ai.tool.call.result"), "echo: hi");
    let chats = named(trace, "chat gpt-test");
    assert_eq!(check_chat(chats[0], "tool_call", port), (150, 20));
    for span in &spans {
        assert!(
            read::all_text(&span.attributes)
                .iter()
                .all(|t| !t.contains(KEY))
        );
    }
    let usage = read::metric(&received, "gen_ai.client.token.usage");
    assert_eq!(usage.unit, "{token}");
}

/// A receiver that never answers delays the end of the program by the export timeout,
/// not forever: each export gives up when its time is up, and the turn itself never
/// waits for an export.
#[test]
fn a_receiver_that_never_answers_does_not_hang_the_program() {
    let silent = Server::start(vec![Reply::Silent; 8]);
    let mut config = OtelConfig::new("payload-test", &silent.url);
    for signal in [config.traces.as_mut(), config.metrics.as_mut()]
        .into_iter()
        .flatten()
    {
        signal.timeout = std::time::Duration::from_millis(300);
    }
    let telemetry = Telemetry::start(&config).unwrap();
    let subscriber = tracing_subscriber::registry().with(telemetry.layer());
    let model = Server::start(vec![fixture("schema_proposal.sse")]);
    let started = std::time::Instant::now();
    tracing::subscriber::with_default(subscriber, || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let agent = Agent::for_page(Registry::global(), PAGE).unwrap();
        let mut model = client(&model);
        let events: Vec<AgentEvent> = runtime.block_on(
            agent
                .turn(&mut model, vec![ModelMessage::user("hi")], json!({}))
                .collect(),
        );
        assert!(matches!(
            events.last(),
            Some(AgentEvent::Stream(StreamEvent::Complete(_)))
        ));
    });
    let turn = started.elapsed();
    telemetry.flush();
    telemetry.shutdown();
    let total = started.elapsed();
    assert!(
        turn < std::time::Duration::from_secs(2),
        "the turn took {turn:?}"
    );
    assert!(
        total < std::time::Duration::from_secs(8),
        "the end took {total:?}"
    );
}
