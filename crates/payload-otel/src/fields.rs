//! The field values of one `tracing` span, kept by name, for the metrics layer.

use std::fmt;
use tracing::field::{Field, Visit};

/// One field's value as recorded.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum FieldValue {
    /// A string (a `%display` or `?debug` value is recorded as its text).
    Text(String),
    /// A signed integer.
    Int(i64),
    /// A floating-point number.
    Float(f64),
    /// A flag.
    Bool(bool),
}

/// The fields recorded on a span so far, last value winning.
#[derive(Debug, Default, Clone)]
pub(crate) struct Fields(Vec<(&'static str, FieldValue)>);

impl Fields {
    /// The text of `name`, if recorded as text.
    pub(crate) fn text(&self, name: &str) -> Option<&str> {
        match self.get(name)? {
            FieldValue::Text(text) => Some(text),
            _ => None,
        }
    }

    /// The whole number of `name`, if recorded as one (and not negative).
    pub(crate) fn count(&self, name: &str) -> Option<u64> {
        match self.get(name)? {
            FieldValue::Int(n) => u64::try_from(*n).ok(),
            _ => None,
        }
    }

    /// The number of `name`, if recorded as a float.
    pub(crate) fn float(&self, name: &str) -> Option<f64> {
        match self.get(name)? {
            FieldValue::Float(x) => Some(*x),
            FieldValue::Int(n) => Some(*n as f64),
            _ => None,
        }
    }

    /// Whether `name` was recorded as `true`.
    pub(crate) fn flag(&self, name: &str) -> bool {
        matches!(self.get(name), Some(FieldValue::Bool(true)))
    }

    /// The value of `name`, if recorded.
    pub(crate) fn get(&self, name: &str) -> Option<&FieldValue> {
        self.0.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    fn set(&mut self, name: &'static str, value: FieldValue) {
        match self.0.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => self.0.push((name, value)),
        }
    }
}

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.set(field.name(), FieldValue::Text(format!("{value:?}")));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.set(field.name(), FieldValue::Text(value.to_string()));
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.set(field.name(), FieldValue::Int(value));
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.set(
            field.name(),
            FieldValue::Int(i64::try_from(value).unwrap_or(i64::MAX)),
        );
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        self.set(field.name(), FieldValue::Float(value));
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.set(field.name(), FieldValue::Bool(value));
    }
}
