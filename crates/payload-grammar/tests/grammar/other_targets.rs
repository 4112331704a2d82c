//! The structural-tag and GBNF targets. GBNF is checked with the same engine as Lark:
//! the test translates the GBNF it gets into Lark (the constructs the converter writes
//! map one to one), so each type's whole-response GBNF accepts the type's example and
//! refuses values its schema refuses. Structural tags are checked for their shape:
//! one trigger and one structure per block the page offers, each with its schema, and
//! what the format cannot say listed.

use llguidance::api::TopLevelGrammar;
use llguidance::toktrie::ApproximateTokEnv;
use llguidance::{Matcher, ParserFactory};
use payload_core::LlmPayload;
use payload_grammar::{Target, page_grammar, type_grammar};
use payload_registry::Registry;
use serde_json::Value;

use chat_architecture as _;
use table_that as _;

/// GBNF as llguidance Lark: `::=` becomes `:`, names use `_`, character classes become
/// regexes, and `\U` escapes are written as Rust regex wants them.
pub(crate) fn gbnf_to_lark(gbnf: &str) -> String {
    let mut out = String::new();
    for line in gbnf.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let (name, body) = line.split_once(" ::= ").expect("a rule per line");
        out.push_str(&name.replace('-', "_"));
        out.push_str(": ");
        let mut chars = body.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '"' => {
                    out.push('"');
                    while let Some(c) = chars.next() {
                        out.push(c);
                        if c == '\\' {
                            out.push(chars.next().unwrap());
                        } else if c == '"' {
                            break;
                        }
                    }
                }
                '[' => {
                    let mut class = String::from("[");
                    while let Some(c) = chars.next() {
                        class.push(c);
                        if c == '\\' {
                            class.push(chars.next().unwrap());
                        } else if c == ']' {
                            break;
                        }
                    }
                    let class = class
                        .replace("\\U0010FFFF", "\\x{10FFFF}")
                        .replace('/', "\\/");
                    out.push('/');
                    out.push_str(&class);
                    out.push('/');
                }
                '-' => out.push('_'),
                c => out.push(c),
            }
        }
        out.push('\n');
    }
    out.replacen("root:", "start:", 1)
}

fn accepts(lark: &str, text: &str) -> Result<(), String> {
    let env = ApproximateTokEnv::single_byte_env();
    let mut factory = ParserFactory::new_simple(&env).unwrap();
    factory.set_stderr_log_level(0);
    let mut matcher =
        Matcher::new(factory.create_parser(TopLevelGrammar::from_lark(lark.to_string())));
    if let Some(error) = matcher.get_error() {
        return Err(format!("does not compile: {error}"));
    }
    for token in env.tokenize(text) {
        matcher.consume_token(token).map_err(|e| e.to_string())?;
    }
    match matcher.is_accepting() {
        Ok(true) => Ok(()),
        other => Err(format!("not complete: {other:?}")),
    }
}

#[test]
fn each_types_gbnf_accepts_its_example_and_refuses_what_the_schema_refuses() {
    let mut checked = 0;
    for payload in Registry::global().types() {
        let Some(example) = payload.example() else {
            continue;
        };
        let grammar = type_grammar(payload, Target::Gbnf, "json").unwrap();
        let lark = gbnf_to_lark(&grammar.text);
        for text in [
            serde_json::to_string(&example).unwrap(),
            serde_json::to_string_pretty(&example).unwrap(),
        ] {
            accepts(&lark, &text)
                .unwrap_or_else(|e| panic!("{}: {e}\n{}\n{text}", payload.name, grammar.text));
        }
        checked += 1;
    }
    assert!(checked >= 5);
    let proposal =
        type_grammar(&payload_builtin::SchemaProposal::TYPE, Target::Gbnf, "json").unwrap();
    let lark = gbnf_to_lark(&proposal.text);
    for wrong in [
        r#"{"mode": "upsert", "operations": []}"#,
        r#"{"operations": []}"#,
        r#"{"mode": "create", "operations": [{"action": "add"}]}"#,
        r#"{"mode": "create", "operations": [] "#,
    ] {
        assert!(accepts(&lark, wrong).is_err(), "{wrong} was accepted");
    }
}

#[test]
fn a_pages_gbnf_offers_its_blocks_and_says_what_it_cannot_keep_out() {
    let grammar = page_grammar(Registry::global(), "table_view", Target::Gbnf).unwrap();
    for needed in [
        "\"SCHEMA_PROPOSAL: \"",
        "\"DATA_PROPOSAL: \"",
        "\"SUGGESTED_VALUES: \"",
        "\"SUGGESTED_ACTIONS: \"",
        "\\\"open_filters\\\"",
    ] {
        assert!(
            grammar.text.contains(needed),
            "{needed} missing:\n{}",
            grammar.text
        );
    }
    assert!(!grammar.text.contains("send_email"));
    assert!(
        grammar
            .unsupported
            .iter()
            .any(|u| u.feature == "free text that merely resembles a marker")
    );
    // Every rule used is defined.
    let defined: Vec<&str> = grammar
        .text
        .lines()
        .filter_map(|l| l.split_once(" ::= ").map(|(n, _)| n))
        .collect();
    let lark = gbnf_to_lark(&grammar.text);
    accepts(&lark, "Just text.").unwrap_or_else(|e| panic!("{e}\n{lark}"));
    assert!(defined.contains(&"root") && defined.contains(&"text-0"));
    // Both kinds of fence of the one fence rule (docs/spec.md §9.2) may hold a block.
    for fence in [
        "\"```json\\n\"",
        "\"\\n```\"",
        "\"~~~json\\n\"",
        "\"\\n~~~\"",
    ] {
        assert!(
            grammar.text.contains(fence),
            "{fence} missing:\n{}",
            grammar.text
        );
    }
}

#[test]
fn a_pages_structural_tag_has_a_trigger_and_a_structure_per_block() {
    let grammar = page_grammar(Registry::global(), "table_view", Target::StructuralTag).unwrap();
    let format: Value = serde_json::from_str(&grammar.text).unwrap();
    assert_eq!(format["type"], "structural_tag");
    let format = &format["format"];
    assert_eq!(format["type"], "triggered_tags");
    assert_eq!(format["at_least_one"], false);
    let triggers: Vec<&str> = format["triggers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(
        triggers,
        [
            "SCHEMA_PROPOSAL:",
            "DATA_PROPOSAL:",
            "SUGGESTED_VALUES:",
            "SUGGESTED_ACTIONS:"
        ]
    );
    for tag in format["tags"].as_array().unwrap() {
        let begin = tag["begin"].as_str().unwrap();
        assert!(triggers.iter().any(|t| begin.starts_with(t)));
        assert_eq!(tag["content"]["type"], "json_schema");
        let schema = &tag["content"]["json_schema"];
        assert!(schema.is_object());
        assert!(schema.get("$schema").is_none());
    }
    let actions = &format["tags"][3]["content"]["json_schema"]["items"]["anyOf"];
    let allowed: Vec<&str> = actions
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["properties"]["action"]["const"].as_str().unwrap())
        .collect();
    assert_eq!(allowed, ["open_filters", "export_csv", "close_chat"]);
    let features: Vec<&str> = grammar
        .unsupported
        .iter()
        .map(|u| u.feature.as_str())
        .collect();
    assert!(
        features
            .iter()
            .any(|f| f.starts_with("the page's count of custom payloads")),
        "{features:?}"
    );
    // table_view keeps a proposal alone: a structural tag cannot say so, and lists it.
    assert!(
        features
            .iter()
            .any(|f| f.starts_with("which blocks go together")),
        "{features:?}"
    );
    let list = page_grammar(Registry::global(), "tables_list", Target::StructuralTag).unwrap();
    assert!(
        list.unsupported
            .iter()
            .any(|u| u.effect.contains("DATA_PROPOSAL")),
        "{:#?}",
        list.unsupported
    );
}

#[test]
fn unknown_pages_and_formats_are_errors() {
    assert!(page_grammar(Registry::global(), "nope", Target::Lark).is_err());
    let error =
        type_grammar(&payload_builtin::SchemaProposal::TYPE, Target::Lark, "xml").unwrap_err();
    assert!(error.to_string().contains("json"));
    assert_eq!("gbnf".parse::<Target>(), Ok(Target::Gbnf));
    assert!("yaml".parse::<Target>().is_err());
}
