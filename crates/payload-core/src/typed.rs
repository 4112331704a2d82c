//! The Rust value a payload was decoded into while it was validated, kept beside its
//! JSON so that asking for it does not decode it again.
//!
//! Validation has to decode a value into its type anyway (a custom `Deserialize` or the
//! type's own rules can refuse what the schema allows). Keeping that value makes
//! `ParsedResponse::payload::<T>()` a downcast instead of a second `T::deserialize`.
//! A value that arrives some other way (built by hand, deserialized from a stored
//! response) is decoded once, on first request.

use serde::de::DeserializeOwned;
use serde_json::Value;
use std::any::Any;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// A decoded value of some payload type, shared by the clones of a result.
pub(crate) type AnyPayload = Arc<dyn Any + Send + Sync>;

/// The decoded value of one JSON payload: filled by validation, or on first request.
#[derive(Clone, Default)]
pub(crate) struct Typed(OnceLock<Option<AnyPayload>>);

impl Typed {
    /// A cache holding `decoded` (`None` when validation did not keep it).
    pub(crate) fn holding(decoded: Option<AnyPayload>) -> Typed {
        let cell = OnceLock::new();
        if let Some(decoded) = decoded {
            let _ = cell.set(Some(decoded));
        }
        Typed(cell)
    }

    /// The value as `T`: the kept one, or `data` decoded now (and kept). `None` when
    /// `data` does not decode into `T`.
    pub(crate) fn get<T: DeserializeOwned + Send + Sync + 'static>(
        &self,
        data: &Value,
    ) -> Option<&T> {
        self.0
            .get_or_init(|| decode::<T>(data))
            .as_ref()?
            .downcast_ref::<T>()
    }

    /// The value as an owned `T`: the kept one when no clone shares it, else `data`
    /// decoded.
    pub(crate) fn take<T: DeserializeOwned + Send + Sync + 'static>(
        self,
        data: &Value,
    ) -> Option<T> {
        let kept = self.0.into_inner().flatten();
        match kept.map(Arc::downcast::<T>) {
            Some(Ok(shared)) => Arc::try_unwrap(shared)
                .ok()
                .or_else(|| T::deserialize(data).ok()),
            _ => T::deserialize(data).ok(),
        }
    }
}

fn decode<T: DeserializeOwned + Send + Sync + 'static>(data: &Value) -> Option<AnyPayload> {
    T::deserialize(data)
        .ok()
        .map(|decoded| Arc::new(decoded) as AnyPayload)
}

impl fmt::Debug for Typed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match self.0.get() {
            None => "not decoded",
            Some(None) => "does not decode",
            Some(Some(_)) => "decoded",
        };
        f.write_str(state)
    }
}
