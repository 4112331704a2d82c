use super::*;
use payload_core::LlmPayload;
use payload_core::schema::StrictRefusalKind;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A new user's sign-up: lengths, bounds, a pattern and a format, as people write them.
#[derive(Debug, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(name = "signup", marker = "SIGNUP")]
struct Signup {
    /// The name.
    #[schemars(length(min = 1, max = 80))]
    name: String,
    /// The age.
    #[schemars(range(min = 13, max = 150))]
    age: u8,
    /// A postcode.
    #[schemars(regex(pattern = r"^[0-9]{5}$"))]
    postcode: String,
    /// Tags.
    #[schemars(length(min = 1, max = 3))]
    tags: Vec<String>,
}

/// A command, tagged at the top.
#[derive(Debug, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[payload(name = "command", marker = "COMMAND")]
enum Command {
    /// Add an item.
    Add {
        /// The item.
        item: String,
    },
    /// Remove one.
    Remove {
        /// Its id.
        id: u32,
    },
}

/// A free-form map: nothing strict can say it.
#[derive(Debug, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(name = "labels", marker = "LABELS")]
struct Labels {
    /// Any labels.
    labels: std::collections::BTreeMap<String, String>,
}

fn keywords(native: &NativeSchema) -> Vec<(String, String)> {
    native
        .unenforced
        .iter()
        .map(|u| (u.path.clone(), u.keyword.clone()))
        .collect()
}

/// Whether `keyword` appears anywhere in `schema`.
fn mentions(schema: &Value, keyword: &str) -> bool {
    match schema {
        Value::Object(map) => map
            .iter()
            .any(|(k, v)| k == keyword || mentions(v, keyword)),
        Value::Array(items) => items.iter().any(|v| mentions(v, keyword)),
        _ => false,
    }
}

#[test]
fn a_realistic_type_is_native_in_every_dialect_with_what_is_not_enforced_listed() {
    // Refused before: minLength has no strict form.
    assert!(Signup::TYPE.strict_schema().is_err());
    let openai = native_schema(&Signup::TYPE, Dialect::OpenAiStrict).unwrap();
    let listed = keywords(&openai);
    assert!(
        listed.contains(&("/properties/name".into(), "minLength".into())),
        "{listed:?}"
    );
    assert!(listed.contains(&("/properties/name".into(), "maxLength".into())));
    assert!(!mentions(&openai.schema, "minLength"));
    assert!(
        mentions(&openai.schema, "pattern"),
        "OpenAI enforces patterns"
    );
    assert!(mentions(&openai.schema, "maximum"), "and bounds");
    assert_eq!(openai.wrapped, None);

    let anthropic = native_schema(&Signup::TYPE, Dialect::AnthropicStrict).unwrap();
    let listed = keywords(&anthropic);
    assert!(
        listed.contains(&("/properties/age".into(), "minimum".into())),
        "{listed:?}"
    );
    assert!(listed.contains(&("/properties/tags".into(), "maxItems".into())));
    assert!(
        !listed.contains(&("/properties/tags".into(), "minItems".into())),
        "minItems 1 is enforced"
    );
    assert!(!mentions(&anthropic.schema, "maximum"));
    assert!(mentions(&anthropic.schema, "pattern"));

    let gemini = native_schema(&Signup::TYPE, Dialect::Gemini).unwrap();
    let listed = keywords(&gemini);
    assert!(
        listed.contains(&("/properties/postcode".into(), "pattern".into())),
        "{listed:?}"
    );
    assert!(
        mentions(&gemini.schema, "maximum"),
        "Gemini enforces bounds"
    );
}

#[test]
fn a_tagged_enum_at_the_top_is_wrapped_in_an_object_member() {
    assert!(Command::TYPE.strict_schema().is_err());
    for dialect in [
        Dialect::OpenAiStrict,
        Dialect::AnthropicStrict,
        Dialect::Gemini,
    ] {
        let native = native_schema(&Command::TYPE, dialect).unwrap();
        assert_eq!(native.wrapped, Some(WRAPPED_MEMBER));
        assert_eq!(native.schema["type"], "object");
        assert_eq!(native.schema["required"], json!(["value"]));
        assert!(
            native.schema["properties"]["value"]["anyOf"].is_array(),
            "{}",
            native.schema
        );
    }
}

#[test]
fn what_cannot_be_sent_at_all_is_still_refused() {
    let refused = native_schema(&Labels::TYPE, Dialect::OpenAiStrict).unwrap_err();
    assert_eq!(refused.kind, StrictRefusalKind::FreeFormMap);
}

#[test]
fn every_listed_keyword_is_gone_from_what_is_sent_and_was_in_the_types_schema() {
    for payload in [Signup::TYPE, Command::TYPE] {
        let original = payload.schema(payload_core::schema::Dialect::Draft2020_12);
        for dialect in [
            Dialect::OpenAiStrict,
            Dialect::AnthropicStrict,
            Dialect::Gemini,
        ] {
            let native = native_schema(&payload, dialect).unwrap();
            for unenforced in &native.unenforced {
                let node = original
                    .pointer(&unenforced.path)
                    .expect("the path is in the type's schema");
                assert_eq!(node.get(&unenforced.keyword), Some(&unenforced.value));
                assert!(
                    payload_schema::keywords::is_narrowing(&unenforced.keyword),
                    "only narrowing keywords are left out"
                );
            }
        }
    }
}
