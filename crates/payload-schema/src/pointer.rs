//! JSON Pointers (RFC 6901), as every error path and schema location is written.
//!
//! A reference token escapes `~` as `~0` and `/` as `~1`; an array index is written in
//! decimal. The `push_*` functions append to one buffer, so a walk over a value keeps a
//! single `String` and pushes and truncates segments instead of allocating per node.

/// Escapes one reference token (`~` → `~0`, `/` → `~1`).
pub fn escape_token(token: &str) -> String {
    let mut out = String::with_capacity(token.len());
    push_escaped(&mut out, token);
    out
}

/// `base` with `/` and one more (escaped) reference token appended.
pub fn join(base: &str, token: &str) -> String {
    let mut pointer = String::with_capacity(base.len() + token.len() + 1);
    pointer.push_str(base);
    push_token(&mut pointer, token);
    pointer
}

/// Appends `/` and one escaped reference token to `pointer`, allocating nothing when
/// `pointer` has room.
pub fn push_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    push_escaped(pointer, token);
}

/// Appends `/` and an array index to `pointer`.
pub fn push_index(pointer: &mut String, index: usize) {
    // The digits written from the last, without the formatting machinery (an index is
    // pushed for every item a walk visits).
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = index;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    pointer.push('/');
    pointer.extend(digits[at..].iter().map(|&digit| char::from(digit)));
}

/// Reads one escaped reference token back (`~1` → `/`, `~0` → `~`, in that order, as
/// RFC 6901 §4 says).
pub fn unescape_token(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// A URI fragment (the part of a `$ref` after `#`) as a JSON Pointer: percent-escapes
/// decoded (RFC 6901 §6); a `%` not followed by two hex digits is kept as written.
pub fn decode_fragment(fragment: &str) -> String {
    fn hex(byte: u8) -> Option<u8> {
        (byte as char).to_digit(16).map(|d| d as u8)
    }
    let bytes = fragment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(high), Some(low)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push(high * 16 + low);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn push_escaped(out: &mut String, token: &str) {
    // Most tokens hold neither character: copied whole.
    if !token.bytes().any(|b| b == b'~' || b == b'/') {
        out.push_str(token);
        return;
    }
    for c in token.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tokens_escape_and_read_back() {
        for token in ["", "a", "a/b", "~", "~1", "a~/b", "é/~0"] {
            assert_eq!(unescape_token(&escape_token(token)), token);
        }
        assert_eq!(escape_token("a/b~c"), "a~1b~0c");
    }

    #[test]
    fn an_index_is_written_in_decimal() {
        let indices = (0..1000).chain([9_999, 10_000, 123_456_789, usize::MAX]);
        for index in indices {
            let mut pointer = String::from("/items");
            push_index(&mut pointer, index);
            assert_eq!(pointer, format!("/items/{index}"));
        }
    }

    #[test]
    fn a_joined_pointer_finds_the_member() {
        let value = json!({"a/b": {"~x": [10, 20]}});
        let mut pointer = join("", "a/b");
        push_token(&mut pointer, "~x");
        push_index(&mut pointer, 1);
        assert_eq!(pointer, "/a~1b/~0x/1");
        assert_eq!(value.pointer(&pointer), Some(&json!(20)));
    }
}
