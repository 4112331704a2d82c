//! Examples of broken JSON the way models write it, one category at a time and mixed.

use super::*;
use serde_json::{Value, json};

/// Reads `text`, panicking with the error when it fails.
fn ok(text: &str) -> Lenient {
    match parse_lenient(text) {
        Ok(lenient) => lenient,
        Err(e) => panic!("{text:?} failed: {e}"),
    }
}

/// Reads `text` and checks the value and the exact repair phrases.
fn repaired(text: &str, value: Value, repairs: &[&str]) {
    let lenient = ok(text);
    assert_eq!(lenient.value, value, "value of {text:?}");
    assert_eq!(lenient.repairs, repairs, "repairs of {text:?}");
}

fn err(text: &str) -> RepairError {
    match parse_lenient(text) {
        Ok(lenient) => panic!("{text:?} was accepted as {}", lenient.value),
        Err(e) => e,
    }
}

fn truncated(text: &str) -> RepairError {
    let e = err(text);
    assert_eq!(e.kind, ErrorKind::Truncated, "{text:?}: {e}");
    e
}

fn parsing(text: &str) -> RepairError {
    let e = err(text);
    assert_eq!(e.kind, ErrorKind::Parsing, "{text:?}: {e}");
    e
}

// ---- one category at a time -------------------------------------------------------

#[test]
fn strict_json_needs_no_repair() {
    repaired(
        r#"{"title": "Q3 report", "tags": ["a", "b"], "n": 1.5, "ok": true, "x": null}"#,
        json!({"title": "Q3 report", "tags": ["a", "b"], "n": 1.5, "ok": true, "x": null}),
        &[],
    );
}

#[test]
fn code_fence_with_and_without_language() {
    let value = json!({"name": "Tasks", "columns": 3});
    let fenced = "```json\n{\n  \"name\": \"Tasks\",\n  \"columns\": 3\n}\n```";
    repaired(fenced, value.clone(), &["removed code fence"]);
    repaired(
        "```\n{\"name\": \"Tasks\", \"columns\": 3}\n```\n",
        value.clone(),
        &["removed code fence"],
    );
    repaired(
        "  ```JSON {\"name\": \"Tasks\", \"columns\": 3}```",
        value,
        &["removed code fence"],
    );
}

#[test]
fn trailing_commas_in_objects_and_arrays() {
    repaired(
        "{\n  \"columns\": [\"id\", \"name\",],\n  \"sorted\": true,\n}",
        json!({"columns": ["id", "name"], "sorted": true}),
        &["removed trailing commas"],
    );
    repaired(
        "[1, 2, 3 , \n]",
        json!([1, 2, 3]),
        &["removed trailing commas"],
    );
}

#[test]
fn line_and_block_comments() {
    repaired(
        "{\n  // the table to create\n  \"name\": \"Tasks\", /* shown in the sidebar */\n  \"icon\": \"check\" // optional\n}",
        json!({"name": "Tasks", "icon": "check"}),
        &["removed comments"],
    );
    repaired(
        "/* leading */ [1, /* two */ 2] // trailing",
        json!([1, 2]),
        &["removed comments"],
    );
}

#[test]
fn comment_markers_inside_strings_stay_text() {
    repaired(
        r#"{"url": "https://example.com/a//b", "glob": "/* all */", "x": 1,}"#,
        json!({"url": "https://example.com/a//b", "glob": "/* all */", "x": 1}),
        &["removed trailing commas"],
    );
}

#[test]
fn single_quoted_strings_and_keys() {
    repaired(
        "{'name': 'Tasks', 'note': 'it\\'s \"done\"'}",
        json!({"name": "Tasks", "note": "it's \"done\""}),
        &["converted single-quoted strings"],
    );
}

#[test]
fn apostrophe_inside_single_quotes_stays_text() {
    repaired(
        "{'summary': 'Don't delete O'Brien's rows', 'n': 2}",
        json!({"summary": "Don't delete O'Brien's rows", "n": 2}),
        &["converted single-quoted strings"],
    );
}

#[test]
fn unquoted_keys_with_dollar_dash_and_underscore() {
    repaired(
        "{name: \"x\", $ref: \"#/a\", max-tokens: 5, _id: 1, café: true}",
        json!({"name": "x", "$ref": "#/a", "max-tokens": 5, "_id": 1, "café": true}),
        &["quoted unquoted keys"],
    );
}

#[test]
fn python_literals_as_values() {
    repaired(
        "{\"required\": True, \"unique\": False, \"default\": None, \"list\": [True, None]}",
        json!({"required": true, "unique": false, "default": null, "list": [true, null]}),
        &["converted Python literals True/False/None"],
    );
}

#[test]
fn python_words_inside_strings_stay_text() {
    repaired(
        r#"{"a": "True", "b": "None of these", "c": "False // not a comment"}"#,
        json!({"a": "True", "b": "None of these", "c": "False // not a comment"}),
        &[],
    );
}

#[test]
fn curly_quotes_as_json_quotes() {
    repaired(
        "{\u{201C}name\u{201D}: \u{201C}Tasks\u{201D}, \u{2018}kind\u{2019}: \u{2018}table\u{2019}}",
        json!({"name": "Tasks", "kind": "table"}),
        &["converted curly quotes"],
    );
}

#[test]
fn curly_apostrophe_inside_a_normal_string_stays_text() {
    let text = "{\"title\": \"Let\u{2019}s go \u{201C}now\u{201D}\"}";
    repaired(
        text,
        json!({"title": "Let\u{2019}s go \u{201C}now\u{201D}"}),
        &[],
    );
    repaired(
        "[\u{2018}It\u{2019}s fine\u{2019}]",
        json!(["It\u{2019}s fine"]),
        &["converted curly quotes"],
    );
}

#[test]
fn raw_newlines_and_tabs_inside_strings() {
    repaired(
        "{\"body\": \"Line one\nLine two\n\tindented\", \"x\": 1}",
        json!({"body": "Line one\nLine two\n\tindented", "x": 1}),
        &["escaped raw newlines/tabs inside strings"],
    );
    repaired(
        "[\"bell\u{7}\r\n\"]",
        json!(["bell\u{7}\r\n"]),
        &["escaped raw newlines/tabs inside strings"],
    );
}

#[test]
fn missing_commas_between_members_and_items() {
    repaired(
        "{\n  \"a\": 1\n  \"b\": \"two\"\n  \"c\": [1 2 3]\n}",
        json!({"a": 1, "b": "two", "c": [1, 2, 3]}),
        &["inserted missing commas"],
    );
    repaired(
        r#"{"a": 1 "b": 2}"#,
        json!({"a": 1, "b": 2}),
        &["inserted missing commas"],
    );
    repaired(
        "[{\"id\": 1}{\"id\": 2}\n{\"id\": 3}]",
        json!([{"id": 1}, {"id": 2}, {"id": 3}]),
        &["inserted missing commas"],
    );
    repaired(
        "[\"a\" \"b\" true null [] {}]",
        json!(["a", "b", true, null, [], {}]),
        &["inserted missing commas"],
    );
}

#[test]
fn invalid_escapes_are_kept_literally() {
    repaired(
        r#"{"path": "C:\data\new", "re": "\d+"}"#,
        json!({"path": "C:\\data\new", "re": "\\d+"}),
        &["fixed invalid escapes"],
    );
    repaired(r#"["it\'s"]"#, json!(["it's"]), &["fixed invalid escapes"]);
}

#[test]
fn unicode_escapes_and_surrogate_pairs() {
    repaired(
        r#"{'s': '\u00e9\ud83d\ude00\n\"\\\/'}"#,
        json!({"s": "é😀\n\"\\/"}),
        &["converted single-quoted strings"],
    );
    repaired(
        r#"["\ud800x", "\udc00"]"#,
        json!(["\u{FFFD}x", "\u{FFFD}"]),
        &["fixed invalid escapes"],
    );
    repaired(
        r#"["\u12G4"]"#,
        json!(["\\u12G4"]),
        &["fixed invalid escapes"],
    );
}

#[test]
fn numbers_keep_serde_json_semantics() {
    let lenient =
        ok("[1.0, 18446744073709551615, -9223372036854775808, 1e3, -0, 2, -123456789012345678,]");
    let strict: Value = serde_json::from_str(
        "[1.0, 18446744073709551615, -9223372036854775808, 1e3, -0, 2, -123456789012345678]",
    )
    .unwrap();
    assert_eq!(lenient.value, strict);
    assert!(lenient.value[0].is_f64());
    assert!(lenient.value[1].is_u64());
    assert!(lenient.value[2].is_i64());
}

#[test]
fn top_level_scalars_are_values_too() {
    repaired(
        "'hello'",
        json!("hello"),
        &["converted single-quoted strings"],
    );
    repaired(
        "None",
        json!(null),
        &["converted Python literals True/False/None"],
    );
    repaired("  42 // answer", json!(42), &["removed comments"]);
}

// ---- combinations, the way models write them --------------------------------------

#[test]
fn llama_style_python_dict() {
    repaired(
        "{'name': 'Tasks', 'columns': [{'name': 'done', 'type': 'boolean', 'required': True}, {'name': 'due', 'type': 'date', 'default': None},]}",
        json!({"name": "Tasks", "columns": [
            {"name": "done", "type": "boolean", "required": true},
            {"name": "due", "type": "date", "default": null}
        ]}),
        &[
            "converted single-quoted strings",
            "converted Python literals True/False/None",
            "removed trailing commas",
        ],
    );
}

#[test]
fn gpt_style_fenced_javascript_object() {
    let text = "```json\n{\n  // Proposed schema\n  name: \"Contacts\",\n  columns: [\n    { name: \"email\", type: \"string\" }, // unique\n    { name: \"phone\", type: \"string\" },\n  ],\n}\n```";
    repaired(
        text,
        json!({"name": "Contacts", "columns": [
            {"name": "email", "type": "string"},
            {"name": "phone", "type": "string"}
        ]}),
        &[
            "removed code fence",
            "removed comments",
            "quoted unquoted keys",
            "removed trailing commas",
        ],
    );
}

#[test]
fn chat_client_smart_quotes_with_multiline_text() {
    let text = "{\u{201C}message\u{201D}: \u{201C}Here\u{2019}s the plan:\n1. import\n2. clean\u{201D}\n\u{201C}step\u{201D}: 1}";
    repaired(
        text,
        json!({"message": "Here\u{2019}s the plan:\n1. import\n2. clean", "step": 1}),
        &[
            "converted curly quotes",
            "escaped raw newlines/tabs inside strings",
            "inserted missing commas",
        ],
    );
}

#[test]
fn strings_full_of_structural_characters() {
    repaired(
        r#"{'code': 'if (a) { b(); } // done', "q": "it's {}[],:", 'x': 'True'}"#,
        json!({"code": "if (a) { b(); } // done", "q": "it's {}[],:", "x": "True"}),
        &["converted single-quoted strings"],
    );
}

#[test]
fn each_category_is_reported_once() {
    let lenient = ok("[True, True, False, None, 'a', 'b',]");
    assert_eq!(
        lenient.repairs,
        [
            "converted Python literals True/False/None",
            "converted single-quoted strings",
            "removed trailing commas",
        ]
    );
}

#[test]
fn duplicate_keys_keep_the_last_value_like_serde_json() {
    let text = "{'a': 1, 'b': 2, 'a': 3}";
    let strict: Value = serde_json::from_str(r#"{"a": 1, "b": 2, "a": 3}"#).unwrap();
    assert_eq!(ok(text).value, strict);
}

// ---- never repaired -----------------------------------------------------------------

#[test]
fn cut_off_values_are_truncated_errors() {
    for text in [
        "",
        "   ",
        "{",
        "[",
        "{\"a\"",
        "{\"a\":",
        "{\"a\": 1",
        "{\"a\": 1,",
        "{\"a\": [1, 2",
        "{\"a\": \"hel",
        "{'a': 'hel",
        "{\u{201C}a\u{201D}: \u{201C}hel",
        "[\"esc\\",
        "[\"\\u00",
        "[1.",
        "[-",
        "[1e",
        "[tr",
        "[Fals",
        "{\"a\": 1 /* comment",
        "```json\n{\"a\": [1,",
        "[{\"a\": 1}, {\"b\": 2}",
    ] {
        truncated(text);
    }
}

#[test]
fn a_bare_number_in_a_key_place_is_a_key() {
    // JavaScript object literals allow it, and nothing is guessed: the key is its text.
    let lenient = ok(r#"{1: "a", 2b: "c"}"#);
    assert_eq!(lenient.value, json!({"1": "a", "2b": "c"}));
    assert_eq!(lenient.repairs, ["quoted unquoted keys"]);
}

#[test]
fn guessed_values_are_parsing_errors() {
    for text in [
        r#"{"a": }"#,
        r#"{"a": 1, "b"}"#,
        r#"{"a" 1}"#,
        "[1,,2]",
        "[,1]",
        "{,}",
        r#"{"a": NaN}"#,
        r#"{"a": Infinity}"#,
        r#"{"a": undefined}"#,
        r#"{"a": yes}"#,
        r#"{"a": +1}"#,
        r#"{"a": 01}"#,
        r#"{"a": .5}"#,
        r#"{"a": 0x1F}"#,
        r#"{"a": 1.}"#,
        r#"{"a": 1e400}"#,
        "[1}",
        r#"{"a": 1]"#,
        r#"{"a": 1} {"b": 2}"#,
        r#"{"a": 1} and more text"#,
        "[1] /",
    ] {
        parsing(text);
    }
}

#[test]
fn error_offsets_point_at_the_problem() {
    assert_eq!(parsing(r#"{"a": }"#).offset, 6);
    assert_eq!(parsing(r#"{"a": 1, "b"}"#).offset, 12);
    assert_eq!(parsing(r#"{"a": NaN}"#).offset, 6);
    assert_eq!(parsing("[1,,2]").offset, 3);
    assert_eq!(parsing("[1}").offset, 2);
    assert_eq!(parsing(r#"{"a": 1} x"#).offset, 9);
    // An unclosed string is reported where it starts; a cut-off container at the end.
    assert_eq!(truncated(r#"{"a": "hel"#).offset, 6);
    assert_eq!(truncated(r#"{"a": [1, 2"#).offset, 11);
    let e = truncated("[1, /* note");
    assert_eq!(e.offset, 4);
}

#[test]
fn nesting_limit_is_the_one_setting() {
    // MAX levels are read and the next is refused, on the strict path and here alike,
    // so the two paths never disagree on depth.
    let deepest = format!("{}{}", "[".repeat(MAX), "]".repeat(MAX));
    assert!(parse_lenient(&deepest).is_ok());
    let sloppy = format!("{}{}", "[1 ".repeat(MAX), ",]".repeat(MAX));
    assert!(parse_lenient(&sloppy).is_ok());

    let over = format!("{}{}", "[".repeat(MAX + 1), "]".repeat(MAX + 1));
    let e = parsing(&over);
    assert_eq!(e.offset, MAX);
    assert!(e.message.contains("deeper than 128"), "{e}");

    let objects = format!("{}1{}", "{a: ".repeat(MAX + 1), "}".repeat(MAX + 1));
    assert!(parsing(&objects).message.contains("deeper"));
}

const MAX: usize = crate::limits::MAX_DEPTH;

// ---- 1 MB pathological inputs (correctness only) --------------------------------------

const MB: usize = 1 << 20;

#[test]
fn a_megabyte_of_open_brackets_is_a_depth_error() {
    let e = parsing(&"[".repeat(MB));
    assert_eq!(e.offset, MAX);
    let e = parsing(&"{'a':".repeat(MB / 5));
    assert!(e.message.contains("deeper"), "{e}");
}

#[test]
fn a_megabyte_string_is_read_whole() {
    let body = "ab'\u{2019}c\"".repeat(MB / 8);
    let text = format!("['{}',]", body.replace('\'', "\\'"));
    let lenient = ok(&text);
    assert_eq!(lenient.value, json!([body]));

    let raw = "line\n".repeat(MB / 5);
    let lenient = ok(&format!("{{\"text\": \"{raw}\"}}"));
    assert_eq!(lenient.value["text"], raw.as_str());

    truncated(&format!("[\"{}", "x".repeat(MB)));
}

#[test]
fn a_hundred_thousand_commas() {
    let items = "1,".repeat(100_000);
    let lenient = ok(&format!("[{items}]"));
    assert_eq!(lenient.value.as_array().map(Vec::len), Some(100_000));
    assert_eq!(lenient.repairs, ["removed trailing commas"]);

    parsing(&format!("[1{}]", ",".repeat(100_000)));
    let missing = "1 ".repeat(100_000);
    assert_eq!(
        ok(&format!("[{missing}]")).value.as_array().map(Vec::len),
        Some(100_000)
    );
}

#[test]
fn many_comments() {
    let text = format!("[{}1]", "/* c */ // line\n".repeat(MB / 16));
    repaired(&text, json!([1]), &["removed comments"]);
    truncated(&format!("[{}", "/* c */".repeat(MB / 7)));
    truncated(&format!("[1, {}", "/* ".repeat(MB / 3)));
}

#[test]
fn many_members_and_long_keys() {
    let members: String = (0..50_000).map(|i| format!("k{i}: {i}\n")).collect();
    let lenient = ok(&format!("{{{members}}}"));
    assert_eq!(lenient.value.as_object().map(|m| m.len()), Some(50_000));
    assert_eq!(
        lenient.repairs,
        ["quoted unquoted keys", "inserted missing commas"]
    );
    let key = "k".repeat(MB);
    assert_eq!(ok(&format!("{{{key}: 1}}")).value[key.as_str()], 1);
}

#[test]
fn a_megabyte_unquoted_word_gives_a_short_message() {
    let e = parsing(&format!("{{\"a\": {}}}", "x".repeat(MB)));
    assert_eq!(e.offset, 6);
    assert!(e.message.len() < 100, "{} bytes", e.message.len());
}

#[test]
fn unescaped_quotes_inside_strings_are_text() {
    let text = "{\n  \"paraphrased_questions\": [\n    \"Can you name the composer of the track \"Gemini Dream\"?\",\n    \"Which artist wrote \"Gemini Dream\"?\"\n  ]\n}";
    let lenient = parse_lenient(text).unwrap();
    assert_eq!(
        lenient.value["paraphrased_questions"][0],
        "Can you name the composer of the track \"Gemini Dream\"?"
    );
    assert_eq!(
        lenient.value["paraphrased_questions"][1],
        "Which artist wrote \"Gemini Dream\"?"
    );
    assert_eq!(lenient.repairs, ["escaped double quotes inside strings"]);
}

#[test]
fn a_quote_before_a_delimiter_or_the_next_string_still_closes() {
    // Missing commas between strings keep working.
    let lenient = parse_lenient("[\"a\" \"b\"\n\"c\"]").unwrap();
    assert_eq!(lenient.value, serde_json::json!(["a", "b", "c"]));
    // A cut-off string is still cut off.
    assert!(parse_lenient("{\"a\": \"he said \"hi").is_err());
}

#[test]
fn a_quoted_title_in_the_middle_of_a_sentence() {
    let lenient =
        parse_lenient("[\"The song \"Gemini Dream\" was written by which musician?\"]").unwrap();
    assert_eq!(
        lenient.value[0],
        "The song \"Gemini Dream\" was written by which musician?"
    );
}

#[test]
fn an_unquoted_key_on_the_next_line_after_a_missing_comma_closes_the_string() {
    // Found by the sloppy-writer property: `"" A\n: null` is a string, a missing comma
    // and an unquoted key whose colon is on the next line.
    let lenient = parse_lenient("{\"a\": \"\" A\n: null}").unwrap();
    assert_eq!(lenient.value, serde_json::json!({"a": "", "A": null}));
}

// ---- copied notation (docs/spec.md §3.4) ----------------------------------------------------

fn choices(text: &str) -> RepairError {
    let e = err(text);
    assert_eq!(e.kind, ErrorKind::Validation, "{text:?}: {e}");
    assert_eq!(e.hint, Hint::OneOfTheValues, "{text:?}");
    e
}

#[test]
fn quoted_alternatives_are_never_one_string() {
    let e = choices(r#"{"tab": "Jobs" | "Applications"}"#);
    assert_eq!(e.path, "/tab");
    assert_eq!(e.choices, ["Jobs", "Applications"]);
    assert_eq!(e.offset, 8, "at the first choice's opening quote");
    let e = choices(r#"{"op": {"action": "create"|"update" | "delete"}, "n": 1}"#);
    assert_eq!(e.path, "/op/action");
    assert_eq!(e.choices, ["create", "update", "delete"]);
    let e = choices("[\"a\", 'b' | 'c']");
    assert_eq!((e.path.as_str(), e.choices.len()), ("/1", 2));
    let e = choices("{\"mode\": \u{201C}x\u{201D} |\n \u{201C}y\u{201D}}");
    assert_eq!(e.path, "/mode");
    assert_eq!(choices(r#""formal" | "casual""#).path, "");
}

#[test]
fn a_bar_inside_a_string_or_before_a_word_is_text() {
    repaired(
        r#"{"cmd": "ls | grep x"}"#,
        json!({"cmd": "ls | grep x"}),
        &[],
    );
    // A quote followed by ` | ` and a word, not a quoted string, is still inside.
    repaired(
        r#"{"cmd": "echo "x" | grep y"}"#,
        json!({"cmd": "echo \"x\" | grep y"}),
        &["escaped double quotes inside strings"],
    );
    // Escaped quotes are what the model wrote: a string that shows the notation.
    repaired(
        r#"{"hint": "write \"a\" | \"b\"", }"#,
        json!({"hint": "write \"a\" | \"b\""}),
        &["removed trailing commas"],
    );
}

#[test]
fn a_list_of_choices_cut_off_is_truncated() {
    truncated(r#"{"tab": "Jobs" | "Appli"#);
    truncated(r#"{"tab": "Jobs" | "#);
}

#[test]
fn a_string_showing_the_notation_with_bare_quotes_is_refused_not_guessed() {
    // A person cannot tell this from copied choices: refused, never joined.
    let e = choices(r#"{"note": "use "A" | "B" here"}"#);
    assert_eq!(e.path, "/note");
}

#[test]
fn tilde_and_long_backtick_fences_follow_the_one_fence_rule() {
    for fenced in [
        "~~~json\n{\"a\": 1}\n~~~",
        "````json\n{\"a\": 1}\n`````",
        "~~~~\n{\"a\": 1}\n~~~~\n",
    ] {
        let lenient = parse_lenient(fenced).unwrap();
        assert_eq!(lenient.value, serde_json::json!({"a": 1}), "{fenced:?}");
        assert_eq!(lenient.repairs, ["removed code fence"], "{fenced:?}");
    }
    // Closed by fewer characters, or by the other one, the fence is not closed.
    assert!(parse_lenient("````json\n{\"a\": 1}\n```").is_err());
    assert!(parse_lenient("~~~\n{\"a\": 1}\n```").is_err());
}

#[test]
fn a_fences_info_string_is_not_its_content() {
    // What follows the run on the opener's line is its info string (docs/spec.md §9.2):
    // `1` there is no value, and the fence holds nothing: the text ends (or the fence
    // closes) where a value was expected.
    for text in ["``` 1", "```1", "~~~ true\n~~~", "```json 1\n```"] {
        err(text);
    }
    // The content is on the next line, whatever the info string holds.
    repaired("```json 1\n2\n```", json!(2), &["removed code fence"]);
    repaired("``` my note\n[3]\n```", json!([3]), &["removed code fence"]);
    repaired("```json\n1\n```", json!(1), &["removed code fence"]);
    // A bracket after the first word opens the value on the opener's line.
    repaired(
        "```json {\"a\": 1}```",
        json!({"a": 1}),
        &["removed code fence"],
    );
}

#[test]
fn invisible_characters_between_tokens_are_removed_and_reported() {
    for c in ['\u{200B}', '\u{200C}', '\u{200D}', '\u{2060}', '\u{FEFF}'] {
        let text = format!("{c}{{\"a\":{c} [1,{c}2]{c}}}{c}");
        let lenient = parse_lenient(&text).unwrap();
        assert_eq!(lenient.value, serde_json::json!({"a": [1, 2]}), "{c:?}");
        assert_eq!(
            lenient.repairs,
            ["removed invisible characters between tokens"],
            "{c:?}"
        );
        // Inside a string it is text, kept as written.
        let text = format!("{{\"a\": \"x{c}y\"}}");
        assert_eq!(parse_lenient(&text).unwrap().value["a"], format!("x{c}y"));
    }
}
