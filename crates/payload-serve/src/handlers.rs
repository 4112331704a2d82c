//! What an app does when the user accepts a payload: a handler per payload type,
//! registered with [`crate::App::on_accept`]. The card of a type with a handler offers
//! Accept and Dismiss; a type without one is only shown (its decisions are refused,
//! 409), so a button never promises what the server would not do.

use crate::error::ApiError;
use crate::store::Tx;
use futures::future::BoxFuture;
use payload_core::LlmPayload;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A payload the user accepted, as its handler gets it.
#[derive(Debug, Clone)]
pub struct Accepted<T> {
    /// The payload as stored when it was proposed (never what the client sends back),
    /// decoded into its type.
    pub payload: T,
    /// The JSON object the client sent with its decision (the user's choices, such as
    /// the stops ticked on a proposed trip; `{}` for none). The handler reads what it expects and
    /// refuses the rest.
    pub options: Value,
    /// The page context of the message that proposed it.
    pub context: Value,
    /// The conversation.
    pub conversation_id: String,
    /// The turn it was proposed in, from 0.
    pub turn: usize,
    /// Its position among its answer's payloads, from 0.
    pub index: usize,
}

/// A handler as stored: it decodes the stored JSON into its type and applies it inside
/// the decision's transaction, answering what it did (a JSON value the client shows).
type Erased =
    dyn Fn(Tx, Accepted<Value>) -> BoxFuture<'static, Result<Value, ApiError>> + Send + Sync;

/// The accept handlers of an app, by payload type name.
#[derive(Clone, Default)]
pub struct Handlers {
    by_type: BTreeMap<&'static str, Arc<Erased>>,
}

impl std::fmt::Debug for Handlers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.by_type.keys()).finish()
    }
}

impl Handlers {
    /// No handlers: every payload is only shown.
    pub fn new() -> Handlers {
        Handlers::default()
    }

    /// Runs `handler` when a payload of type `T` is accepted, inside the transaction
    /// that records the decision: what it writes through the [`Tx`] and the decision
    /// are committed together, or neither is (an error leaves the payload proposed). A
    /// second handler for one type replaces the first. The handler is any `async fn`
    /// (or closure) of a [`Tx`] and an [`Accepted<T>`]; `T` is read from its signature:
    ///
    /// ```ignore
    /// async fn save(tx: Tx, accepted: Accepted<RecipeProposal>) -> Result<Value, ApiError> {
    ///     let row = tx
    ///         .query_one(
    ///             "INSERT INTO saved (title) VALUES ($1) RETURNING id",
    ///             &[&accepted.payload.title],
    ///         )
    ///         .await?;
    ///     Ok(json!({ "id": row.get::<i64>(0)? }))
    /// }
    /// ```
    pub fn on_accept<T, F, Fut>(mut self, handler: F) -> Handlers
    where
        T: LlmPayload + DeserializeOwned + Send + 'static,
        F: Fn(Tx, Accepted<T>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, ApiError>> + Send + 'static,
    {
        let handler = Arc::new(handler);
        let erased = move |tx: Tx, accepted: Accepted<Value>| -> BoxFuture<'static, _> {
            let handler = handler.clone();
            Box::pin(async move {
                let payload: T = serde_json::from_value(accepted.payload).map_err(|e| {
                    ApiError::internal(format!("the stored {} cannot be read: {e}", T::NAME))
                })?;
                handler(
                    tx,
                    Accepted {
                        payload,
                        options: accepted.options,
                        context: accepted.context,
                        conversation_id: accepted.conversation_id,
                        turn: accepted.turn,
                        index: accepted.index,
                    },
                )
                .await
            })
        };
        self.by_type.insert(T::NAME, Arc::new(erased));
        self
    }

    /// Whether payloads of type `name` can be decided.
    pub fn accepts(&self, name: &str) -> bool {
        self.by_type.contains_key(name)
    }

    /// The type names with a handler.
    pub fn types(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.by_type.keys().copied()
    }

    /// Runs the handler of `name` on `accepted`; `None` when the type has none.
    pub(crate) fn run(
        &self,
        name: &str,
        tx: Tx,
        accepted: Accepted<Value>,
    ) -> Option<BoxFuture<'static, Result<Value, ApiError>>> {
        self.by_type.get(name).map(|handler| handler(tx, accepted))
    }
}
