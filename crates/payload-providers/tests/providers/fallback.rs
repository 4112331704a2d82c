//! A fallback chain of real clients against loopback servers: a provider whose rate
//! limit is not over within the retries (each 429's `Retry-After` waited for) or whose
//! server is down hands the request to the next, each attempt recorded.

use crate::support::*;
use payload_agent::{Fallback, Model, ModelErrorKind};
use payload_providers::{Anthropic, Gemini, OpenAiResponses};
use std::time::{Duration, Instant};

fn rate_limited() -> Reply {
    Reply::Status(
        429,
        vec![("retry-after", "0.1".to_string())],
        r#"{"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}"#
            .to_string(),
    )
}

#[tokio::test]
async fn an_exhausted_rate_limit_then_a_dead_server_fall_back_to_the_third_provider() {
    let limited = Server::start(vec![rate_limited(), rate_limited()]);
    let working = Server::start(vec![stream("gemini/schema_proposal.sse")]);
    // A port nothing listens on: the connection fails.
    let dead = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", listener.local_addr().unwrap())
    };
    let first = OpenAiResponses::new("gpt-5-mini")
        .base_url(format!("{}/v1", limited.url))
        .api_key("sk-test")
        .retry(quick_retry(2));
    let second = Anthropic::new("claude-sonnet-4-5")
        .base_url(dead)
        .no_api_key()
        .retry(quick_retry(1));
    let third = Gemini::new("gemini-2.5-flash")
        .base_url(&working.url)
        .no_api_key();
    let mut chain = Fallback::new([Box::new(first) as Box<dyn Model>, Box::new(second)]).or(third);
    let started = Instant::now();
    let events = turn(&mut chain).await;
    assert_schema_proposal_turn(&events);
    assert!(
        started.elapsed() >= Duration::from_millis(100),
        "the Retry-After was waited for before giving up"
    );
    let attempts = chain.attempts();
    let tried: Vec<_> = attempts
        .iter()
        .map(|a| (a.model, a.error.as_ref().map(|e| e.kind)))
        .collect();
    assert_eq!(
        tried,
        [
            (0, Some(ModelErrorKind::RateLimited)),
            (1, Some(ModelErrorKind::Connection)),
            (2, None)
        ]
    );
    assert_eq!(
        limited.received().len(),
        2,
        "both of the first client's tries"
    );
}
