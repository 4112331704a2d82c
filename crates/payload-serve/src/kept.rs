//! A payload is shown and stored as its type keeps it: the value decoded into the type
//! and written back, so the card shows exactly what accepting saves. A member the type
//! does not have (`__proto__`, a misspelt field) is not shown as if it would be saved,
//! a default the type fills in is shown, and the stored value an accept handler decodes
//! is the one the user saw.

use payload_agent::AgentEvent;
use payload_core::CustomPayload;
use payload_core::stream::StreamEvent;
use payload_registry::Registry;

/// Replaces the payloads `event` carries (the answer's, a tool's card) with their
/// values as their types keep them; a payload whose type is unknown or that does not
/// decode is left as it is.
pub(crate) fn as_kept(registry: &Registry, event: &mut AgentEvent) {
    let payload = match event {
        AgentEvent::Stream(StreamEvent::Complete(parsed)) => parsed.custom_payload.as_mut(),
        AgentEvent::ToolComplete { payload, .. } => payload.as_mut(),
        _ => None,
    };
    if let Some(payload) = payload {
        keep(registry, payload);
    }
}

fn keep(registry: &Registry, payload: &mut CustomPayload) {
    let Some(kind) = registry.payload_type(&payload.kind) else {
        return;
    };
    if let Some(kept) = kind.roundtrip(payload.data()) {
        if &kept != payload.data() {
            *payload.data_mut() = kept;
        }
    }
}
