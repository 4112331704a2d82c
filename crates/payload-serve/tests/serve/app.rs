//! The tests' app: a `shop` page offering a shopping list (which accepting saves) and a
//! note (which the app only shows), a scripted model, and helpers to run it on
//! 127.0.0.1.

use payload_agent::{Model, ModelChunk, ModelRequest};
use payload_core::LlmPayload;
use payload_registry::{Page, Registry, register_page};
use payload_serve::{Accepted, App, Service, TurnInfo, Tx};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::net::TcpListener;

/// A shopping list for the user to keep.
#[derive(Debug, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(marker = "SHOPPING_LIST", register)]
pub struct ShoppingList {
    /// Where to shop.
    pub store: String,
    /// What to buy.
    pub items: Vec<Item>,
}

/// One thing to buy.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Item {
    /// What it is.
    pub name: String,
    /// How many.
    pub count: u32,
    /// Where it is in the shop.
    pub aisle: Aisle,
}

/// A part of the shop.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Aisle {
    /// Fruit and vegetables.
    Produce,
    /// Milk, cheese, eggs.
    Dairy,
    /// Bread.
    Bakery,
}

/// A note the app only shows.
#[derive(Debug, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(marker = "SHOP_NOTE", register)]
pub struct ShopNote {
    /// The note.
    pub text: String,
}

register_page!(
    Page::new("shop")
        .description("Planning the shopping")
        .payloads(&[ShoppingList::TYPE, ShopNote::TYPE])
        .starters(&["Plan my shopping for the week"])
);

/// The answer with a shopping list, its reasoning apart.
pub const LIST_ANSWER: &str = "Here is your list.\n\nSHOPPING_LIST: {\"store\": \"Corner shop\", \"items\": [{\"name\": \"milk\", \"count\": 2, \"aisle\": \"dairy\"}, {\"name\": \"bread\", \"count\": 1, \"aisle\": \"bakery\"}]}\n\nEnjoy!";

/// The answer with a note.
pub const NOTE_ANSWER: &str = "Noted.\n\nSHOP_NOTE: {\"text\": \"Bring bags\"}";

/// A model that reasons, then writes `answer` in pieces of seven characters.
pub fn scripted(answer: &'static str) -> impl Fn(&TurnInfo) -> Box<dyn Model> + Send + Sync {
    move |_| {
        Box::new(move |_: &ModelRequest| {
            let chars: Vec<char> = answer.chars().collect();
            std::iter::once(ModelChunk::Reasoning("They need milk and bread.".into()))
                .chain(
                    chars
                        .chunks(7)
                        .map(|c| ModelChunk::Text(c.iter().collect())),
                )
                .collect::<Vec<_>>()
        })
    }
}

/// A running app.
pub struct Running {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    /// The app.
    pub service: Service,
}

/// Runs the shop app answering `answer`; accepting a list saves it in `lists`.
pub async fn start(answer: &'static str) -> Running {
    start_model(scripted(answer)).await
}

/// A model that starts a list, then stops as `reason` says: the provider's content
/// filter (`FinishReason::ContentFilter`, no words) or the model's refusal (its words).
pub fn stopping(
    reason: payload_agent::RefusalReason,
) -> impl Fn(&TurnInfo) -> Box<dyn Model> + Send + Sync {
    move |_| {
        Box::new(move |_: &ModelRequest| {
            let mut chunks = vec![ModelChunk::Text(
                "Here is your list.\n\nSHOPPING_LIST: {\"store\": \"Cor".into(),
            )];
            chunks.push(match reason {
                payload_agent::RefusalReason::ContentFilter => {
                    ModelChunk::Finish(payload_agent::FinishReason::ContentFilter)
                }
                _ => ModelChunk::Refusal("I can't help with that.".into()),
            });
            chunks
        })
    }
}

/// Runs the shop app with `model`; accepting a list saves it in `lists`.
pub async fn start_model(
    model: impl Fn(&TurnInfo) -> Box<dyn Model> + Send + Sync + 'static,
) -> Running {
    let app = App::new(Registry::global())
        .title("Shop")
        .pages(&["shop"])
        .schema("CREATE TABLE IF NOT EXISTS lists (store TEXT NOT NULL, items INTEGER NOT NULL)")
        .model(model)
        .on_accept(|tx: Tx, accepted: Accepted<ShoppingList>| async move {
            let items = accepted.payload.items.len() as i64;
            tx.execute(
                "INSERT INTO lists (store, items) VALUES ($1, $2)",
                &[&accepted.payload.store, &items],
            )
            .await?;
            Ok(json!({ "saved": accepted.payload.items.len(), "options": accepted.options }))
        });
    let service = app.build().expect("the app builds");
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(service.clone().serve(listener));
    Running { url, service }
}

/// How many lists were saved.
pub fn saved(running: &Running) -> i64 {
    running
        .service
        .db()
        .sqlite()
        .expect("the tests run on SQLite")
        .conn()
        .query_row("SELECT COUNT(*) FROM lists", [], |r| r.get(0))
        .unwrap()
}

/// The `data:` values of a Server-Sent Events body, as JSON (comments skipped).
pub fn data_events(body: &str) -> Vec<Value> {
    body.split("\n\n")
        .filter_map(|block| {
            let data: Vec<&str> = block
                .lines()
                .filter_map(|l| {
                    l.strip_prefix("data:")
                        .map(|d| d.strip_prefix(' ').unwrap_or(d))
                })
                .collect();
            (!data.is_empty()).then(|| serde_json::from_str(&data.join("\n")).expect("JSON data"))
        })
        .collect()
}

/// POSTs `body` as JSON to `path`; the status and the body's text.
pub async fn post(running: &Running, path: &str, body: &Value) -> (u16, String) {
    send(running, path, &[], body).await
}

/// POSTs `body` to `path` with `headers` (JSON unless they say otherwise).
pub async fn send(
    running: &Running,
    path: &str,
    headers: &[(&str, &str)],
    body: &Value,
) -> (u16, String) {
    let mut request = reqwest::Client::new()
        .post(format!("{}{path}", running.url))
        .body(body.to_string());
    if !headers.iter().any(|(name, _)| *name == "content-type") {
        request = request.header("content-type", "application/json");
    }
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

/// The answer of [`echo_model`] to `message`: a shopping list whose store is the
/// message, so each turn's proposal says which message asked for it, then chips.
pub fn echo_answer(message: &str) -> String {
    let store = serde_json::to_string(message).unwrap();
    format!(
        "Here is your list.\n\nSHOPPING_LIST: {{\"store\": {store}, \"items\": [{{\"name\": \"milk\", \"count\": 1, \"aisle\": \"dairy\"}}]}}\n\nSUGGESTED_VALUES: [{{\"label\": \"Add bread\", \"value\": \"Add bread\"}}]"
    )
}

/// A model answering [`echo_answer`] of the newest user message, in pieces of seven
/// characters `pause` apart (so runs overlap); a user message `fail` makes it fail
/// after its first piece, as a provider that drops mid-answer.
pub fn echo_model(
    pause: std::time::Duration,
) -> impl Fn(&TurnInfo) -> Box<dyn Model> + Send + Sync {
    move |_| Box::new(EchoModel { pause })
}

struct EchoModel {
    pause: std::time::Duration,
}

impl Model for EchoModel {
    fn stream(&mut self, request: &ModelRequest) -> payload_agent::ModelStream {
        use futures::StreamExt;
        // The newest user message is the end of the last one (earlier ones may be
        // joined to it when a turn got no answer).
        let message = request
            .messages
            .iter()
            .rev()
            .find_map(|m| match m {
                payload_agent::ModelMessage::User { text } => {
                    Some(text.rsplit("\n\n").next().unwrap_or_default().to_string())
                }
                _ => None,
            })
            .unwrap_or_default();
        let chars: Vec<char> = echo_answer(&message).chars().collect();
        let mut chunks: Vec<ModelChunk> = chars
            .chunks(7)
            .map(|c| ModelChunk::Text(c.iter().collect()))
            .collect();
        if message == "fail" {
            chunks.truncate(1);
            chunks.push(ModelChunk::Error(payload_agent::ModelError::new(
                payload_agent::ModelErrorKind::Rejected,
                "the provider dropped the answer",
            )));
        }
        let pause = self.pause;
        Box::pin(futures::stream::iter(chunks).then(move |chunk| async move {
            tokio::time::sleep(pause).await;
            chunk
        }))
    }
}

/// Runs the shop app with [`echo_model`]; accepting a list saves it in `lists`, and
/// answers the store saved.
pub async fn start_echo(pause: std::time::Duration) -> Running {
    let app = App::new(Registry::global())
        .title("Shop")
        .pages(&["shop"])
        .schema("CREATE TABLE IF NOT EXISTS lists (store TEXT NOT NULL, items INTEGER NOT NULL)")
        .model(echo_model(pause))
        .on_accept(|tx: Tx, accepted: Accepted<ShoppingList>| async move {
            let items = accepted.payload.items.len() as i64;
            tx.execute(
                "INSERT INTO lists (store, items) VALUES ($1, $2)",
                &[&accepted.payload.store, &items],
            )
            .await?;
            Ok(json!({ "saved": accepted.payload.items.len(), "store": accepted.payload.store }))
        });
    let service = app.build().expect("the app builds");
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(service.clone().serve(listener));
    Running { url, service }
}

/// The stores of the lists saved, in order.
pub fn stores(running: &Running) -> Vec<String> {
    let conn = running
        .service
        .db()
        .sqlite()
        .expect("the tests run on SQLite")
        .conn();
    let mut statement = conn
        .prepare("SELECT store FROM lists ORDER BY rowid")
        .unwrap();
    statement
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}
