//! What counts as space in model text (docs/spec.md §1.2, §9.3): every Unicode horizontal space
//! (`U+00A0` and `U+202F` as French typography writes them, tabs), and the invisible
//! characters that models and editors leave in text (`U+200B`, `U+200C`, `U+200D`,
//! `U+2060`, `U+FEFF`), which a reader cannot see and so must not change a meaning.

/// Whether `c` is one of the invisible characters of docs/spec.md §9.3.
pub(crate) fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{2060}' | '\u{FEFF}'
    )
}

/// Whitespace that stays on the line, invisible characters included.
pub(crate) fn is_horizontal_space(c: char) -> bool {
    (c.is_whitespace() && c != '\n' && c != '\r') || is_invisible(c)
}

/// Any whitespace, line breaks and invisible characters included.
pub(crate) fn is_space(c: char) -> bool {
    c.is_whitespace() || is_invisible(c)
}

/// The length in bytes of the invisible character at the start of `bytes`, if one is.
pub(crate) fn invisible_len(bytes: &[u8]) -> Option<usize> {
    match bytes {
        [0xE2, 0x80, 0x8B..=0x8D, ..] | [0xE2, 0x81, 0xA0, ..] | [0xEF, 0xBB, 0xBF, ..] => Some(3),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invisible_bytes_match_the_characters() {
        for c in ['\u{200B}', '\u{200C}', '\u{200D}', '\u{2060}', '\u{FEFF}'] {
            let text = c.to_string();
            assert!(is_invisible(c) && is_horizontal_space(c) && is_space(c));
            assert_eq!(invisible_len(text.as_bytes()), Some(3), "{c:?}");
        }
        for c in ['\u{200E}', '\u{2061}', 'a', '\u{201C}'] {
            assert!(!is_invisible(c));
            assert_eq!(invisible_len(c.to_string().as_bytes()), None, "{c:?}");
        }
    }
}
