//! How a marker is spelled (docs/spec.md §1.2, §1.3, §1.12): the text around a match of a
//! marker's name that makes it a marker rather than a word.
//!
//! `NAME` becomes a marker when it is optionally wrapped in up to three `*` or `_` on
//! each side, then optional horizontal whitespace (any Unicode space: `U+00A0` and
//! `U+202F` as French typography writes them, tabs, and the invisible characters of
//! docs/spec.md §9.3), then `:` (the colon may sit inside the emphasis: `**NAME:**`), then only
//! whitespace and at most one code-fence opener ([`crate::fence`], any info string)
//! before the opening `{` or `[`. A name glued to the marker's own alphabet (an ASCII
//! letter, digit or `_` before it: `MY_NAME`; a letter after it: `NAMES`) or followed
//! by anything else is prose; Chinese text or punctuation right before it is not glue
//! (docs/spec.md §1.15). A marker that ends its line with no value after it is [`Spelling::Alone`].
//! Where the line and the surroundings allow a marker at all is decided in [`super::lines`].

use crate::fence::{self, Fence};
pub(crate) use crate::space::is_horizontal_space;
use crate::space::{self, is_space};

/// At most this many emphasis characters on each side of a marker's name.
const MAX_EMPHASIS: usize = 3;

/// At most this many invisible characters between a marker's name and its emphasis.
const MAX_INVISIBLE: usize = 4;

/// What the text around a name match says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Spelling {
    /// The name is a word in prose.
    Prose,
    /// The text so far ends before that is decided; more may come.
    NeedMore,
    /// The name is written as a marker.
    Marker(Spelled),
    /// The name is written as a marker that ends its line, and what follows is not a
    /// value (docs/spec.md §1.17). Whether that makes it a marker with nothing after it depends
    /// on where it stands (alone at a line's start); `end` is where its line's text ends.
    Alone {
        /// Where the marker starts, its leading emphasis included.
        marker_start: usize,
        /// The end of the marker's line, before the line break.
        end: usize,
    },
    /// An opening tag whose content is not a value, closed by its closing tag
    /// (docs/spec.md §1.21): the pair and what stands between them are a block with no
    /// value, ending at `end` (past the closing tag).
    Empty {
        /// Just past the closing tag.
        end: usize,
    },
}

/// A marker, as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Spelled {
    /// Where the marker starts, its leading emphasis included.
    pub(crate) marker_start: usize,
    /// The offset of the value's opening bracket; `None` when the complete text ends
    /// after the marker (or after the fence opener below it) before a value opens.
    pub(crate) value_start: Option<usize>,
    /// The fence opened between the colon and the value, if any.
    pub(crate) fence: Option<Fence>,
}

/// How far the head of a marker (its name, emphasis, spaces and colon) reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Head {
    /// The name is a word in prose.
    Prose,
    /// The text so far ends before that is decided.
    NeedMore,
    /// The name is written as a marker; what follows it starts at `after` (past the
    /// colon and any closing emphasis).
    Colon {
        /// Where the marker starts, its leading emphasis included.
        marker_start: usize,
        /// Just past the colon and its closing emphasis.
        after: usize,
    },
}

/// Whether `c` is an emphasis character.
pub(crate) fn is_emphasis(c: u8) -> bool {
    c == b'*' || c == b'_'
}

/// Where a marker whose name starts at `name_start` starts, its emphasis included
/// (invisible characters between the emphasis and the name are part of it).
pub(crate) fn marker_start(bytes: &[u8], name_start: usize) -> usize {
    let mut at = name_start;
    let mut emphasis = 0;
    let mut invisible = 0;
    loop {
        if emphasis < MAX_EMPHASIS && at > 0 && is_emphasis(bytes[at - 1]) {
            at -= 1;
            emphasis += 1;
        } else if invisible < MAX_INVISIBLE
            && at >= 3
            && space::invisible_len(&bytes[at - 3..]).is_some()
        {
            at -= 3;
            invisible += 1;
        } else {
            return at;
        }
    }
}

/// Whether a name starting at `name_start` is not glued to the word before it (docs/spec.md
/// §1.15): only an ASCII letter, digit or `_` glues; CJK text, emoji and punctuation
/// may stand right before a marker.
/// An invisible character right before the marker is the character before it, and not
/// glue.
pub(crate) fn can_start(text: &str, name_start: usize) -> bool {
    let bytes = text.as_bytes();
    let start = marker_start(bytes, name_start);
    space::invisible_len(&bytes[start..]).is_some()
        || !bytes[..start]
            .last()
            .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Reads a marker's head: the name at `name_start..name_end`, emphasis, spaces, colon.
pub(crate) fn head(text: &str, name_start: usize, name_end: usize, eof: bool) -> Head {
    if !can_start(text, name_start) {
        return Head::Prose;
    }
    let marker_start = marker_start(text.as_bytes(), name_start);
    let mut cursor = Cursor { text, at: name_end };
    cursor.skip_emphasis();
    cursor.skip_while(is_horizontal_space);
    match cursor.peek() {
        None if eof => return Head::Prose,
        None => return Head::NeedMore,
        Some(':') => cursor.at += 1,
        Some(_) => return Head::Prose,
    }
    cursor.skip_emphasis();
    match cursor.peek() {
        None if !eof => Head::NeedMore,
        Some(c) if c.is_alphanumeric() => Head::Prose,
        _ => Head::Colon {
            marker_start,
            after: cursor.at,
        },
    }
}

/// Reads what follows a match of a marker's name at `name_start..name_end`.
pub(crate) fn spell(text: &str, name_start: usize, name_end: usize, eof: bool) -> Spelling {
    let (marker_start, after) = match head(text, name_start, name_end, eof) {
        Head::Prose => return Spelling::Prose,
        Head::NeedMore => return Spelling::NeedMore,
        Head::Colon {
            marker_start,
            after,
        } => (marker_start, after),
    };
    let mut cursor = Cursor { text, at: after };
    cursor.skip_while(is_horizontal_space);
    // The marker ends its line: with no value after it, it stands alone.
    let alone = matches!(cursor.peek(), Some('\n' | '\r')).then_some(cursor.at);
    cursor.skip_while(is_space);
    let Some(fence) = cursor.skip_fence_opener(eof) else {
        return Spelling::NeedMore;
    };
    let value_start = match cursor.peek() {
        Some('{' | '[') => Some(cursor.at),
        // A value sent inside a string (docs/values.md): a quote, then a bracket.
        Some('"') => match held_bracket(text, cursor.at + 1) {
            Some(true) => Some(cursor.at),
            Some(false) => {
                return match alone {
                    Some(end) => Spelling::Alone { marker_start, end },
                    None => Spelling::Prose,
                };
            }
            None if eof => return Spelling::Prose,
            None => return Spelling::NeedMore,
        },
        None if eof => None,
        None => return Spelling::NeedMore,
        Some(_) => {
            return match alone {
                Some(end) => Spelling::Alone { marker_start, end },
                None => Spelling::Prose,
            };
        }
    };
    Spelling::Marker(Spelled {
        marker_start,
        value_start,
        fence,
    })
}

/// Reads what follows an opening tag at `tag_start..after` whose closing tag is
/// `close` (docs/spec.md §1.21): whitespace (line breaks too) and at most one code-fence
/// opener, then the value's opening bracket (or a quote and a bracket, a value sent
/// inside a string). A tag is markup no word is spelled as, so it needs no emphasis,
/// colon or line start. Anything else between the tags makes them a block with no
/// value that reaches past the closing tag ([`Spelling::Empty`]); with no closing tag
/// in the rest of a complete text, the block is truncated (a value that never opened).
pub(crate) fn spell_tag(
    text: &str,
    tag_start: usize,
    after: usize,
    close: &str,
    eof: bool,
) -> Spelling {
    let mut cursor = Cursor { text, at: after };
    cursor.skip_while(is_space);
    let Some(fence) = cursor.skip_fence_opener(eof) else {
        return Spelling::NeedMore;
    };
    let value = |value_start| {
        Spelling::Marker(Spelled {
            marker_start: tag_start,
            value_start,
            fence,
        })
    };
    match cursor.peek() {
        Some('{' | '[') => return value(Some(cursor.at)),
        Some('"') => match held_bracket(text, cursor.at + 1) {
            Some(true) => return value(Some(cursor.at)),
            Some(false) => {}
            None if eof => {}
            None => return Spelling::NeedMore,
        },
        None if eof => return value(None),
        None => return Spelling::NeedMore,
        Some(_) => {}
    }
    match memchr::memmem::find(&text.as_bytes()[after..], close.as_bytes()) {
        Some(at) => Spelling::Empty {
            end: after + at + close.len(),
        },
        None if eof => value(None),
        None => Spelling::NeedMore,
    }
}

/// Where the closing tag `close` of a block whose value (with its fence's closer) ends
/// at `from` ends, if the text puts it there (docs/spec.md §1.21): on the first line
/// after the value that holds anything but whitespace, where the text between the
/// value and the tag goes with the block. `Err(true)` when the text so far cannot say
/// yet; `Err(false)` when the tag is not there (the block ends after its value).
pub(crate) fn tag_closer(text: &str, from: usize, close: &str, eof: bool) -> Result<usize, bool> {
    let bytes = text.as_bytes();
    let at = from
        + bytes[from..]
            .iter()
            .take_while(|b| b.is_ascii_whitespace())
            .count();
    let line_end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |n| at + n);
    match memchr::memmem::find(&bytes[at..line_end], close.as_bytes()) {
        Some(found) => Ok(at + found + close.len()),
        None => Err(line_end == bytes.len() && !eof),
    }
}

/// Whether a bracket opens at `at` after whitespace (a quote stands before `at`): a
/// value sent inside a string; `None` when the text so far ends first.
fn held_bracket(text: &str, at: usize) -> Option<bool> {
    let visible = text[at..].trim_start();
    visible.bytes().next().map(|b| matches!(b, b'{' | b'['))
}

/// Whether the name at `name_start..name_end` is written as a label with no colon that
/// a value follows (docs/spec.md §1.16): at its line's start after at most a heading or
/// list prefix and emphasis (`### NAME`, `**NAME**`, `- NAME`), followed by only
/// whitespace and at most a fence opener before a value opens, on its line or the next
/// (`NAME {"a": 1}`, `### NAME` above a fenced block). A model writing that meant a
/// marker and left out its colon.
pub(crate) fn colonless_label(text: &str, name_start: usize, name_end: usize) -> bool {
    if !can_start(text, name_start) {
        return false;
    }
    let start = marker_start(text.as_bytes(), name_start);
    let line_start = text[..start].rfind('\n').map_or(0, |n| n + 1);
    if !super::lines::is_block_prefix(&text[line_start..start]) {
        return false;
    }
    let mut cursor = Cursor { text, at: name_end };
    cursor.skip_emphasis();
    cursor.skip_while(is_horizontal_space);
    if !matches!(cursor.peek(), Some('\n' | '\r' | '{' | '[' | '`' | '~')) {
        return false;
    }
    cursor.skip_while(is_space);
    if let Some((_, len)) = fence::inline_opener(cursor.rest()) {
        cursor.at += len;
        cursor.skip_while(is_space);
    }
    matches!(cursor.peek(), Some('{' | '['))
}

struct Cursor<'t> {
    text: &'t str,
    at: usize,
}

impl Cursor<'_> {
    /// Skips at most one code-fence opener and the whitespace after it: the fence it
    /// opened, if one did; `None` when the text so far may still become a fence's run
    /// (decided once more text arrives, or at `eof`).
    fn skip_fence_opener(&mut self, eof: bool) -> Option<Option<Fence>> {
        if let Some((opened, len)) = fence::inline_opener(self.rest()) {
            self.at += len;
            self.skip_while(is_space);
            Some(Some(opened))
        } else if !eof && fence::may_become_run(self.rest()) {
            None
        } else {
            Some(None)
        }
    }

    fn rest(&self) -> &str {
        &self.text[self.at..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    /// Skips up to three emphasis characters, and invisible characters among them.
    fn skip_emphasis(&mut self) {
        let bytes = self.text.as_bytes();
        let (mut emphasis, mut invisible) = (0, 0);
        loop {
            if emphasis < MAX_EMPHASIS && bytes.get(self.at).copied().is_some_and(is_emphasis) {
                self.at += 1;
                emphasis += 1;
            } else if invisible < MAX_INVISIBLE && space::invisible_len(&bytes[self.at..]).is_some()
            {
                self.at += 3;
                invisible += 1;
            } else {
                return;
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
            // An info string of several words: the value is on the next line.
            "SCHEMA_PROPOSAL:\n```json title=\"plan\"\n{}\n```",
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

    #[test]
    fn glue_is_the_markers_own_alphabet_only() {
        for text in [
            "好的SCHEMA_PROPOSAL: {}",
            "🙂SCHEMA_PROPOSAL: {}",
            "(SCHEMA_PROPOSAL: {})",
            "x\u{200B}SCHEMA_PROPOSAL: {}",
        ] {
            assert!(
                matches!(spelled(text, true), Spelling::Marker(_)),
                "{text:?}"
            );
        }
        for text in [
            "xSCHEMA_PROPOSAL: {}",
            "9SCHEMA_PROPOSAL: {}",
            "a_SCHEMA_PROPOSAL: {}",
        ] {
            assert_eq!(spelled(text, true), Spelling::Prose, "{text:?}");
        }
    }

    #[test]
    fn invisible_characters_are_space_in_a_marker() {
        for text in [
            "SCHEMA_PROPOSAL\u{200B}: {}",
            "SCHEMA_PROPOSAL:\u{FEFF}{}",
            "**\u{2060}SCHEMA_PROPOSAL\u{200D}**: {}",
            "SCHEMA_PROPOSAL:\u{200C}\n```json\n{}\n```",
        ] {
            let Spelling::Marker(found) = spelled(text, true) else {
                panic!("{text:?} is a marker");
            };
            assert_eq!(found.marker_start, 0, "{text:?}");
        }
    }

    #[test]
    fn tilde_and_long_fences_after_the_colon() {
        for text in ["SCHEMA_PROPOSAL:\n~~~json\n{}", "SCHEMA_PROPOSAL: ````\n{}"] {
            let Spelling::Marker(found) = spelled(text, true) else {
                panic!("{text:?} is a marker");
            };
            assert!(found.fence.is_some(), "{text:?}");
        }
        assert_eq!(spelled("SCHEMA_PROPOSAL: ~~", false), Spelling::NeedMore);
    }

    #[test]
    fn a_marker_that_ends_its_line_before_prose_stands_alone() {
        let text = "SCHEMA_PROPOSAL:  \r\nThen prose.";
        assert_eq!(
            spelled(text, true),
            Spelling::Alone {
                marker_start: 0,
                end: "SCHEMA_PROPOSAL:  ".len()
            }
        );
        assert_eq!(spelled("SCHEMA_PROPOSAL:\n\n", false), Spelling::NeedMore);
        // On the same line, text after the colon makes it prose.
        assert_eq!(spelled("SCHEMA_PROPOSAL: once\n{}", true), Spelling::Prose);
    }
}
