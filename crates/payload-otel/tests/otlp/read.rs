//! Reading what the receiver got: the spans, flat, and the metrics by name, with their
//! attributes as plain values.

use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::metrics::v1::{Metric, metric};
use opentelemetry_proto::tonic::trace::v1::Span;

use crate::receiver::Received;

/// An attribute's value, plainly.
#[derive(Debug, Clone, PartialEq)]
pub enum V {
    S(String),
    I(i64),
    F(f64),
    B(bool),
    A(Vec<V>),
}

fn plain(value: &AnyValue) -> Option<V> {
    Some(match value.value.as_ref()? {
        any_value::Value::StringValue(s) => V::S(s.clone()),
        any_value::Value::IntValue(i) => V::I(*i),
        any_value::Value::DoubleValue(f) => V::F(*f),
        any_value::Value::BoolValue(b) => V::B(*b),
        any_value::Value::ArrayValue(a) => V::A(a.values.iter().filter_map(plain).collect()),
        _ => return None,
    })
}

/// `key`'s value among `attributes`.
pub fn attr(attributes: &[KeyValue], key: &str) -> Option<V> {
    attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref())
        .and_then(plain)
}

/// `key`'s string value (panics, naming the key, if it is not one).
pub fn text(attributes: &[KeyValue], key: &str) -> String {
    match attr(attributes, key) {
        Some(V::S(s)) => s,
        other => panic!("{key}: {other:?}"),
    }
}

/// Every string among the attributes (for the check that no key leaks).
pub fn all_text(attributes: &[KeyValue]) -> Vec<String> {
    fn walk(value: &V, out: &mut Vec<String>) {
        match value {
            V::S(s) => out.push(s.clone()),
            V::A(items) => items.iter().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for kv in attributes {
        if let Some(v) = kv.value.as_ref().and_then(plain) {
            walk(&v, &mut out);
        }
    }
    out
}

/// `items` as a string array value.
pub fn list(items: &[&str]) -> Option<V> {
    Some(V::A(items.iter().map(|s| V::S(s.to_string())).collect()))
}

/// Every span received, in the order exported.
pub fn spans(received: &Received) -> Vec<Span> {
    received
        .traces
        .iter()
        .flat_map(|r| &r.resource_spans)
        .flat_map(|r| &r.scope_spans)
        .flat_map(|s| s.spans.iter().cloned())
        .collect()
}

/// The service name of every resource that sent spans or metrics.
pub fn service_names(received: &Received) -> Vec<String> {
    let traces = received
        .traces
        .iter()
        .flat_map(|r| &r.resource_spans)
        .filter_map(|r| r.resource.as_ref());
    let metrics = received
        .metrics
        .iter()
        .flat_map(|r| &r.resource_metrics)
        .filter_map(|r| r.resource.as_ref());
    traces
        .chain(metrics)
        .map(|r| text(&r.attributes, "service.name"))
        .collect()
}

/// The last export of the metric `name` (they are cumulative: the last has it all).
pub fn metric(received: &Received, name: &str) -> Metric {
    received
        .metrics
        .iter()
        .flat_map(|r| &r.resource_metrics)
        .flat_map(|r| &r.scope_metrics)
        .flat_map(|s| &s.metrics)
        .rfind(|m| m.name == name)
        .cloned()
        .unwrap_or_else(|| panic!("no metric {name}"))
}

/// A histogram's points: (attributes, count, sum, bounds).
pub fn histogram(metric: &Metric) -> Vec<(Vec<KeyValue>, u64, f64, Vec<f64>)> {
    match &metric.data {
        Some(metric::Data::Histogram(h)) => h
            .data_points
            .iter()
            .map(|p| {
                (
                    p.attributes.clone(),
                    p.count,
                    p.sum.unwrap_or_default(),
                    p.explicit_bounds.clone(),
                )
            })
            .collect(),
        other => panic!("{} is not a histogram: {other:?}", metric.name),
    }
}

/// A monotonic sum's points: (attributes, value).
pub fn counter(metric: &Metric) -> Vec<(Vec<KeyValue>, i64)> {
    use opentelemetry_proto::tonic::metrics::v1::number_data_point::Value;
    match &metric.data {
        Some(metric::Data::Sum(sum)) if sum.is_monotonic => sum
            .data_points
            .iter()
            .map(|p| {
                let value = match p.value {
                    Some(Value::AsInt(i)) => i,
                    Some(Value::AsDouble(f)) => f as i64,
                    None => 0,
                };
                (p.attributes.clone(), value)
            })
            .collect(),
        other => panic!("{} is not a counter: {other:?}", metric.name),
    }
}
