//! Step 4 of the check (`crate::validate::check`): decoding a schema-valid value into
//! its type, and what that found. A file of its own, below the check and below what
//! the check calls (`crate::validate::catch_all` reads decodes too), so that neither
//! imports the other.

use crate::error::PayloadError;
use crate::typed::AnyPayload;
use serde_json::Value;

/// What decoding a schema-valid value into its type found.
#[derive(Debug, Clone, Default)]
pub struct TypedDecode {
    /// The decode error, or the type's own rule violations.
    pub errors: Vec<PayloadError>,
    /// The decoded value written back as JSON, when asked for and it decoded.
    pub roundtrip: Option<Value>,
    /// The decoded value, when it decoded and its rules hold.
    pub typed: Option<AnyPayload>,
}

/// How a value is decoded into its type: step 4, and the questions step 0's alias test
/// asks of serde (`crate::validate::aliases`).
pub(crate) trait Decoder {
    /// Decodes `value` into the type and applies its rules; with `roundtrip`, also
    /// writes the decoded value back as JSON.
    fn decode(&self, value: &Value, roundtrip: bool) -> TypedDecode;

    /// The message of the first thing decoding `value` refuses, `None` when it decodes
    /// and its rules hold. The alias test asks this of many probes and reads only the
    /// words, so a decoder may skip what a reported error needs (its path).
    fn refusal(&self, value: &Value) -> Option<String> {
        first_message(&self.decode(value, false))
    }

    /// `value` as decoding reads it, written back as JSON (`None` when it does not
    /// decode): what `decode(value, true)` gives as its `roundtrip`, which a decoder may
    /// find without the type's rules or a failure's path.
    fn roundtrip(&self, value: &Value) -> Option<Value> {
        self.decode(value, true).roundtrip
    }
}

/// The message of a decode's first error: what [`Decoder::refusal`] says by default.
pub(crate) fn first_message(decoded: &TypedDecode) -> Option<String> {
    decoded
        .errors
        .first()
        .map(|error| error.message().to_owned())
}

impl<F: Fn(&Value, bool) -> TypedDecode> Decoder for F {
    fn decode(&self, value: &Value, roundtrip: bool) -> TypedDecode {
        self(value, roundtrip)
    }
}
