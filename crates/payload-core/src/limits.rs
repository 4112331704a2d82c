//! The limits that keep hostile model text cheap to read.
//!
//! Model text is untrusted: it can be huge, nest without end, or repeat a marker a
//! million times. Every reader is linear in its input and uses explicit stacks, so what
//! remains to bound is:
//!
//! - **nesting**: [`MAX_DEPTH`] levels (serde_json's own limit). Deeper JSON is a
//!   `parsing` error on the strict and the lenient path alike; the other formats'
//!   readers, the coercer, the schema converter and the streaming preview stop at the
//!   same depth, so no value a model writes can overflow the call stack.
//! - **reports**: at most [`MAX_ERRORS`] errors per payload and [`MAX_WARNINGS`]
//!   warnings per response are kept, the rest counted in one final entry;
//! - **input size**: [`Limits::max_input_bytes`], [`DEFAULT_MAX_INPUT_BYTES`] unless set.
//!   A larger response is refused whole with a clear `parsing` error instead of being
//!   read: [`crate::marker::parse::Parser::with_limits`], [`crate::stream::StreamParser::with_limits`]
//!   and [`crate::whole::extract::extract_as_with`] take the limits.

use crate::error::{ErrorKind, PayloadError};

/// How many levels of nesting a value may have, in every format and on every path:
/// this many are read, one more is a `parsing` error (docs/spec.md §8.3).
pub const MAX_DEPTH: usize = 128;

/// How many errors one payload's report keeps before counting the rest
/// (docs/spec.md §8.1).
pub const MAX_ERRORS: usize = 100;
/// How many warnings one response's report keeps before counting the rest.
pub const MAX_WARNINGS: usize = 100;

/// The default cap on a response's size: 16 MiB, far beyond any model's output.
pub const DEFAULT_MAX_INPUT_BYTES: usize = 16 * 1024 * 1024;

/// The limits applied to one response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Responses longer than this many bytes are refused.
    pub max_input_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

impl Limits {
    /// The default limits.
    pub const DEFAULT: Limits = Limits {
        max_input_bytes: DEFAULT_MAX_INPUT_BYTES,
    };

    /// Limits with a different size cap.
    pub const fn max_input_bytes(mut self, bytes: usize) -> Limits {
        self.max_input_bytes = bytes;
        self
    }

    /// `Ok` when a response of `len` bytes may be read; the error to report otherwise.
    pub fn check_input(&self, len: usize) -> Result<(), PayloadError> {
        if len <= self.max_input_bytes {
            return Ok(());
        }
        Err(PayloadError::new(
            ErrorKind::Parsing,
            "",
            format!(
                "the response is {len} bytes, more than the limit of {} bytes; it was not read",
                self.max_input_bytes
            ),
        )
        .with_suggestion("send a shorter response"))
    }
}

/// The error for a value that nests deeper than [`MAX_DEPTH`], in any format.
pub(crate) fn too_deep() -> PayloadError {
    PayloadError::new(
        ErrorKind::Parsing,
        "",
        format!("the value nests deeper than {MAX_DEPTH} levels"),
    )
    .with_suggestion("flatten the structure")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_is_inclusive_and_the_error_says_both_sizes() {
        let limits = Limits::DEFAULT.max_input_bytes(10);
        assert!(limits.check_input(10).is_ok());
        let error = limits.check_input(11).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Parsing);
        assert!(error.message().contains("11 bytes"), "{}", error.message());
        assert!(
            error.message().contains("limit of 10 bytes"),
            "{}",
            error.message()
        );
    }

    #[test]
    fn the_default_is_sixteen_mebibytes() {
        assert_eq!(Limits::default().max_input_bytes, 16 << 20);
    }
}

#[cfg(test)]
mod entry_points {
    use crate::formats::Format;
    use crate::limits::Limits;
    use crate::marker::parse::{ParseOptions, Parser};
    use crate::stream::StreamParser;
    use crate::{ErrorKind, LlmPayload};
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    /// A note the model may attach.
    #[derive(Serialize, Deserialize, JsonSchema)]
    struct Note {
        /// The text.
        text: String,
        /// Anything nested.
        extra: Option<serde_json::Value>,
    }

    impl LlmPayload for Note {
        const NAME: &'static str = "note";
        const MARKER: &'static str = "NOTE";
        const DESCRIPTION: &'static str = "A note.";
    }

    const RESPONSE: &str = "Saved.\n\nNOTE: {\"text\": \"call Ana back\"}";

    #[test]
    fn a_response_over_the_cap_is_refused_by_parse_stream_and_extract() {
        let options = ParseOptions::new().payload(Note::TYPE);
        let limits = Limits::DEFAULT.max_input_bytes(16);
        let parsed = Parser::new(&options).with_limits(limits).parse(RESPONSE);
        assert_eq!(parsed.message, "");
        assert!(parsed.custom_payload.is_none());
        assert_eq!(parsed.rejected[0].kind, "response");
        assert_eq!(parsed.rejected[0].errors[0].kind(), ErrorKind::Parsing);

        let mut stream = StreamParser::new(&options).with_limits(limits);
        for chunk in RESPONSE.as_bytes().chunks(5) {
            stream.push(std::str::from_utf8(chunk).unwrap());
        }
        assert_eq!(stream.finish().1, parsed);

        let json = "{\"text\": \"call Ana back\"}";
        let result = crate::extract_as_with(json, &Note::TYPE, None, limits);
        assert!(!result.success);
        assert!(result.errors[0].message().contains("limit of 16 bytes"));
        // Under the cap, the same calls read the response.
        assert!(crate::extract_as(json, &Note::TYPE, None).success);
        assert!(
            Parser::new(&options)
                .parse(RESPONSE)
                .custom_payload
                .is_some()
        );
    }

    #[test]
    // Markdown cannot nest: its sections are headings, six levels at most.
    fn nesting_past_the_limit_is_a_parsing_error_in_every_format() {
        let deep = |open: &str, close: &str, n: usize| open.repeat(n) + &close.repeat(n);
        let json = format!("{{\"text\": \"a\", \"extra\": {}}}", deep("[", "]", 200));
        let marker = format!("Saved.\n\nNOTE: {json}");
        let parsed = Parser::new(&ParseOptions::new().payload(Note::TYPE)).parse(&marker);
        let error = &parsed.rejected[0].errors[0];
        assert_eq!(error.kind(), ErrorKind::Parsing);
        assert!(
            error.message().contains("deeper than 128"),
            "{}",
            error.message()
        );

        let formats = [
            (Some(Format::Json), json.clone()),
            (None, json.clone()),
            (
                Some(Format::Xml),
                format!(
                    "<note><text>a</text><extra>{}</extra></note>",
                    deep("<x>", "</x>", 200)
                ),
            ),
            (
                Some(Format::Tagged),
                format!("<text>a</text><extra>{}</extra>", deep("<x>", "</x>", 200)),
            ),
            (
                Some(Format::Delimited),
                format!(
                    "---TEXT---\na\n---END-TEXT---\n---EXTRA---\n{}---END-EXTRA---",
                    deep("---X---\n", "---END-X---\n", 200)
                ),
            ),
        ];
        let mut wrong = Vec::new();
        for (format, text) in formats {
            let result = crate::extract_as(&text, &Note::TYPE, format);
            let deep_error = result
                .errors
                .iter()
                .any(|e| e.kind() == ErrorKind::Parsing && e.message().contains("deeper than 128"));
            if result.success || !deep_error {
                wrong.push((format, result.success, result.errors));
            }
        }
        assert!(wrong.is_empty(), "{wrong:#?}");
    }
}
