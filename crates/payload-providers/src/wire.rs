//! What every provider's typed wire format shares: reading one server-sent event's
//! data as the provider's event type, and naming the events this client does not know.
//!
//! Each provider's stream events are a serde enum tagged by `type` (OpenAI Responses,
//! Anthropic) or one struct (Chat Completions, Gemini). A type added by the provider
//! after this client was written is read as [`Wire::Unknown`] with its name, traced and
//! skipped (as the providers ask of clients), never mistaken for another event; a known
//! event whose fields do not have the documented types is a `Protocol` error, never a
//! silent miss.

use payload_agent::{ModelError, ModelErrorKind};
use serde::Deserialize;
use serde::de::DeserializeOwned;

/// A provider event enum with a `#[serde(other)]` case for the types it does not list.
pub(crate) trait TaggedEvent: DeserializeOwned {
    /// Whether this is the `#[serde(other)]` case.
    fn is_unknown(&self) -> bool;
}

/// One event of a typed stream.
#[derive(Debug, PartialEq)]
pub(crate) enum Wire<E> {
    /// An event of a type this client reads.
    Known(E),
    /// An event of a type this client does not know, by its `type`.
    Unknown {
        /// The event's `type`.
        kind: String,
    },
}

/// Just an event's `type` (the other members are skipped unread).
#[derive(Deserialize)]
struct Head {
    #[serde(rename = "type", default)]
    kind: String,
}

/// Reads `data` as an event of `E`: known, or unknown by its type.
pub(crate) fn read_tagged<E: TaggedEvent>(data: &str) -> Result<Wire<E>, ModelError> {
    let event: E = read(data)?;
    if !event.is_unknown() {
        return Ok(Wire::Known(event));
    }
    let kind = serde_json::from_str::<Head>(data)
        .map(|head| head.kind)
        .unwrap_or_default();
    tracing::debug!(event_type = %kind, "skipped a stream event of a type this client does not know");
    Ok(Wire::Unknown { kind })
}

/// Reads `data` as one `T`, or a `Protocol` error quoting it.
pub(crate) fn read<T: DeserializeOwned>(data: &str) -> Result<T, ModelError> {
    serde_json::from_str(data).map_err(|e| {
        ModelError::new(
            ModelErrorKind::Protocol,
            format!(
                "the stream sent an event that is not in the provider's wire format ({e}): {}",
                quote(data)
            ),
        )
    })
}

/// At most the first 500 bytes of `data`, for an error message.
fn quote(data: &str) -> &str {
    let mut end = data.len().min(500);
    while !data.is_char_boundary(end) {
        end -= 1;
    }
    &data[..end]
}

/// Text that is there and not empty, as a provider sends optional pieces.
pub(crate) fn some_text(text: Option<String>) -> Option<String> {
    text.filter(|t| !t.is_empty())
}
