//! A [`Duration`] written as whole minutes: the `#[serde(with = "crate::minutes")]`
//! module of the recipe types, as an app writes one. The schema says what the JSON is
//! (`#[schemars(with = "u32")]`); this module says how serde reads and writes it.

use serde::{Deserialize, Deserializer, Serializer};
use std::time::Duration;

/// Writes `duration` as its whole minutes.
pub fn serialize<S: Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_u64(duration.as_secs() / 60)
}

/// Reads whole minutes into a [`Duration`].
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Duration, D::Error> {
    let minutes = u32::deserialize(deserializer)?;
    Ok(Duration::from_secs(u64::from(minutes) * 60))
}
