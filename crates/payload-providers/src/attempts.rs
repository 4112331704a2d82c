//! The typed record of a request's attempts: what each one got (status, error) and how
//! long it took, kept where the caller can read it after the stream ends.

use payload_agent::ModelError;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// One attempt of a request.
#[derive(Debug, Clone, PartialEq)]
pub struct AttemptRecord {
    /// 1 for the first attempt.
    pub attempt: usize,
    /// The HTTP status, when a response came.
    pub status: Option<u16>,
    /// From sending the request to the attempt's end (its stream's end for the attempt
    /// that streamed the answer).
    pub latency: Duration,
    /// Why the attempt failed; `None` for the one whose answer streamed to its end.
    pub error: Option<ModelError>,
    /// Whether any of the answer had been passed on when it ended.
    pub content: bool,
}

/// The attempts of the current request, shared between a client and the stream it
/// returned (the stream writes, the client reads).
#[derive(Debug, Clone, Default)]
pub(crate) struct AttemptLog {
    records: Arc<Mutex<Vec<AttemptRecord>>>,
}

impl AttemptLog {
    /// A new log for a new request; the client keeps it as "the last request's".
    pub(crate) fn fresh() -> AttemptLog {
        AttemptLog::default()
    }

    /// Adds an attempt.
    pub(crate) fn push(&self, record: AttemptRecord) {
        self.records
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(record);
    }

    /// The attempts so far.
    pub(crate) fn snapshot(&self) -> Vec<AttemptRecord> {
        self.records
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}
