//! Both clients against loopback servers that misbehave as real ones do: keep-alives
//! without content for ever, a trickle of whitespace, an answer that never ends, a
//! slow first token, no response at all, and events of many megabytes. Each ends in
//! bounded time with an error that says what happened, and a request the server may
//! still be working on is never sent again.

use crate::support::*;
use futures::StreamExt;
use payload_agent::{Model, ModelChunk, ModelError, ModelErrorKind, ModelMessage, ModelRequest};
use payload_providers::{Anthropic, DEFAULT_MAX_EVENT_BYTES, OpenAi};
use std::time::{Duration, Instant};

const LIMIT: Duration = Duration::from_millis(800);

fn openai(server: &Server) -> OpenAi {
    OpenAi::new("local")
        .base_url(format!("{}/v1", server.url))
        .no_api_key()
        .retry(quick_retry(3))
        .first_token_timeout(LIMIT)
        .idle_timeout(LIMIT)
        .deadline(Duration::from_secs(20))
}

fn anthropic(server: &Server) -> Anthropic {
    Anthropic::new("claude")
        .base_url(&server.url)
        .no_api_key()
        .retry(quick_retry(3))
        .first_token_timeout(LIMIT)
        .idle_timeout(LIMIT)
        .deadline(Duration::from_secs(20))
}

/// Every chunk of one request, and how long it took; a request that is still going
/// after 60 s hangs, and fails the test.
async fn request(model: &mut dyn Model) -> (Vec<ModelChunk>, Duration) {
    let started = Instant::now();
    let request = ModelRequest::new(vec![ModelMessage::user("hi")]);
    let chunks = tokio::time::timeout(
        Duration::from_secs(60),
        model.stream(&request).collect::<Vec<_>>(),
    )
    .await
    .expect("the request hung");
    (chunks, started.elapsed())
}

/// The error the stream ended with.
fn ended_with(chunks: &[ModelChunk]) -> &ModelError {
    match chunks.last() {
        Some(ModelChunk::Error(error)) => error,
        other => panic!("the stream must end with an error, not {other:?}"),
    }
}

fn text(chunks: &[ModelChunk]) -> String {
    chunks
        .iter()
        .filter_map(|c| match c {
            ModelChunk::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

fn trickle(prefix: &str, piece: &str) -> Reply {
    Reply::Trickle {
        prefix: prefix.as_bytes().to_vec(),
        piece: piece.as_bytes().to_vec(),
        every: Duration::from_millis(200),
    }
}

const KEPT_ALIVE: &str =
    "no content for 800 ms while the provider kept the connection alive with empty events";

/// A keep-alive stream before any content: one attempt, a timeout that names the
/// keep-alives, within the first-token timeout (and well before the deadline).
async fn assert_kept_alive_without_content(model: &mut dyn Model, server: &Server) {
    let (chunks, took) = request(model).await;
    let error = ended_with(&chunks);
    assert_eq!(error.kind, ModelErrorKind::Timeout, "{error}");
    assert!(error.message.contains(KEPT_ALIVE), "{error}");
    assert!(error.message.contains("first-token timeout"), "{error}");
    assert!(took >= LIMIT && took < Duration::from_secs(5), "{took:?}");
    assert_eq!(server.received().len(), 1, "a timeout is not sent again");
}

#[tokio::test]
async fn empty_choices_for_ever_end_in_a_timeout_that_says_so() {
    let keep_alive = "data: {\"choices\":[]}\n\n";
    let server = Server::start(vec![trickle("", keep_alive), trickle("", keep_alive)]);
    let mut model = openai(&server);
    assert_kept_alive_without_content(&mut model, &server).await;
    assert_eq!(model.attempts().len(), 1);
}

#[tokio::test]
async fn anthropic_pings_for_ever_end_in_a_timeout_that_says_so() {
    let start = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n";
    let ping = "event: ping\ndata: {\"type\": \"ping\"}\n\n";
    let server = Server::start(vec![trickle(start, ping), trickle(start, ping)]);
    let mut model = anthropic(&server);
    assert_kept_alive_without_content(&mut model, &server).await;
    assert_eq!(model.attempts().len(), 1);
}

#[tokio::test]
async fn a_trickle_of_spaces_or_comments_ends_in_a_timeout_that_says_so() {
    for piece in [" ", ": keep-alive\n\n", "\n"] {
        let server = Server::start(vec![trickle("", piece), trickle("", piece)]);
        let mut model = openai(&server);
        assert_kept_alive_without_content(&mut model, &server).await;
    }
}

#[tokio::test]
async fn keep_alives_after_content_end_it_with_the_text_so_far() {
    let content = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Half an\"}}]}\n\n";
    let server = Server::start(vec![trickle(content, "data: {\"choices\":[]}\n\n")]);
    let mut model = openai(&server);
    let (chunks, took) = request(&mut model).await;
    assert_eq!(text(&chunks), "Half an");
    let error = ended_with(&chunks);
    assert_eq!(error.kind, ModelErrorKind::Timeout);
    assert!(error.message.contains(KEPT_ALIVE), "{error}");
    assert!(error.message.contains("since the last content"), "{error}");
    assert!(took < Duration::from_secs(5), "{took:?}");
}

#[tokio::test]
async fn an_answer_that_never_ends_is_cut_at_the_overall_deadline() {
    let piece = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n";
    let server = Server::start(vec![trickle("", piece)]);
    let mut model = openai(&server).deadline(Duration::from_millis(1500));
    let (chunks, took) = request(&mut model).await;
    assert!(text(&chunks).starts_with("aaa"));
    let error = ended_with(&chunks);
    assert_eq!(error.kind, ModelErrorKind::Timeout);
    assert!(
        error
            .message
            .contains("did not finish within its overall deadline of 1500 ms"),
        "{error}"
    );
    assert!(took >= Duration::from_millis(1500) && took < Duration::from_secs(5));
}

#[tokio::test]
async fn a_slow_first_token_is_waited_for_and_the_request_sent_once() {
    let answer = fixture("openai/schema_proposal.sse");
    let server = Server::start(vec![
        Reply::Delayed(Duration::from_millis(1500), answer.clone()),
        stream("openai/schema_proposal.sse"),
    ]);
    let mut model = openai(&server)
        .first_token_timeout(Duration::from_secs(10))
        .idle_timeout(Duration::from_millis(300));
    let (chunks, _) = request(&mut model).await;
    assert!(
        !chunks.iter().any(|c| matches!(c, ModelChunk::Error(_))),
        "{chunks:?}"
    );
    assert!(text(&chunks).contains("SCHEMA_PROPOSAL"));
    assert_eq!(server.received().len(), 1);
    assert_eq!(model.attempts().len(), 1);
}

#[tokio::test]
async fn a_first_token_slower_than_its_timeout_is_an_error_never_a_re_send() {
    let server = Server::start(vec![
        Reply::Delayed(
            Duration::from_secs(3),
            fixture("openai/schema_proposal.sse"),
        ),
        stream("openai/schema_proposal.sse"),
    ]);
    let mut model = openai(&server);
    let (chunks, took) = request(&mut model).await;
    let error = ended_with(&chunks);
    assert_eq!(error.kind, ModelErrorKind::Timeout);
    assert!(
        error
            .message
            .contains("the response headers came, then nothing: no content for 800 ms"),
        "{error}"
    );
    assert!(took < Duration::from_secs(3), "{took:?}");
    assert_eq!(server.received().len(), 1, "never sent again");
    assert_eq!(model.attempts().len(), 1);
}

#[tokio::test]
async fn no_response_headers_is_an_error_never_a_re_send() {
    let server = Server::start(vec![Reply::Silent, stream("anthropic/schema_proposal.sse")]);
    let mut model = anthropic(&server);
    let (chunks, _) = request(&mut model).await;
    let error = ended_with(&chunks);
    assert_eq!(error.kind, ModelErrorKind::Timeout);
    assert!(
        error
            .message
            .contains("no response headers within 800 ms of sending the request"),
        "{error}"
    );
    assert_eq!(server.received().len(), 1);
}

#[tokio::test]
async fn an_overloaded_status_before_content_is_sent_again() {
    let overloaded =
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
    let server = Server::start(vec![
        Reply::Status(529, vec![], overloaded.to_string()),
        stream("anthropic/schema_proposal.sse"),
    ]);
    let mut model = anthropic(&server);
    let (chunks, _) = request(&mut model).await;
    assert!(text(&chunks).contains("SCHEMA_PROPOSAL"));
    let statuses: Vec<_> = model.attempts().iter().map(|a| a.status).collect();
    assert_eq!(statuses, [Some(529), Some(200)]);
}

#[tokio::test]
async fn a_refused_connection_is_tried_again_and_says_so() {
    // A port nothing listens on: every attempt fails to connect.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", closed.local_addr().unwrap());
    drop(closed);
    let mut model = OpenAi::new("m")
        .base_url(url)
        .no_api_key()
        .retry(quick_retry(2));
    let (chunks, _) = request(&mut model).await;
    let error = ended_with(&chunks);
    assert_eq!(error.kind, ModelErrorKind::Connection);
    assert!(error.message.starts_with("could not connect"), "{error}");
    assert_eq!(model.attempts().len(), 2);
}

/// One OpenAI-compatible stream whose first event carries `size` bytes of text.
fn big_event(size: usize) -> Vec<u8> {
    let text = "x".repeat(size);
    format!(
        "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{text}\"}},\"finish_reason\":null}}]}}\n\n\
         data: {{\"choices\":[{{\"index\":0,\"delta\":{{}},\"finish_reason\":\"stop\"}}]}}\n\n\
         data: [DONE]\n\n"
    )
    .into_bytes()
}

#[tokio::test]
async fn a_ten_megabyte_event_is_read_whole() {
    let size = 10_000_000;
    let server = Server::start(vec![Reply::Stream(big_event(size))]);
    let mut model = openai(&server);
    // Generous: this bounds a hang, it does not measure speed.
    let (chunks, _) = request(&mut model).await;
    assert!(
        !chunks.iter().any(|c| matches!(c, ModelChunk::Error(_))),
        "{:?}",
        chunks.iter().find(|c| matches!(c, ModelChunk::Error(_)))
    );
    assert_eq!(text(&chunks).len(), size);
    assert_eq!(model.attempts().len(), 1);
}

#[tokio::test]
async fn an_event_over_the_cap_is_a_clear_error_tried_once() {
    assert_eq!(DEFAULT_MAX_EVENT_BYTES, 16 << 20);
    assert_eq!(
        OpenAi::new("m").config().max_event_bytes,
        DEFAULT_MAX_EVENT_BYTES
    );
    let server = Server::start(vec![
        Reply::Stream(big_event(3_000_000)),
        Reply::Stream(big_event(10)),
    ]);
    let mut model = openai(&server).max_event_bytes(1 << 20);
    let (chunks, _) = request(&mut model).await;
    let error = ended_with(&chunks);
    assert_eq!(error.kind, ModelErrorKind::Protocol);
    assert!(
        error
            .message
            .contains("larger than the limit of 1048576 bytes"),
        "{error}"
    );
    assert!(error.message.contains("not sent again"), "{error}");
    assert_eq!(model.attempts().len(), 1);
    assert_eq!(server.received().len(), 1);
}

#[tokio::test]
async fn the_default_cap_refuses_a_twenty_megabyte_event_once() {
    let server = Server::start(vec![
        Reply::Stream(big_event(20_000_000)),
        Reply::Stream(big_event(10)),
    ]);
    let mut model = openai(&server);
    let (chunks, _) = request(&mut model).await;
    let error = ended_with(&chunks);
    assert_eq!(error.kind, ModelErrorKind::Protocol);
    assert!(
        error.message.contains(&format!(
            "larger than the limit of {DEFAULT_MAX_EVENT_BYTES} bytes"
        )),
        "{error}"
    );
    assert_eq!(model.attempts().len(), 1);
    assert_eq!(server.received().len(), 1);
}
