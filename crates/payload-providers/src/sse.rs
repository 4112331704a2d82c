//! Server-sent events read from a response's bytes, as the HTML standard's
//! event-stream format defines them, in time linear in the bytes received and with a
//! cap on the size of one event.
//!
//! Each byte is searched for a line end once: a line that arrives in many pieces is
//! not scanned again from its start as each piece comes (which made one 10 MB event
//! cost minutes), and the bytes of lines already read are dropped once per piece, never
//! once per line. An event larger than the cap is refused as soon as its bytes pass
//! the cap, before they are all held, so a hostile server cannot make the client hold
//! more than the cap for one event.

use std::collections::VecDeque;
use std::fmt;
use std::time::Duration;

/// One server-sent event: its type (`message` when the stream named none), its data
/// (the `data:` lines joined with `\n`), the last event id and its `retry` field.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Event {
    /// The `event:` field, `message` when absent.
    pub event: String,
    /// The `data:` lines, joined with `\n`.
    pub data: String,
    /// The last `id:` the stream sent (kept across events, as the standard says).
    #[allow(dead_code, reason = "part of the event as the standard defines it")]
    pub id: String,
    /// The `retry:` field of this event, if it had one.
    #[allow(dead_code, reason = "part of the event as the standard defines it")]
    pub retry: Option<Duration>,
}

/// Why the bytes could not be read as events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseError {
    /// One event (its lines so far) passed the cap.
    TooLarge {
        /// The cap, in bytes.
        limit: usize,
    },
    /// A field the stream's reader keeps is not UTF-8.
    NotUtf8,
}

impl fmt::Display for SseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SseError::TooLarge { limit } => write!(
                f,
                "one server-sent event is larger than the limit of {limit} bytes (max_event_bytes)"
            ),
            SseError::NotUtf8 => f.write_str("the event stream is not UTF-8"),
        }
    }
}

/// Turns the pieces of a response body into events.
#[derive(Debug)]
pub struct SseReader {
    max_event_bytes: usize,
    /// Bytes not yet read as lines: the tail of the stream after its last line end.
    pending: Vec<u8>,
    /// How much of `pending` has been searched for a line end already.
    searched: usize,
    /// The last piece ended with `\r`: a `\n` starting the next one ends no new line.
    after_cr: bool,
    /// The first line has been read (a byte order mark is dropped from it).
    started: bool,
    event_type: String,
    data: String,
    id: String,
    retry: Option<Duration>,
    /// The bytes of the current event's complete lines, each line end counted as one.
    event_bytes: usize,
    ready: VecDeque<Event>,
    received: u64,
    examined: u64,
}

impl SseReader {
    /// A reader that refuses an event of more than `max_event_bytes` (its lines, each
    /// line end counted as one byte, the empty line that ends it included; at least 1).
    pub fn new(max_event_bytes: usize) -> SseReader {
        SseReader {
            max_event_bytes: max_event_bytes.max(1),
            pending: Vec::new(),
            searched: 0,
            after_cr: false,
            started: false,
            event_type: String::new(),
            data: String::new(),
            id: String::new(),
            retry: None,
            event_bytes: 0,
            ready: VecDeque::new(),
            received: 0,
            examined: 0,
        }
    }

    /// Reads the next piece of the body. The events it completes are then handed out
    /// by [`SseReader::next_event`]. After an error the reader must not be used again.
    pub fn push(&mut self, mut bytes: &[u8]) -> Result<(), SseError> {
        self.received += bytes.len() as u64;
        if self.after_cr && !bytes.is_empty() {
            self.after_cr = false;
            // The `\n` of a `\r\n` cut between two pieces: the line already ended.
            if bytes[0] == b'\n' {
                bytes = &bytes[1..];
            }
        }
        self.pending.extend_from_slice(bytes);
        let mut line_start = 0;
        loop {
            let from = self.searched;
            let Some(offset) = memchr::memchr2(b'\n', b'\r', &self.pending[from..]) else {
                self.examined += (self.pending.len() - from) as u64;
                self.searched = self.pending.len();
                break;
            };
            let end = from + offset;
            self.examined += offset as u64 + 1;
            let mut next = end + 1;
            if self.pending[end] == b'\r' {
                match self.pending.get(next) {
                    Some(b'\n') => next += 1,
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
            // A line end counts one byte, `\r\n` too, so the count does not depend on
            // whether a `\r\n` came in one piece.
            self.event_bytes += end - line_start + 1;
            if self.event_bytes > self.max_event_bytes {
                return Err(SseError::TooLarge {
                    limit: self.max_event_bytes,
                });
            }
            let line = std::mem::take(&mut self.pending);
            let result = self.line(&line[line_start..end]);
            self.pending = line;
            result?;
            line_start = next;
            self.searched = next;
        }
        // One move per piece: the tail kept is what came after the last line end.
        self.pending.drain(..line_start);
        self.searched -= line_start;
        if self.event_bytes + self.pending.len() > self.max_event_bytes {
            return Err(SseError::TooLarge {
                limit: self.max_event_bytes,
            });
        }
        Ok(())
    }

    /// The next complete event, in the order the stream sent them.
    pub fn next_event(&mut self) -> Option<Event> {
        self.ready.pop_front()
    }

    /// The bytes received so far.
    pub fn received(&self) -> u64 {
        self.received
    }

    /// The bytes searched for a line end so far: never more than those received (each
    /// byte is searched once), which is what keeps the reader linear.
    #[cfg(any(test, feature = "__internals"))]
    pub fn examined(&self) -> u64 {
        self.examined
    }

    /// One line, without its line end.
    fn line(&mut self, mut line: &[u8]) -> Result<(), SseError> {
        if !self.started {
            self.started = true;
            line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        }
        if line.is_empty() {
            self.dispatch();
            return Ok(());
        }
        if line[0] == b':' {
            // A comment: servers send them to keep the connection open.
            return Ok(());
        }
        let (name, value) = match memchr::memchr(b':', line) {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        match name {
            b"data" => {
                self.data.push_str(utf8(value)?);
                self.data.push('\n');
            }
            b"event" => self.event_type = utf8(value)?.to_string(),
            b"id" if !value.contains(&0) => self.id = utf8(value)?.to_string(),
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                self.retry = utf8(value)?.parse().ok().map(Duration::from_millis);
            }
            // Other fields are ignored, as the standard says.
            _ => {}
        }
        Ok(())
    }

    /// An empty line: the event so far is complete (one without data is dropped).
    fn dispatch(&mut self) {
        self.event_bytes = 0;
        let event_type = std::mem::take(&mut self.event_type);
        let retry = self.retry.take();
        if self.data.is_empty() {
            return;
        }
        let mut data = std::mem::take(&mut self.data);
        data.pop();
        self.ready.push_back(Event {
            event: if event_type.is_empty() {
                "message".to_string()
            } else {
                event_type
            },
            data,
            id: self.id.clone(),
            retry,
        });
    }
}

fn utf8(bytes: &[u8]) -> Result<&str, SseError> {
    std::str::from_utf8(bytes).map_err(|_| SseError::NotUtf8)
}

#[cfg(any(test, feature = "__internals"))]
pub mod check;

#[cfg(test)]
mod tests;
