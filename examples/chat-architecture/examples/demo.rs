//! One turn on the reports page, printed as the Server-Sent Events a chat backend sends.
//!
//! By default the scripted model answers (no network). With `CHAT_BASE_URL` set, the
//! turn runs against that server instead: `CHAT_PROVIDER` is `openai` (the default, for
//! any OpenAI-compatible server) or `anthropic`, `CHAT_MODEL` names the model, and the
//! key comes from `OPENAI_API_KEY` or `ANTHROPIC_API_KEY` (none is sent without one).
//!
//! ```text
//! cargo run -p chat-architecture --example demo
//! CHAT_BASE_URL=http://localhost:11434/v1 CHAT_MODEL=llama3.1 cargo run -p chat-architecture --example demo
//! ```

use chat_architecture::model::{ScriptedModel, Step};
use futures::StreamExt;
use payload_agent::{Agent, Model, ModelMessage};
use payload_core::stream::sse::ServerSentEvent;
use payload_prompt::PromptBuilder;
use payload_providers::{Anthropic, OpenAi};
use payload_registry::Registry;
use serde_json::{Value, json};
use std::process::ExitCode;

const QUESTION: &str = "Find papers on statin myopathy";

fn main() -> ExitCode {
    let registry = Registry::global();
    let context = json!({"current_page": "reports", "report_id": 123});
    let prompt = PromptBuilder::for_page(registry, "reports")
        .expect("the reports page is registered")
        .context(&context)
        .build();
    let agent = Agent::for_page(registry, "reports")
        .expect("the reports page's tools are registered")
        .system(prompt);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime starts");
    let live = std::env::var("CHAT_BASE_URL")
        .ok()
        .filter(|u| !u.is_empty());
    let result = match live {
        Some(url) => runtime.block_on(turn(&agent, live_model(&url), context)),
        None => {
            let mut model = scripted();
            runtime.block_on(turn(&agent, &mut model, context))
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("demo: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the turn, printing each event as it comes.
async fn turn<M: Model + Unpin>(agent: &Agent, model: M, context: Value) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    let mut turn = agent.turn(model, vec![ModelMessage::user(QUESTION)], context);
    while let Some(event) = turn.next().await {
        event.write_sse(&mut out)?;
    }
    Ok(())
}

/// The client `CHAT_PROVIDER` and `CHAT_MODEL` ask for, talking to `url`.
fn live_model(url: &str) -> Box<dyn Model> {
    let provider = std::env::var("CHAT_PROVIDER").unwrap_or_default();
    let model = std::env::var("CHAT_MODEL").ok().filter(|m| !m.is_empty());
    if provider.eq_ignore_ascii_case("anthropic") {
        let model = model.unwrap_or_else(|| "claude-sonnet-4-5".to_string());
        Box::new(Anthropic::new(model).base_url(url))
    } else {
        let model = model.unwrap_or_else(|| "gpt-4o-mini".to_string());
        Box::new(OpenAi::new(model).base_url(url))
    }
}

/// The offline answer: a search, then text with suggestions.
fn scripted() -> ScriptedModel {
    ScriptedModel::new(
        vec![
            vec![
                Step::Text("Let me search PubMed.".into()),
                Step::Call("search_pubmed", json!({"query": "statin myopathy"})),
            ],
            vec![Step::Text(
                "I found **3 articles**; the 2019 review is the place to start.\n\n\
                 SUGGESTED_VALUES: [{\"label\": \"Summarize\", \"value\": \"Summarize the \
                 2019 review\"}]"
                    .into(),
            )],
        ],
        4,
    )
}
