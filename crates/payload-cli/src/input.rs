//! Reading the command's inputs under `--max-input-bytes`, the one size setting, which
//! also becomes the library's limit.

use crate::error::CliError;
use std::io::{self, Read};
use std::path::PathBuf;

/// The library's limits for the `--max-input-bytes` the command was given: the one
/// setting, raised as well as lowered (docs/spec.md §8.2), so what the command reads the
/// library reads too.
pub fn limits(max_input_bytes: u64) -> payload_core::limits::Limits {
    let bytes = usize::try_from(max_input_bytes).unwrap_or(usize::MAX);
    payload_core::limits::Limits::DEFAULT.max_input_bytes(bytes)
}

/// Reads FILE, or standard input when there is none, refusing more than `limit` bytes.
pub fn read_input(file: Option<&PathBuf>, limit: u64) -> Result<String, CliError> {
    let mut bytes = Vec::new();
    let read = match file {
        Some(path) => {
            let handle = std::fs::File::open(path).map_err(|source| CliError::Read {
                path: path.clone(),
                source,
            })?;
            handle.take(limit + 1).read_to_end(&mut bytes)
        }
        None => io::stdin().lock().take(limit + 1).read_to_end(&mut bytes),
    };
    read?;
    if bytes.len() as u64 > limit {
        return Err(CliError::TooLarge { limit });
    }
    String::from_utf8(bytes).map_err(|e| CliError::NotUtf8 {
        offset: e.utf8_error().valid_up_to(),
    })
}

/// Reads the JSON file at `path` as a `T`.
pub(crate) fn read_json<T: serde::de::DeserializeOwned>(
    path: &PathBuf,
    limit: u64,
) -> Result<T, CliError> {
    let text = read_input(Some(path), limit)?;
    serde_json::from_str(&text).map_err(|e| CliError::InvalidJson {
        path: path.clone(),
        message: e.to_string(),
    })
}
