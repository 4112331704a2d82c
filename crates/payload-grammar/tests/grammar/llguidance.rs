//! The Lark grammars checked with a real grammar engine, llguidance, byte by byte (a
//! one-byte-per-token tokenizer, so any text can be fed): every registered example after
//! its marker on each page offering it and every recorded table.that answer the parser
//! reads cleanly are accepted; an invalid enum value, a missing required member, an
//! unregistered action, a second custom payload and a foreign marker are rejected; and
//! any text the grammar accepts parses with nothing rejected.

use llguidance::api::TopLevelGrammar;
use llguidance::toktrie::ApproximateTokEnv;
use llguidance::{Matcher, ParserFactory};
use payload_core::{LlmPayload, schema::Dialect};
use payload_grammar::{Target, page_grammar, type_grammar};
use payload_registry::Registry;
use proptest::prelude::*;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

// Linked for their registrations: the built-in types, table.that's and the reports pages.
use chat_architecture as _;
use table_that as _;

/// The engine, built once.
fn factory() -> &'static Arc<ParserFactory> {
    static FACTORY: OnceLock<Arc<ParserFactory>> = OnceLock::new();
    FACTORY.get_or_init(|| {
        let env = ApproximateTokEnv::single_byte_env();
        let mut factory = ParserFactory::new_simple(&env).expect("factory");
        factory.set_stderr_log_level(0);
        Arc::new(factory)
    })
}

/// Whether llguidance accepts `text` whole under the Lark `grammar`.
pub(crate) fn accepts(grammar: &str, text: &str) -> Result<(), String> {
    let factory = factory();
    let parser = factory.create_parser(TopLevelGrammar::from_lark(grammar.to_string()));
    let mut matcher = Matcher::new(parser);
    if let Some(error) = matcher.get_error() {
        return Err(format!("the grammar does not compile: {error}"));
    }
    let tokens = factory.tok_env().tokenize(text);
    for (index, token) in tokens.iter().enumerate() {
        if let Err(error) = matcher.consume_token(*token) {
            let at = text.get(..index.min(text.len())).unwrap_or_default();
            return Err(format!(
                "refused after {:?}: {error}",
                &at[at.len().saturating_sub(60)..]
            ));
        }
    }
    match matcher.is_accepting() {
        Ok(true) => Ok(()),
        Ok(false) => Err("the text ends before the grammar is satisfied".into()),
        Err(error) => Err(error.to_string()),
    }
}

/// Each page's Lark grammar, made once.
fn lark(page: &str) -> String {
    static CACHE: OnceLock<Mutex<HashMap<String, String>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    cache
        .lock()
        .unwrap()
        .entry(page.to_string())
        .or_insert_with(|| {
            page_grammar(Registry::global(), page, Target::Lark)
                .unwrap()
                .text
        })
        .clone()
}

#[test]
fn every_registered_example_is_accepted_after_its_marker_on_every_page_offering_it() {
    let registry = Registry::global();
    let mut checked = 0;
    for info in registry.pages() {
        let grammar = lark(info.page.name);
        for payload in &info.payloads {
            let Some(example) = payload.example() else {
                continue;
            };
            for json in [
                serde_json::to_string(&example).unwrap(),
                serde_json::to_string_pretty(&example).unwrap(),
            ] {
                let text = format!(
                    "Here is my proposal.\n\n{}: {json}\n\nShall I go on?",
                    payload.marker
                );
                accepts(&grammar, &text).unwrap_or_else(|e| {
                    panic!("{} on {}: {e}\n{text}", payload.name, info.page.name)
                });
                // Every fence the one fence rule reads (docs/spec.md §9.2), closed by at least as
                // many of the same character.
                for (open, close) in [
                    ("```json", "```"),
                    ("~~~json", "~~~"),
                    ("````json", "`````"),
                    ("~~~~~", "~~~~~"),
                ] {
                    let fenced = format!("Here:\n\n{}:\n{open}\n{json}\n{close}\n", payload.marker);
                    accepts(&grammar, &fenced).unwrap_or_else(|e| {
                        panic!("{} fenced {open} on {}: {e}", payload.name, info.page.name)
                    });
                }
                let short = format!("Here:\n\n{}:\n````json\n{json}\n```\n", payload.marker);
                assert!(
                    accepts(&grammar, &short).is_err(),
                    "a fence closed by fewer characters is not closed"
                );
                checked += 1;
            }
        }
        if info.page.suggestions {
            let chips = "Which one?\n\nSUGGESTED_VALUES: [{\"label\": \"Yes\", \"value\": \"Yes, please\"}]";
            accepts(&grammar, chips).unwrap_or_else(|e| panic!("chips on {}: {e}", info.page.name));
            if let Some(action) = info.actions.first() {
                let buttons = format!(
                    "Done.\n\nSUGGESTED_ACTIONS: [{{\"label\": \"Go\", \"action\": \"{}\", \"handler\": \"{}\"}}]",
                    action.action, action.handler
                );
                accepts(&grammar, &buttons)
                    .unwrap_or_else(|e| panic!("buttons on {}: {e}", info.page.name));
            }
        }
        accepts(
            &grammar,
            "Just prose, mentioning SCHEMA_PROPOSAL without a colon.",
        )
        .unwrap();
    }
    assert!(checked >= 4, "only {checked} examples were checked");
}

#[test]
fn every_recorded_answer_the_parser_reads_cleanly_is_accepted() {
    let mut accepted = 0;
    for turn in table_that::CONVERSATION {
        let parsed = payload_registry::parse_response(turn.page, turn.text).unwrap();
        // The grammar makes the model write strict JSON in the canonical spelling: an
        // answer the parser had to repair or reject is one a constrained model never
        // writes, and is refused (checked below for the ones that hold a rejection).
        let clean = parsed.rejected.is_empty() && parsed.warnings.is_empty() && !turn.cut;
        let result = accepts(&lark(turn.page), turn.text);
        if clean {
            result.unwrap_or_else(|e| panic!("{}: {e}\n{}", turn.page, turn.text));
            accepted += 1;
        } else if !parsed.rejected.is_empty() {
            assert!(
                result.is_err(),
                "an answer with a rejected block was accepted:\n{}",
                turn.text
            );
        }
    }
    assert!(accepted >= 3, "only {accepted} recorded answers are clean");
}

fn proposal(body: &str) -> String {
    format!("Here it is.\n\nSCHEMA_PROPOSAL: {body}\n")
}

const GOOD: &str = r#"{"mode": "create", "table_name": "Books", "table_description": "Books I read", "operations": [{"action": "add", "column": {"name": "Title", "type": "text"}}], "sample_rows": [{"Title": "Dune"}, {"Title": "Emma"}]}"#;

/// How a held-out answer the parser refuses fares under the page's grammar.
enum HeldOut {
    /// The grammar refuses it: the rule is in the schema.
    Refused,
    /// The grammar lets it through, and lists the rule it cannot state.
    Listed(&'static str),
}

#[test]
fn the_grammar_accepts_nothing_the_parser_refuses_but_what_it_lists() {
    let update = |ops: &str| format!(r#"{{"mode": "update", "operations": [{ops}]}}"#);
    let deep = format!(
        r#"{{"operations": [{{"action": "add", "data": {{"Title": {}1{}}}}}]}}"#,
        "[".repeat(129),
        "]".repeat(129)
    );
    let cases: Vec<(&str, String, HeldOut)> = vec![
        (
            "a create with a remove operation",
            GOOD.replace(
                r#"{"action": "add", "column": {"name": "Title", "type": "text"}}"#,
                r#"{"action": "remove", "column_id": "col_1"}"#,
            ),
            HeldOut::Refused,
        ),
        (
            "a create without sample rows",
            GOOD.replace(r#", "sample_rows": [{"Title": "Dune"}, {"Title": "Emma"}]"#, ""),
            HeldOut::Refused,
        ),
        (
            "a create without a table name",
            GOOD.replace(r#""table_name": "Books", "#, ""),
            HeldOut::Refused,
        ),
        (
            "a blank table name",
            GOOD.replace(r#""Books""#, r#""  ""#),
            HeldOut::Refused,
        ),
        (
            "a select column without options",
            GOOD.replace(r#""type": "text""#, r#""type": "select""#),
            HeldOut::Refused,
        ),
        (
            "filterDisplay on a text column",
            GOOD.replace(r#""type": "text""#, r#""type": "text", "filterDisplay": "tab""#),
            HeldOut::Refused,
        ),
        (
            "a 2^64 row id",
            r#"{"operations": [{"action": "delete", "row_id": 18446744073709551616}]}"#.into(),
            HeldOut::Refused,
        ),
        (
            "the same row twice",
            r#"{"operations": [{"action": "delete", "row_id": 3}, {"action": "delete", "row_id": 3}]}"#
                .into(),
            HeldOut::Listed("a row is updated or deleted at most once"),
        ),
        (
            "a modify that changes nothing",
            update(r#"{"action": "modify", "column_id": "col_1", "changes": {}}"#),
            HeldOut::Listed("a modify operation changes at least one field"),
        ),
        (
            "129 levels of nesting",
            deep,
            HeldOut::Listed("nested deeper than 128 levels"),
        ),
    ];
    let grammar = lark("table_view");
    let listed = page_grammar(Registry::global(), "table_view", Target::Lark)
        .unwrap()
        .unsupported;
    for (what, value, outcome) in cases {
        let marker = if value.contains("\"mode\"") {
            "SCHEMA_PROPOSAL"
        } else {
            "DATA_PROPOSAL"
        };
        let text = format!("Here it is.\n\n{marker}: {value}\n");
        let parsed = payload_registry::parse_response("table_view", &text).unwrap();
        assert!(
            parsed.custom_payload.is_none() && !parsed.rejected.is_empty(),
            "{what}: the parser should refuse it: {parsed:?}"
        );
        match outcome {
            HeldOut::Refused => assert!(
                accepts(&grammar, &text).is_err(),
                "{what} was accepted by the grammar"
            ),
            HeldOut::Listed(feature) => assert!(
                listed.iter().any(|u| u.feature.contains(feature)),
                "{what}: '{feature}' is not listed: {listed:#?}"
            ),
        }
    }
}

#[test]
fn the_four_ways_a_block_goes_wrong_are_refused() {
    let grammar = lark("table_view");
    accepts(&grammar, &proposal(GOOD)).unwrap();
    let cases = [
        ("an invalid enum value", proposal(&GOOD.replace("\"create\"", "\"replace\""))),
        ("a missing required member", proposal(r#"{"mode": "create", "table_name": "Books", "table_description": "d"}"#)),
        (
            "an unregistered action",
            "Done.\n\nSUGGESTED_ACTIONS: [{\"label\": \"Mail\", \"action\": \"send_email\", \"handler\": \"client\"}]".to_string(),
        ),
        ("a second custom payload", format!("{}\nAnd also:\n\nDATA_PROPOSAL: {{\"operations\": [{{\"action\": \"delete\", \"row_id\": 3}}]}}", proposal(GOOD))),
        ("a second block of one suggestion kind", "A\n\nSUGGESTED_VALUES: [{\"label\": \"a\", \"value\": \"b\"}]\nB\n\nSUGGESTED_VALUES: [{\"label\": \"c\", \"value\": \"d\"}]".to_string()),
        ("a marker followed by prose", "I'll send a SCHEMA_PROPOSAL: once you confirm.".to_string()),
        ("JSON that needs repair", proposal(&GOOD.replace("}]}", "},]}"))),
    ];
    for (what, text) in cases {
        assert!(
            accepts(&grammar, &text).is_err(),
            "{what} was accepted:\n{text}"
        );
    }
    // A type the page does not offer is not written on it either.
    let list = lark("tables_list");
    let foreign =
        "Done.\n\nDATA_PROPOSAL: {\"operations\": [{\"action\": \"delete\", \"row_id\": 3}]}";
    assert!(accepts(&list, foreign).is_err());
    assert!(accepts(&lark("table_view"), foreign).is_ok());
}

#[test]
fn whole_response_grammars_accept_each_types_example() {
    for payload in Registry::global().types() {
        let Some(example) = payload.example() else {
            continue;
        };
        let grammar = type_grammar(payload, Target::Lark, "json").unwrap();
        accepts(&grammar.text, &serde_json::to_string(&example).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}\n{}", payload.name, grammar.text));
    }
    let schema_proposal = payload_builtin::SchemaProposal::TYPE;
    let grammar = type_grammar(&schema_proposal, Target::Lark, "json").unwrap();
    assert!(accepts(&grammar.text, r#"{"mode": "upsert", "operations": []}"#).is_err());
    assert!(schema_proposal.schema(Dialect::Draft2020_12).is_object());
}

/// Texts near an accepted answer: bytes replaced, removed or repeated.
fn mutated() -> impl Strategy<Value = String> {
    let base = proposal(&GOOD.replace(
        "}]}",
        "}], \"sample_rows\": [{\"Title\": \"Dune\"}, {\"Title\": \"Emma\"}]}",
    )) + "SUGGESTED_VALUES: [{\"label\": \"a\", \"value\": \"b\"}]\n";
    let len = base.len();
    prop::collection::vec(
        (
            0..len,
            prop::sample::select(
                &[
                    "",
                    "\"",
                    "}",
                    ",",
                    "x",
                    "1",
                    ":",
                    "SCHEMA_PROPOSAL: ",
                    "**",
                    "\n",
                    "]",
                ][..],
            ),
        ),
        1..4,
    )
    .prop_map(move |edits| {
        let mut text = base.clone().into_bytes();
        for (at, insert) in edits {
            let at = at.min(text.len());
            if insert.is_empty() && at < text.len() {
                text.remove(at);
            } else {
                text.splice(at..at, insert.bytes());
            }
        }
        String::from_utf8_lossy(&text).into_owned()
    })
}

/// Whether a rejected block's value satisfies its type's schema (so only the type's
/// own rules, which the grammar lists as unsupported, refused it).
fn schema_valid(rejected: &payload_core::response::Rejected) -> bool {
    let Some(payload) = Registry::global().payload_type(&rejected.kind) else {
        return false;
    };
    let Some(start) = rejected.raw.find(['{', '[']) else {
        return false;
    };
    let body = rejected.raw[start..]
        .trim_end()
        .trim_end_matches('`')
        .trim_end();
    let Ok(value) = serde_json::from_str::<serde_json::Value>(body) else {
        return false;
    };
    !payload.rules.is_empty()
        && jsonschema::is_valid(&payload.schema(Dialect::Draft2020_12), &value)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The grammar is never wider than the schema: whatever it accepts parses with
    /// nothing rejected but for the type's own rules (beyond the schema, and listed in
    /// the grammar's unsupported features), on a value the schema accepts.
    #[test]
    fn whatever_the_grammar_accepts_parses_with_nothing_rejected_by_the_schema(text in mutated()) {
        if accepts(&lark("table_view"), &text).is_ok() {
            let parsed = payload_registry::parse_response("table_view", &text).unwrap();
            for rejected in &parsed.rejected {
                prop_assert!(schema_valid(rejected), "accepted by the grammar, refused by the schema: {:?}\n{}", rejected, text);
            }
        }
    }
}

#[test]
fn the_types_own_rules_are_listed_as_unsupported() {
    let grammar = page_grammar(Registry::global(), "table_view", Target::Lark).unwrap();
    assert!(
        grammar
            .unsupported
            .iter()
            .any(|u| u.location.starts_with("schema_proposal")
                && u.feature.starts_with("the type's own rule")),
        "{:#?}",
        grammar.unsupported
    );
}

#[test]
fn keywords_the_engine_cannot_enforce_are_listed_and_left_out_so_the_grammar_compiles() {
    use payload_core::{PayloadType, runtime::RuntimeOptions};
    use payload_registry::{Page, PayloadEntry};
    let schema = serde_json::json!({
        "title": "Palette",
        "type": "object",
        "properties": {
            "colours": {"type": "array", "items": {"type": "string", "format": "hex-color"}, "uniqueItems": true},
            "size": {"type": "integer", "format": "uint8", "minimum": 1, "maximum": 9}
        },
        "required": ["colours", "size"]
    });
    let palette = *PayloadType::from_schema(&schema, RuntimeOptions::default()).unwrap();
    let offered: &'static [PayloadType] = Box::leak(Box::new([palette]));
    let registry = Registry::from_parts(
        vec![PayloadEntry::new(palette, &[])],
        vec![Page::new("paint").payloads(offered)],
        vec![],
    );
    let grammar = page_grammar(&registry, "paint", Target::Lark).unwrap();
    let features: Vec<&str> = grammar
        .unsupported
        .iter()
        .map(|u| u.feature.as_str())
        .collect();
    assert!(
        features.contains(&"format \"hex-color\"") && features.contains(&"uniqueItems"),
        "{features:?}"
    );
    assert!(
        !features.iter().any(|f| f.contains("uint8")),
        "a number's format is its bounds: {features:?}"
    );
    assert!(!grammar.text.contains("hex-color") && !grammar.text.contains("uniqueItems"));
    accepts(
        &grammar.text,
        "Try these.\n\nPALETTE: {\"colours\": [\"#fff\"], \"size\": 3}",
    )
    .unwrap();
    assert!(
        accepts(
            &grammar.text,
            "PALETTE: {\"colours\": [\"#fff\"], \"size\": 12}"
        )
        .is_err(),
        "bounds kept"
    );
}

/// A type written in tags (docs/spec.md §1.21): the Lark and GBNF grammars write it in
/// its tags (bare or fenced between them), its marker is no block, and free text
/// holds no opening tag in Lark; what the grammars accept the parser reads as the type.
#[test]
fn a_tagged_type_is_written_in_its_tags_in_lark_and_gbnf() {
    use payload_core::{PayloadType, runtime::RuntimeOptions};
    use payload_registry::{Page, PayloadEntry};
    let schema = serde_json::json!({
        "title": "Surface",
        "type": "object",
        "properties": {"surface_id": {"type": "string"}},
        "required": ["surface_id"]
    });
    let options = RuntimeOptions {
        tag: Some("a2ui-json".to_string()),
        ..RuntimeOptions::default()
    };
    let surface = *PayloadType::from_schema(&schema, options).unwrap();
    let offered: &'static [PayloadType] = Box::leak(Box::new([surface]));
    let registry = Registry::from_parts(
        vec![PayloadEntry::new(surface, &[])],
        vec![Page::new("ui").payloads(offered)],
        vec![],
    );
    let lark = page_grammar(&registry, "ui", Target::Lark).unwrap().text;
    let gbnf = page_grammar(&registry, "ui", Target::Gbnf).unwrap();
    let gbnf_lark = crate::other_targets::gbnf_to_lark(&gbnf.text);
    let good = [
        "Here.\n<a2ui-json>\n{\"surface_id\": \"main\"}\n</a2ui-json>\nDone.",
        "<a2ui-json>{\"surface_id\": \"main\"}</a2ui-json>",
    ];
    for text in good {
        accepts(&lark, text).unwrap_or_else(|e| panic!("{e}\n{text:?}\n{lark}"));
        accepts(&gbnf_lark, text).unwrap_or_else(|e| panic!("{e}\n{text:?}\n{}", gbnf.text));
        let parsed = registry.parse_response("ui", text).unwrap();
        assert!(parsed.custom_payload.is_some(), "{text:?}");
    }
    let fenced = "Here.\n<a2ui-json>\n```json\n{\"surface_id\": \"main\"}\n```\n</a2ui-json>";
    accepts(&lark, fenced).unwrap_or_else(|e| panic!("{e}\n{lark}"));
    assert!(
        registry
            .parse_response("ui", fenced)
            .unwrap()
            .custom_payload
            .is_some()
    );
    // The marker is not how the type is written: text, for the grammar and the parser.
    let marked = "SURFACE: {\"surface_id\": \"main\"}";
    accepts(&lark, marked).unwrap();
    let parsed = registry.parse_response("ui", marked).unwrap();
    assert!(parsed.custom_payload.is_none() && parsed.message == marked);
    for bad in [
        // Not closed, or not the schema.
        "<a2ui-json>{\"surface_id\": \"main\"}",
        "<a2ui-json>{\"id\": 1}</a2ui-json>",
    ] {
        assert!(accepts(&lark, bad).is_err(), "Lark accepts {bad:?}");
        assert!(accepts(&gbnf_lark, bad).is_err(), "GBNF accepts {bad:?}");
    }
    assert!(gbnf.text.contains("\"<a2ui-json>\""), "{}", gbnf.text);
    // A lazy GBNF starts at the opening tag.
    let lazy = payload_grammar::page_grammar_with(
        &registry,
        "ui",
        Target::Gbnf,
        &payload_grammar::PageOptions {
            lazy: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(
        lazy.triggers.iter().any(|t| t == "<a2ui-json>"),
        "{:?}",
        lazy.triggers
    );
}
