//! Attributes the conventions type as string arrays (`gen_ai.response.finish_reasons`,
//! the payload types a read accepted, ...). A `tracing` field holds one value, so the
//! framework records such a list as its items joined by [`LIST_SEPARATOR`]; this span
//! processor, between the spans and the exporter, turns each named one back into an
//! array before it leaves.

use opentelemetry::{Array, Context, KeyValue, StringValue, Value};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{Span, SpanData, SpanProcessor};
use std::time::Duration;

/// What joins a list's items in a `tracing` field. No item the framework lists (a
/// payload type's name, an error kind, a finish reason) holds it.
pub const LIST_SEPARATOR: char = ',';

/// The attributes that are string arrays.
pub(crate) const LIST_ATTRIBUTES: &[&str] = &[
    "gen_ai.response.finish_reasons",
    "payload.accepted",
    "payload.rejected",
    "payload.error_kinds",
];

/// Another span processor with the list attributes made arrays first.
#[derive(Debug)]
pub(crate) struct Lists<P>(pub P);

impl<P: SpanProcessor> SpanProcessor for Lists<P> {
    fn on_start(&self, span: &mut Span, cx: &Context) {
        self.0.on_start(span, cx);
    }

    fn on_end(&self, mut span: SpanData) {
        for attribute in &mut span.attributes {
            split(attribute);
        }
        self.0.on_end(span);
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.0.force_flush()
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.0.shutdown_with_timeout(timeout)
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.0.set_resource(resource);
    }
}

/// A joined list attribute as the array of its items (an empty text is no item).
fn split(attribute: &mut KeyValue) {
    if !LIST_ATTRIBUTES.contains(&attribute.key.as_str()) {
        return;
    }
    let Value::String(joined) = &attribute.value else {
        return;
    };
    let items: Vec<StringValue> = joined
        .as_str()
        .split(LIST_SEPARATOR)
        .filter(|item| !item.is_empty())
        .map(|item| StringValue::from(item.to_string()))
        .collect();
    attribute.value = Value::Array(Array::String(items));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_named_lists_are_split() {
        let mut list = KeyValue::new("payload.accepted", "chart,table");
        split(&mut list);
        assert_eq!(
            list.value,
            Value::Array(Array::String(vec!["chart".into(), "table".into()]))
        );
        let mut empty = KeyValue::new("payload.rejected", "");
        split(&mut empty);
        assert_eq!(empty.value, Value::Array(Array::String(vec![])));
        let mut other = KeyValue::new("gen_ai.request.model", "a,b");
        split(&mut other);
        assert_eq!(other.value, Value::from("a,b"));
    }
}
