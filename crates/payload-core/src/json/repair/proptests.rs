//! Properties over arbitrary values and arbitrary text.

use super::*;
use proptest::prelude::*;
use serde_json::{Map, Number, Value};

/// Any JSON value serde_json can write (finite floats only, as JSON has no others).
pub(crate) fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter_map("finite", Number::from_f64)
            .prop_map(Value::Number),
        any::<String>().prop_map(Value::String),
        "[a-z' /{}\\[\\]\u{2019}\u{201C}\"\\\\\n\t]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Keys: identifier-like ones (which the sloppy writer may leave bare) and any text.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        "[A-Za-z_$][A-Za-z0-9_$-]{0,8}",
        any::<String>(),
        Just("True".to_string()),
        Just("it's".to_string()),
    ]
}

/// An object or array.
fn json_container() -> impl Strategy<Value = Value> {
    json_value().prop_filter("object or array", |v| v.is_object() || v.is_array())
}

/// Text made of the tokens broken JSON is made of, so that arbitrary input reaches
/// every path of the reader (plain random strings rarely get past the first byte).
pub(crate) fn token_soup() -> impl Strategy<Value = String> {
    let tokens = prop::sample::select(vec![
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "\"",
        "'",
        "\u{201C}",
        "\u{201D}",
        "\u{2018}",
        "\u{2019}",
        "\\",
        "\\u",
        "\\ud800",
        "\\udc00",
        "/",
        "*",
        "//",
        "/*",
        "*/",
        "\n",
        "\t",
        " ",
        "True",
        "None",
        "null",
        "tru",
        "a",
        "$k",
        "-",
        "1",
        "0",
        "1.5",
        "e",
        "1e",
        "```",
        "```json\n",
        "x\u{1}",
        "é",
    ]);
    prop::collection::vec(tokens, 0..64).prop_map(|parts| parts.concat())
}

/// `value` written the way a careless model might (any mix of the mistakes the reader
/// repairs), driven by `choices`, in a code fence when `fenced`: it reads back as
/// `value`.
pub(crate) fn sloppy(value: &Value, choices: &[u8], fenced: bool) -> String {
    let mut sloppy = Sloppy {
        choices,
        next: 0,
        out: String::new(),
        after_word: false,
    };
    if fenced {
        sloppy.out.push_str("```json\n");
    }
    sloppy.value(value);
    if fenced {
        sloppy.out.push_str("\n```");
    }
    sloppy.out
}

/// Writes `value` the way a careless model might, driven by `choices`; the text must
/// read back as `value`.
struct Sloppy<'a> {
    choices: &'a [u8],
    next: usize,
    out: String,
    /// The last thing written was a bare word (`None`, `True`).
    after_word: bool,
}

impl Sloppy<'_> {
    fn pick(&mut self, n: u8) -> u8 {
        let byte = self.choices.get(self.next).copied().unwrap_or(0);
        self.next = (self.next + 1) % self.choices.len().max(1);
        byte % n
    }

    fn gap(&mut self) {
        match self.pick(8) {
            0 => self.out.push_str(" /* note */ "),
            1 => self.out.push_str(" // note\n"),
            2 => self.out.push('\n'),
            _ => self.out.push(' '),
        }
    }

    fn string(&mut self, text: &str) {
        let curly_double = !text.contains(['\u{201C}', '\u{201D}']);
        let curly_single = !text.contains(['\u{2018}', '\u{2019}']);
        let (open, close, escaped) = match self.pick(6) {
            1 => ('\'', '\'', '\''),
            2 if curly_double => ('\u{201C}', '\u{201D}', '"'),
            3 if curly_single => ('\u{2018}', '\u{2019}', '"'),
            _ => ('"', '"', '"'),
        };
        let raw_controls = self.pick(2) == 0;
        self.out.push(open);
        for c in text.chars() {
            match c {
                '\\' => self.out.push_str("\\\\"),
                '\n' | '\t' if raw_controls => self.out.push(c),
                c if c == escaped => {
                    self.out.push('\\');
                    self.out.push(c);
                }
                c if (c as u32) < 0x20 => self.out.push_str(&format!("\\u{:04x}", c as u32)),
                c => self.out.push(c),
            }
        }
        self.out.push(close);
    }

    fn key(&mut self, key: &str) {
        let bare = key
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
            && key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '-'));
        if bare && self.pick(2) == 0 {
            self.out.push_str(key);
        } else {
            self.string(key);
        }
    }

    /// Between items: a comma, or (missing comma) only the gap. Never missing after a
    /// bare word: a `'` right after one is an apostrophe to the balanced scanner, so
    /// the reader refuses to take it as the next string.
    fn separator(&mut self) {
        let missing = self.pick(4) == 0;
        if !missing || std::mem::take(&mut self.after_word) {
            self.out.push(',');
        }
        self.gap();
    }

    fn trailing(&mut self) {
        if self.pick(3) == 0 {
            self.out.push(',');
        }
        self.gap();
    }

    fn value(&mut self, value: &Value) {
        match value {
            Value::Null => {
                let word = ["null", "None"][self.pick(2) as usize];
                self.out.push_str(word);
                self.after_word = true;
            }
            Value::Bool(b) => {
                let python = self.pick(2) == 0;
                self.out.push_str(match (b, python) {
                    (true, false) => "true",
                    (true, true) => "True",
                    (false, false) => "false",
                    (false, true) => "False",
                });
                self.after_word = true;
            }
            Value::Number(n) => {
                self.out.push_str(&n.to_string());
                self.after_word = false;
            }
            Value::String(s) => {
                self.string(s);
                self.after_word = false;
            }
            Value::Array(items) => {
                self.out.push('[');
                self.gap();
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.separator();
                    }
                    self.value(item);
                }
                if !items.is_empty() {
                    self.trailing();
                }
                self.out.push(']');
                self.after_word = false;
            }
            Value::Object(map) => {
                self.out.push('{');
                self.gap();
                for (i, (k, v)) in map.iter().enumerate() {
                    if i > 0 {
                        self.separator();
                    }
                    self.key(k);
                    self.gap();
                    self.out.push(':');
                    self.gap();
                    self.value(v);
                }
                if !map.is_empty() {
                    self.trailing();
                }
                self.out.push('}');
                self.after_word = false;
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Strict JSON reads as serde_json reads it, with nothing reported.
    #[test]
    fn valid_json_round_trips(value in json_value(), pretty in any::<bool>()) {
        let text = if pretty {
            serde_json::to_string_pretty(&value).unwrap()
        } else {
            serde_json::to_string(&value).unwrap()
        };
        let strict: Value = serde_json::from_str(&text).unwrap();
        let lenient = parse_lenient(&text).unwrap();
        prop_assert_eq!(lenient.value, strict);
        prop_assert!(lenient.repairs.is_empty(), "{:?}", lenient.repairs);
    }

    /// A payload (object or array) cut anywhere before its end is an error: every
    /// proper prefix leaves at least the outermost container open. (Only a top-level
    /// scalar can have a complete prefix, `12` of `123`; payloads are never scalars.)
    #[test]
    fn cut_off_payloads_are_errors(value in json_container(), pretty in any::<bool>()) {
        let text = if pretty {
            serde_json::to_string_pretty(&value).unwrap()
        } else {
            serde_json::to_string(&value).unwrap()
        };
        for (cut, _) in text.char_indices() {
            let prefix = &text[..cut];
            prop_assert!(parse_lenient(prefix).is_err(), "prefix {:?} was accepted", prefix);
        }
    }

    /// What a careless model writes (any mix of the repaired mistakes) reads back as
    /// the value it meant.
    #[test]
    fn sloppy_writing_reads_back(
        value in json_value(),
        choices in prop::collection::vec(any::<u8>(), 1..64),
        fenced in any::<bool>(),
    ) {
        let text = sloppy(&value, &choices, fenced);
        match parse_lenient(&text) {
            Ok(lenient) => prop_assert_eq!(lenient.value, value, "text {:?}", text),
            Err(e) => prop_assert!(false, "{:?} failed: {}", text, e),
        }
    }

    /// Arbitrary text never panics; what is read with no repair is strict JSON.
    #[test]
    fn arbitrary_text_never_panics(text in prop_oneof![any::<String>(), token_soup()]) {
        if let Ok(lenient) = parse_lenient(&text) {
            if lenient.repairs.is_empty() {
                let strict: Value = serde_json::from_str(&text)
                    .map_err(|e| TestCaseError::fail(format!("{text:?}: {e}")))?;
                prop_assert_eq!(lenient.value, strict);
            }
        }
    }

    /// Copied notation (docs/spec.md §3.4): quoted choices separated by `|`, written as a
    /// member of any object or an item of any array, are a `validation` error at that
    /// member that names every choice; never one string that joins them.
    #[test]
    fn quoted_choices_are_an_error_at_their_member(
        value in json_value(),
        choices in prop::collection::vec("[A-Za-z0-9 ,:{}\\[\\]|'\"-]{0,8}", 2..5),
        gaps in prop::collection::vec(prop::sample::select(vec!["", " ", "  ", "\t", "\n "]), 8),
        in_array in any::<bool>(),
        pretty in any::<bool>(),
    ) {
        let mut written = String::new();
        for (i, choice) in choices.iter().enumerate() {
            if i > 0 {
                written.push_str(gaps[2 * i % gaps.len()]);
                written.push('|');
                written.push_str(gaps[(2 * i + 1) % gaps.len()]);
            }
            written.push_str(&serde_json::to_string(choice).unwrap());
        }
        let rest = if pretty {
            serde_json::to_string_pretty(&value).unwrap()
        } else {
            serde_json::to_string(&value).unwrap()
        };
        let (text, path) = if in_array {
            (format!("[{rest}, {written}, 1]"), "/1")
        } else {
            (format!("{{\"rest\": {rest}, \"pick\": {written}}}"), "/pick")
        };
        match parse_lenient(&text) {
            Ok(lenient) => prop_assert!(false, "{:?} was read as {}", text, lenient.value),
            Err(e) => {
                prop_assert_eq!(e.kind, ErrorKind::Validation, "{:?}: {}", text, e);
                prop_assert_eq!(e.path.as_str(), path);
                prop_assert_eq!(&e.choices, &choices);
            }
        }
    }

    /// Errors point inside the text (or at its end).
    #[test]
    fn error_offsets_are_in_bounds(text in token_soup()) {
        if let Err(e) = parse_lenient(&text) {
            prop_assert!(e.offset <= text.len());
            prop_assert!(text.is_char_boundary(e.offset));
        }
    }
}
