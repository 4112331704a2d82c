//! How a marker is spelled (SPEC 1.2, 1.3, 7.2, 7.3): the text around a match of a
//! marker's name that makes it a marker rather than a word.
//!
//! `NAME` becomes a marker when it is optionally wrapped in up to three `*` or `_` on
//! each side, then optional horizontal whitespace (any Unicode space: `U+00A0` and
//! `U+202F` as French typography writes them, tabs), then `:` (the colon may sit inside
//! the emphasis: `**NAME:**`), then only whitespace and at most one code-fence opener
//! (with any info string) before the opening `{` or `[`. A name glued to a word
//! (`MY_NAME`, `NAMES`) or followed by anything else is prose. Where the line and the
//! surroundings allow a marker at all is decided in [`super::lines`].

/// At most this many emphasis characters on each side of a marker's name.
const MAX_EMPHASIS: usize = 3;

/// What the text around a name match says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Spelling {
    /// The name is a word in prose.
    Prose,
    /// The text so far ends before that is decided; more may come.
    NeedMore,
    /// The name is written as a marker.
    Marker(Spelled),
}

/// A marker, as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Spelled {
    /// Where the marker starts, its leading emphasis included.
    pub(crate) marker_start: usize,
    /// The offset of the value's opening bracket; `None` when the complete text ends
    /// after the marker (or after the fence opener below it) before a value opens.
    pub(crate) value_start: Option<usize>,
    /// A fence opener stands between the colon and the value.
    pub(crate) fence_after: bool,
}

/// Whether `c` is an emphasis character.
pub(crate) fn is_emphasis(c: u8) -> bool {
    c == b'*' || c == b'_'
}

/// Where a marker whose name starts at `name_start` starts, its emphasis included.
pub(crate) fn marker_start(bytes: &[u8], name_start: usize) -> usize {
    let mut at = name_start;
    for _ in 0..MAX_EMPHASIS {
        if at > 0 && is_emphasis(bytes[at - 1]) {
            at -= 1;
        }
    }
    at
}

/// Whether a name starting at `name_start` is not glued to the word before it.
pub(crate) fn can_start(text: &str, name_start: usize) -> bool {
    let start = marker_start(text.as_bytes(), name_start);
    !text[..start]
        .chars()
        .next_back()
        .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '*')
}

/// Whitespace that stays on the line.
pub(crate) fn is_horizontal_space(c: char) -> bool {
    c.is_whitespace() && c != '\n' && c != '\r'
}

/// Reads what follows a match of a marker's name at `name_start..name_end`.
pub(crate) fn spell(text: &str, name_start: usize, name_end: usize, eof: bool) -> Spelling {
    if !can_start(text, name_start) {
        return Spelling::Prose;
    }
    let marker_start = marker_start(text.as_bytes(), name_start);
    let mut cursor = Cursor { text, at: name_end };
    cursor.skip_emphasis();
    cursor.skip_while(is_horizontal_space);
    match cursor.peek() {
        None => return more_or_prose(eof),
        Some(':') => cursor.at += 1,
        Some(_) => return Spelling::Prose,
    }
    cursor.skip_emphasis();
    match cursor.peek() {
        None if !eof => return Spelling::NeedMore,
        Some(c) if c.is_alphanumeric() => return Spelling::Prose,
        _ => {}
    }
    cursor.skip_while(char::is_whitespace);
    let mut fence_after = false;
    if cursor.rest().starts_with("```") {
        fence_after = true;
        cursor.at += 3;
        cursor.skip_while(|c| !c.is_whitespace() && !matches!(c, '`' | '{' | '['));
        cursor.skip_while(char::is_whitespace);
    } else if !eof && "```".starts_with(cursor.rest()) && !cursor.rest().is_empty() {
        return Spelling::NeedMore;
    }
    let value_start = match cursor.peek() {
        Some('{' | '[') => Some(cursor.at),
        None if eof => None,
        None => return Spelling::NeedMore,
        Some(_) => return Spelling::Prose,
    };
    Spelling::Marker(Spelled {
        marker_start,
        value_start,
        fence_after,
    })
}

/// Running out of text before the colon: prose when the text is complete (a name with
/// no colon is a word), undecided otherwise.
fn more_or_prose(eof: bool) -> Spelling {
    if eof {
        Spelling::Prose
    } else {
        Spelling::NeedMore
    }
}

struct Cursor<'t> {
    text: &'t str,
    at: usize,
}

impl Cursor<'_> {
    fn rest(&self) -> &str {
        &self.text[self.at..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn skip_emphasis(&mut self) {
        for _ in 0..MAX_EMPHASIS {
            if self
                .text
                .as_bytes()
                .get(self.at)
                .copied()
                .is_some_and(is_emphasis)
            {
                self.at += 1;
            }
        }
    }

    fn skip_while(&mut self, keep: impl Fn(char) -> bool) {
        let rest = self.rest();
        let skipped = rest.find(|c: char| !keep(c)).unwrap_or(rest.len());
        self.at += skipped;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spelled(text: &str, eof: bool) -> Spelling {
        let start = text.find("SCHEMA_PROPOSAL").unwrap();
        spell(text, start, start + "SCHEMA_PROPOSAL".len(), eof)
    }

    #[test]
    fn emphasis_spaces_and_fences_as_models_write_them() {
        for text in [
            "SCHEMA_PROPOSAL: {}",
            "**SCHEMA_PROPOSAL**: {}",
            "***SCHEMA_PROPOSAL:*** {}",
            "*SCHEMA_PROPOSAL*: {}",
            "**SCHEMA_PROPOSAL:** {}",
            "__SCHEMA_PROPOSAL__ : {}",
            "SCHEMA_PROPOSAL\u{00A0}: {}",
            "SCHEMA_PROPOSAL\u{202F}:\u{00A0}{}",
            "SCHEMA_PROPOSAL:\t[]",
            "SCHEMA_PROPOSAL:\n```json\n{}\n```",
            "SCHEMA_PROPOSAL:\n```JSON\n{}\n```",
            "SCHEMA_PROPOSAL: ```jsonc {}```",
        ] {
            let Spelling::Marker(found) = spelled(text, true) else {
                panic!("{text:?} is a marker");
            };
            assert_eq!(found.marker_start, 0, "{text:?}");
            assert!(found.value_start.is_some(), "{text:?}");
        }
    }

    #[test]
    fn prose_and_identifiers_are_not_markers() {
        for text in [
            "I'll send a SCHEMA_PROPOSAL: once you confirm {x}",
            "MY_SCHEMA_PROPOSAL: {}",
            "SCHEMA_PROPOSALS: {}",
            "SCHEMA_PROPOSAL {}",
            "SCHEMA_PROPOSAL:x {}",
            "SCHEMA_PROPOSAL: ``` ``` {}",
            "SCHEMA_PROPOSAL",
        ] {
            assert_eq!(spelled(text, true), Spelling::Prose, "{text:?}");
        }
    }

    #[test]
    fn a_marker_at_the_end_of_the_text_has_no_value() {
        for text in [
            "SCHEMA_PROPOSAL:",
            "**SCHEMA_PROPOSAL:** ",
            "SCHEMA_PROPOSAL:\n```json\n",
        ] {
            let Spelling::Marker(found) = spelled(text, true) else {
                panic!("{text:?} is a marker");
            };
            assert_eq!(found.value_start, None, "{text:?}");
            assert_eq!(spelled(text, false), Spelling::NeedMore, "{text:?}");
        }
    }

    #[test]
    fn undecided_until_the_text_says() {
        for text in [
            "SCHEMA_PROPOSAL",
            "SCHEMA_PROPOSAL*",
            "SCHEMA_PROPOSAL :",
            "SCHEMA_PROPOSAL:\n\n",
            "SCHEMA_PROPOSAL: `",
            "SCHEMA_PROPOSAL: ```json",
        ] {
            assert_eq!(spelled(text, false), Spelling::NeedMore, "{text:?}");
        }
        for text in [
            "SCHEMA_PROPOSAL: once",
            "SCHEMA_PROPOSAL\n",
            "SCHEMA_PROPOSAL: ``x",
        ] {
            assert_eq!(spelled(text, false), Spelling::Prose, "{text:?}");
        }
    }
}
