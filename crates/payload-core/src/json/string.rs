//! The one reader of JSON string bodies and their escapes (`\n`, `\u00e9`, surrogate
//! pairs). The repair lexer (`json::repair`), the stream's partial values
//! (`stream::partial`) and `json::locate` all read strings with it, so a key or a value
//! decodes the same way wherever it is read.
//!
//! [`escape`] reads one escape as JSON has it; [`lenient_escape`] is what the repair
//! lexer and the stream's partial values keep of an escape models get wrong
//! (docs/spec.md §3: an unknown escape is kept as written, a lone surrogate becomes
//! U+FFFD).
//!
//! Plain runs between quotes and escapes are found with `memchr` and copied whole, not
//! character by character: most of a block is string text.

/// What one escape, whose backslash is at a given offset, means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Escape {
    /// A JSON escape: the character, and the escape's length in bytes counted from the
    /// backslash (2 for `\n`, 6 for `\u00e9`, 12 for a surrogate pair).
    Char(char, usize),
    /// `\uXXXX` naming a surrogate with no partner: a lone low surrogate, or a high one
    /// not followed by a low one. The length is that of the one `\uXXXX` (6).
    LoneSurrogate,
    /// `\u` not followed by four hex digits.
    BadUnicode,
    /// A backslash before anything else (`\d`, `\'`).
    Unknown,
    /// The text ends before the escape is complete: more text may still make it valid.
    Cut,
}

/// The character a one-letter escape (`\n`, `\"`, ...) stands for.
pub(crate) fn simple_escape(letter: u8) -> Option<char> {
    Some(match letter {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        _ => return None,
    })
}

/// Reads the escape whose backslash is at `at` in `bytes`.
pub(crate) fn escape(bytes: &[u8], at: usize) -> Escape {
    let Some(&letter) = bytes.get(at + 1) else {
        return Escape::Cut;
    };
    if let Some(c) = simple_escape(letter) {
        return Escape::Char(c, 2);
    }
    if letter != b'u' {
        return Escape::Unknown;
    }
    let unit = match hex4(bytes, at + 2) {
        Hex::Value(unit) => unit,
        Hex::Cut => return Escape::Cut,
        Hex::Bad => return Escape::BadUnicode,
    };
    if (0xDC00..0xE000).contains(&unit) {
        return Escape::LoneSurrogate;
    }
    if !(0xD800..0xDC00).contains(&unit) {
        // Every other code unit below 0x10000 is a char.
        return char::from_u32(unit).map_or(Escape::LoneSurrogate, |c| Escape::Char(c, 6));
    }
    // A high surrogate: the pair needs `\u` and a low surrogate right after it.
    let next = at + 6;
    match (bytes.get(next), bytes.get(next + 1)) {
        (None, _) | (Some(b'\\'), None) => return Escape::Cut,
        (Some(b'\\'), Some(b'u')) => {}
        _ => return Escape::LoneSurrogate,
    }
    let low = match hex4(bytes, next + 2) {
        Hex::Value(low) => low,
        Hex::Cut => return Escape::Cut,
        Hex::Bad => return Escape::LoneSurrogate,
    };
    if !(0xDC00..0xE000).contains(&low) {
        return Escape::LoneSurrogate;
    }
    let code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
    char::from_u32(code).map_or(Escape::LoneSurrogate, |c| Escape::Char(c, 12))
}

/// Four hex digits read from a given offset.
enum Hex {
    Value(u32),
    /// Fewer than four bytes are left, all hex digits.
    Cut,
    /// A byte that is not a hex digit.
    Bad,
}

fn hex4(bytes: &[u8], at: usize) -> Hex {
    let mut value = 0u32;
    for i in at..at + 4 {
        let Some(&b) = bytes.get(i) else {
            return Hex::Cut;
        };
        let Some(digit) = (b as char).to_digit(16) else {
            return Hex::Bad;
        };
        value = value * 16 + digit;
    }
    Hex::Value(value)
}

/// The offset just after the quote `quote` that closes a string whose body starts at
/// `from`, skipping escaped characters; the end of `bytes` when none does.
pub(crate) fn closing_quote(bytes: &[u8], from: usize, quote: u8) -> usize {
    let mut at = from;
    while at < bytes.len() {
        match memchr::memchr2(quote, b'\\', &bytes[at..]) {
            Some(n) if bytes[at + n] == b'\\' => at += n + 2,
            Some(n) => return at + n + 1,
            None => break,
        }
    }
    bytes.len()
}

/// What the lenient reading of one escape decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lenient {
    /// A JSON escape (or an escaped closing quote of the string's own style): read
    /// exactly.
    Exact,
    /// A repaired escape: kept as written, an apostrophe, or U+FFFD.
    Repaired,
}

/// Reads the escape whose backslash is at `at` the way the repair lexer keeps what
/// models write (docs/spec.md §3), appending the text to `out`; its length in bytes and
/// whether it was repaired, or `None` when the text ends inside it. `escapes_quote`
/// says whether a character is a quote the string's own style may escape (`\'` in a
/// single-quoted string), which is read as itself, unrepaired.
///
/// - a JSON escape is its character;
/// - `\u` without four hex digits is kept as written (`\u`, and the text after it is
///   read as text);
/// - a lone surrogate becomes U+FFFD;
/// - `\'` (Python's escape) is the apostrophe;
/// - any other escape (`\d` in a Windows path or a regex) is kept as written.
pub(crate) fn lenient_escape(
    text: &str,
    at: usize,
    escapes_quote: impl Fn(char) -> bool,
    out: &mut String,
) -> Option<(usize, Lenient)> {
    let bytes = text.as_bytes();
    match escape(bytes, at) {
        Escape::Char(c, length) => {
            out.push(c);
            Some((length, Lenient::Exact))
        }
        Escape::LoneSurrogate => {
            out.push('\u{FFFD}');
            Some((6, Lenient::Repaired))
        }
        Escape::BadUnicode => {
            out.push_str("\\u");
            Some((2, Lenient::Repaired))
        }
        Escape::Cut => None,
        Escape::Unknown => {
            let c = text[at + 1..].chars().next()?;
            let length = 1 + c.len_utf8();
            if escapes_quote(c) {
                out.push(c);
                return Some((length, Lenient::Exact));
            }
            if c != '\'' {
                out.push('\\');
            }
            out.push(c);
            Some((length, Lenient::Repaired))
        }
    }
}

/// The text of a string body read leniently (as the repair lexer reads it): the body
/// between a `quote` pair, escapes decoded by [`lenient_escape`]. A body cut inside an
/// escape keeps the rest as written.
pub(crate) fn unescape_lenient(body: &str, quote: char) -> std::borrow::Cow<'_, str> {
    let bytes = body.as_bytes();
    let Some(first) = memchr::memchr(b'\\', bytes) else {
        return std::borrow::Cow::Borrowed(body);
    };
    let mut out = String::with_capacity(body.len());
    out.push_str(&body[..first]);
    let mut at = first;
    loop {
        let Some((length, _)) = lenient_escape(body, at, |c| c == quote, &mut out) else {
            out.push_str(&body[at..]);
            break;
        };
        at += length;
        match memchr::memchr(b'\\', &bytes[at..]) {
            Some(n) => {
                out.push_str(&body[at..at + n]);
                at += n;
            }
            None => {
                out.push_str(&body[at..]);
                break;
            }
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lenient_keeps_what_models_write() {
        let read = |text: &str| {
            let mut out = String::new();
            let found = lenient_escape(text, 0, |c| c == '\'', &mut out);
            (out, found)
        };
        assert_eq!(read(r"\n"), ("\n".into(), Some((2, Lenient::Exact))));
        assert_eq!(read(r"\'"), ("'".into(), Some((2, Lenient::Exact))));
        assert_eq!(read(r"\d"), ("\\d".into(), Some((2, Lenient::Repaired))));
        assert_eq!(read(r"\uzz"), ("\\u".into(), Some((2, Lenient::Repaired))));
        assert_eq!(
            read(r"\ud83d!"),
            ("\u{FFFD}".into(), Some((6, Lenient::Repaired)))
        );
        assert_eq!(read(r"\u12"), (String::new(), None));
        let mut out = String::new();
        assert_eq!(
            lenient_escape(r"\'", 0, |_| false, &mut out),
            Some((2, Lenient::Repaired))
        );
        assert_eq!(out, "'");
    }

    #[test]
    fn unescape_lenient_decodes_a_whole_body() {
        assert_eq!(unescape_lenient("plain", '"'), "plain");
        assert_eq!(unescape_lenient(r"a\nb\u00e9\d", '"'), "a\nbé\\d");
        assert_eq!(unescape_lenient(r"it\'s", '\''), "it's");
        assert_eq!(unescape_lenient(r"cut\u1", '"'), r"cut\u1");
    }

    #[test]
    fn closing_quote_skips_escaped_quotes() {
        assert_eq!(closing_quote(br#"a\"b" c"#, 0, b'"'), 5);
        assert_eq!(closing_quote(br"it\'s' x", 0, b'\''), 6);
        assert_eq!(closing_quote(b"open", 0, b'"'), 4);
        assert_eq!(closing_quote(b"ends\\", 0, b'"'), 5);
    }
}
