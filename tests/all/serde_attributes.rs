//! Every serde attribute means in validation what it means in serde (issue 33, item 1):
//! one row per attribute, each with an input a model might write, what serde reads from
//! it, and what the parser reads in marker mode and in whole-response mode. The
//! invariant every row checks: the parser accepts exactly when serde does, its data
//! decodes to what serde reads, and it warns only about members serde ignores. The one
//! allowed difference is whole-response mode's coercion (docs/spec.md §7.4): where serde
//! refuses, it may accept a value it rewrote, saying so in a `coerced` warning.

use payload_core::{LlmPayload, ParseOptions, WarningKind, extract_json, parse};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// What one row expects of serde, and so of the parser.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Reads {
    /// serde reads the input, every member of it.
    All,
    /// serde reads the input and ignores some member: the parser accepts it too, with
    /// one `unknown_member` warning per member ignored.
    Ignoring(usize),
    /// serde refuses the input: so does the parser.
    Nothing,
}

/// One row: checks serde against the table, then both modes against serde.
fn row<T>(attribute: &str, input: Value, reads: Reads)
where
    T: LlmPayload + DeserializeOwned + Serialize,
{
    let serde_read = serde_json::from_value::<T>(input.clone())
        .map(|value| serde_json::to_value(value).expect("serializes"));
    assert_eq!(
        serde_read.is_ok(),
        reads != Reads::Nothing,
        "{attribute}: serde on {input}: {serde_read:?}"
    );
    let warnings = match reads {
        Reads::Ignoring(n) => n,
        _ => 0,
    };

    let text = format!("{}: {input}", T::MARKER);
    let parsed = parse(&text, &ParseOptions::new().payload(T::TYPE));
    let marker = parsed
        .payload::<T>()
        .map(|value| serde_json::to_value(value).unwrap());
    assert_eq!(
        marker.as_ref().ok_or(()),
        serde_read.as_ref().map_err(|_| ()),
        "{attribute}: marker mode on {input}: {:#?}",
        parsed.rejected
    );
    if marker.is_some() {
        assert_eq!(
            parsed.warnings.len(),
            warnings,
            "{attribute}: marker mode warnings on {input}: {:#?}",
            parsed.warnings
        );
    }

    let whole = extract_json(&input.to_string(), &T::TYPE);
    let decoded = whole
        .decode::<T>()
        .filter(|_| whole.success)
        .map(|value| serde_json::to_value(value).unwrap());
    let coerced = whole
        .warnings
        .iter()
        .any(|warning| warning.kind == WarningKind::Coerced);
    if serde_read.is_err() && decoded.is_some() {
        assert!(
            coerced,
            "{attribute}: whole-response mode accepted {input} silently"
        );
        return;
    }
    assert_eq!(
        decoded.as_ref().ok_or(()),
        serde_read.as_ref().map_err(|_| ()),
        "{attribute}: whole-response mode on {input}: {:#?}",
        whole.errors
    );
    if decoded.is_some() {
        assert_eq!(
            whole.warnings.len(),
            warnings,
            "{attribute}: whole-response warnings on {input}: {:#?}",
            whole.warnings
        );
    }
}

/// `rename` on a field.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(marker = "RENAMED")]
struct Renamed {
    /// The title.
    #[serde(rename = "name")]
    title: String,
}

/// `rename_all` on a struct.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[serde(rename_all = "camelCase")]
#[payload(marker = "CAMEL")]
struct Camel {
    /// The row.
    row_id: u32,
}

/// `rename_all_fields` on an enum.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
#[payload(marker = "FIELDS_RENAMED")]
enum FieldsRenamed {
    /// A move.
    MoveRow {
        /// The row.
        row_id: u32,
    },
}

/// `alias` on a required and on an optional field.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(marker = "ALIASED")]
struct Aliased {
    /// How much.
    #[serde(alias = "qty")]
    quantity: f64,
    /// A note.
    #[serde(default, alias = "remark")]
    note: Option<String>,
    /// Lines, each with an aliased member.
    #[serde(default)]
    lines: Vec<Line>,
}

/// A line with an aliased member.
#[derive(Serialize, Deserialize, JsonSchema)]
struct Line {
    /// Its text.
    #[serde(alias = "txt")]
    text: String,
}

/// `default` on a field and on the container.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload, Default)]
#[serde(default)]
#[payload(marker = "DEFAULTED")]
struct Defaulted {
    /// A count.
    count: u32,
    /// A label.
    label: String,
}

/// `skip` and `skip_deserializing`.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(marker = "SKIPPING")]
struct Skipping {
    /// Kept.
    kept: u32,
    /// Never read.
    #[serde(skip)]
    #[allow(dead_code)]
    cache: u32,
    /// Never read either.
    #[serde(skip_deserializing)]
    computed: u32,
}

/// `flatten`.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(marker = "FLAT")]
struct Flat {
    /// The id.
    id: u32,
    /// The rest.
    #[serde(flatten)]
    meta: Meta,
}

/// Members flattened into [`Flat`].
#[derive(Serialize, Deserialize, JsonSchema)]
struct Meta {
    /// The author.
    author: String,
}

/// An externally tagged enum (serde's default).
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[serde(rename_all = "snake_case")]
#[payload(marker = "EXTERNAL")]
enum External {
    /// A timer.
    Timer {
        /// Minutes.
        minutes: u32,
    },
}

/// An internally tagged enum.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[serde(tag = "command", rename_all = "snake_case")]
#[payload(marker = "INTERNAL")]
enum Internal {
    /// A timer.
    SetTimer {
        /// Minutes.
        minutes: u32,
    },
    /// Scale.
    Scale {
        /// Servings.
        #[serde(alias = "portions")]
        servings: u32,
    },
}

/// An adjacently tagged enum.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[serde(tag = "t", content = "c", rename_all = "snake_case")]
#[payload(marker = "ADJACENT")]
enum Adjacent {
    /// A timer.
    Timer {
        /// Minutes.
        minutes: u32,
    },
}

/// An untagged enum.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[serde(untagged)]
#[payload(marker = "UNTAGGED")]
enum Untagged {
    /// By id.
    ById {
        /// The id.
        id: u32,
    },
    /// By name.
    ByName {
        /// The name.
        name: String,
    },
}

/// `deny_unknown_fields`.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[serde(deny_unknown_fields)]
#[payload(marker = "CLOSED")]
struct Closed {
    /// The id.
    #[serde(alias = "ident")]
    id: u32,
}

/// `transparent` over a struct.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[serde(transparent)]
#[payload(marker = "WRAPPER")]
struct Wrapper {
    /// What it wraps.
    inner: Meta,
}

/// `try_from` (and `into`), the schema of the other type.
#[derive(Clone, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[serde(try_from = "Meta", into = "Meta")]
#[schemars(with = "Meta")]
#[payload(marker = "CHECKED_AUTHOR")]
struct CheckedAuthor {
    /// The author, never blank.
    author: String,
}

impl TryFrom<Meta> for CheckedAuthor {
    type Error = String;
    fn try_from(meta: Meta) -> Result<Self, String> {
        if meta.author.trim().is_empty() {
            Err("the author is blank".to_string())
        } else {
            Ok(CheckedAuthor {
                author: meta.author,
            })
        }
    }
}

impl From<CheckedAuthor> for Meta {
    fn from(checked: CheckedAuthor) -> Meta {
        Meta {
            author: checked.author,
        }
    }
}

/// `with` and `deserialize_with`, the schema through schemars' `with`.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(marker = "TIMED")]
struct Timed {
    /// Whole minutes.
    #[serde(with = "minutes")]
    #[schemars(with = "u32")]
    wait: std::time::Duration,
    /// A number written as a string.
    #[serde(deserialize_with = "number_in_text", default)]
    #[schemars(with = "String")]
    count: u32,
}

mod minutes {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::Duration;

    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(d.as_secs() / 60)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        Ok(Duration::from_secs(u64::from(u32::deserialize(d)?) * 60))
    }
}

fn number_in_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let text = String::deserialize(d)?;
    text.trim().parse().map_err(serde::de::Error::custom)
}

/// `other` on a unit variant: any tag serde does not know reads as it.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(marker = "TICKET")]
struct Ticket {
    /// Where it stands.
    status: Status,
    /// How urgent, 3 unless said.
    #[serde(default = "normal_priority")]
    priority: u8,
    /// Who has it, left out when nobody does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    assignee: Option<String>,
    /// Whether it is out.
    #[serde(default)]
    phase: Option<Phase>,
}

/// `alias` on a variant: serde reads its other name.
#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Phase {
    /// Not out yet.
    Draft,
    /// Out.
    #[serde(alias = "live")]
    Published,
}

/// A ticket's status.
#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Status {
    /// Being worked on.
    Open,
    /// Done.
    Closed,
    /// A status this app does not know.
    #[serde(other)]
    Unknown,
}

fn normal_priority() -> u8 {
    3
}

#[test]
fn every_serde_attribute_reads_as_serde_reads_it() {
    use Reads::{All, Ignoring, Nothing};
    row::<Renamed>("rename", json!({"name": "x"}), All);
    row::<Renamed>("rename: the Rust name", json!({"title": "x"}), Nothing);
    row::<Camel>("rename_all", json!({"rowId": 3}), All);
    row::<Camel>("rename_all: the Rust name", json!({"row_id": 3}), Nothing);
    row::<FieldsRenamed>(
        "rename_all_fields",
        json!({"kind": "move_row", "rowId": 3}),
        All,
    );
    row::<Aliased>(
        "alias: main names",
        json!({"quantity": 2, "note": "a"}),
        All,
    );
    row::<Aliased>("alias: required", json!({"qty": 2}), All);
    row::<Aliased>(
        "alias: optional",
        json!({"quantity": 2, "remark": "a"}),
        All,
    );
    row::<Aliased>(
        "alias: nested, in every item",
        json!({"qty": 2, "lines": [{"txt": "a"}, {"text": "b"}, {"txt": "c"}]}),
        All,
    );
    row::<Aliased>(
        "alias: both names",
        json!({"qty": 2, "quantity": 3}),
        Nothing,
    );
    row::<Aliased>(
        "alias: an unknown member beside it",
        json!({"qty": 2, "mood": "calm"}),
        Ignoring(1),
    );
    row::<Defaulted>("default: container", json!({}), All);
    row::<Defaulted>("default: one member", json!({"count": 2}), All);
    row::<Skipping>("skip", json!({"kept": 1}), All);
    row::<Skipping>(
        "skip: a skipped member written",
        json!({"kept": 1, "cache": 5}),
        Ignoring(1),
    );
    row::<Flat>("flatten", json!({"id": 1, "author": "a"}), All);
    row::<Flat>("flatten: missing", json!({"id": 1}), Nothing);
    row::<External>("externally tagged", json!({"timer": {"minutes": 4}}), All);
    row::<Internal>(
        "internally tagged",
        json!({"command": "set_timer", "minutes": 4}),
        All,
    );
    row::<Internal>(
        "internally tagged: alias in a variant",
        json!({"command": "scale", "portions": 4}),
        All,
    );
    row::<Internal>(
        "internally tagged: unknown tag",
        json!({"command": "preheat", "minutes": 4}),
        Nothing,
    );
    row::<Adjacent>(
        "adjacently tagged",
        json!({"t": "timer", "c": {"minutes": 4}}),
        All,
    );
    row::<Untagged>("untagged: first", json!({"id": 4}), All);
    row::<Untagged>("untagged: second", json!({"name": "x"}), All);
    row::<Closed>("deny_unknown_fields", json!({"id": 1}), All);
    row::<Closed>("deny_unknown_fields: alias", json!({"ident": 1}), All);
    row::<Closed>(
        "deny_unknown_fields: unknown",
        json!({"id": 1, "extra": 2}),
        Nothing,
    );
    row::<Wrapper>("transparent", json!({"author": "a"}), All);
    row::<CheckedAuthor>("try_from", json!({"author": "a"}), All);
    row::<CheckedAuthor>("try_from: refused", json!({"author": " "}), Nothing);
    row::<Timed>("with", json!({"wait": 5}), All);
    row::<Timed>("deserialize_with", json!({"wait": 5, "count": "12"}), All);
    row::<Timed>(
        "deserialize_with: refused",
        json!({"wait": 5, "count": "many"}),
        Nothing,
    );
    row::<Ticket>("other: a known tag", json!({"status": "open"}), All);
    row::<Ticket>("other: an unknown tag", json!({"status": "pending"}), All);
    row::<Ticket>("other: not a string", json!({"status": 4}), Nothing);
    row::<Ticket>(
        "default = path, skip_serializing_if",
        json!({"status": "closed", "priority": 1, "assignee": "ana"}),
        All,
    );
    row::<Ticket>("default = path: left out", json!({"status": "closed"}), All);
    row::<Ticket>(
        "alias on a variant",
        json!({"status": "open", "phase": "live"}),
        All,
    );
    row::<Ticket>(
        "alias on a variant: another name",
        json!({"status": "open", "phase": "gone"}),
        Nothing,
    );
    row::<Ticket>(
        "other beside a refused choice",
        json!({"status": "pending", "phase": "gone"}),
        Nothing,
    );
    row::<Ticket>(
        "a u8 out of range",
        json!({"status": "closed", "priority": 300}),
        Nothing,
    );
}

/// `deny_unknown_fields` with an aliased required and an aliased optional member, and a
/// third member to get wrong.
#[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
#[serde(deny_unknown_fields)]
#[payload(marker = "CLOSED_PAIR")]
struct ClosedPair {
    /// The id.
    #[serde(alias = "ident")]
    id: u32,
    /// A label.
    #[serde(default, alias = "tag")]
    label: Option<String>,
    /// A count.
    count: u32,
}

/// One row of aliases beside another failure: serde refuses `input`, and so does the
/// parser in marker mode (one-shot and streamed) and in whole-response mode, with
/// errors at `failing` only: never the aliased member as missing or unknown.
fn alias_beside<T: LlmPayload>(row: &str, input: Value, failing: &[&str], aliases: &[&str]) {
    let text = format!("{}: {input}", T::MARKER);
    let options = ParseOptions::new().payload(T::TYPE);
    let parsed = parse(&text, &options);
    assert!(parsed.custom_payload.is_none(), "{row}");
    assert_eq!(parsed.rejected.len(), 1, "{row}: {parsed:#?}");
    let streamed = payload_benches::invariants::stream_checked(&options, &text, &[1, 4]);
    assert_eq!(streamed, parsed, "{row}: the stream");
    let whole = extract_json(&input.to_string(), &T::TYPE);
    assert!(
        !whole.success,
        "{row}: whole-response mode accepted {input}"
    );
    for (mode, errors) in [
        ("marker", &parsed.rejected[0].errors),
        ("whole", &whole.errors),
    ] {
        let paths: Vec<&str> = errors.iter().map(|e| e.path()).collect();
        assert_eq!(paths, failing, "{row}, {mode} mode: {errors:#?}");
        for error in errors {
            let said = format!("{} {:?}", error.message(), error.suggestion());
            for alias in aliases {
                assert!(
                    !said.contains(alias),
                    "{row}, {mode} mode names {alias}: {error:#?}"
                );
            }
        }
    }
}

/// An alias is read even when something else in the value fails serde (issue 33): the
/// errors name the other failure, in both modes, for required and optional members, at
/// any depth, in open and closed objects.
#[test]
fn an_alias_beside_another_failure_is_still_an_alias() {
    alias_beside::<Aliased>(
        "required alias, a wrong optional member",
        json!({"qty": 2, "note": {"x": 1}}),
        &["/note"],
        &["qty", "quantity"],
    );
    alias_beside::<Aliased>(
        "nested required alias, a wrong member elsewhere",
        json!({"qty": 2, "lines": [{"txt": "a"}, {"txt": {"x": 1}}]}),
        &["/lines/1/text"],
        &["qty", "quantity", "txt"],
    );
    alias_beside::<ClosedPair>(
        "closed: required alias, a wrong member",
        json!({"ident": 1, "count": "many"}),
        &["/count"],
        &["ident", "/id"],
    );
    alias_beside::<ClosedPair>(
        "closed: optional alias, a wrong member",
        json!({"id": 1, "tag": "x", "count": "many"}),
        &["/count"],
        &["tag", "label"],
    );
}

/// An alias whose own value is wrong (issue 33): the errors name the value, at the
/// member's main name, in both modes; never the member as missing or the alias as
/// unknown.
#[test]
fn an_alias_with_a_wrong_value_is_told_its_value_is_wrong() {
    alias_beside::<Aliased>(
        "required alias, its value wrong",
        json!({"qty": "many"}),
        &["/quantity"],
        &["qty", "missing"],
    );
    alias_beside::<Aliased>(
        "optional alias, its value wrong",
        json!({"remark": 5, "quantity": 1}),
        &["/note"],
        &["remark", "unknown"],
    );
    alias_beside::<Aliased>(
        "nested alias, its value wrong",
        json!({"qty": 1, "lines": [{"txt": 5}]}),
        &["/lines/0/text"],
        &["txt", "unknown"],
    );
    alias_beside::<ClosedPair>(
        "closed: required alias, its value wrong",
        json!({"ident": "x", "count": 1}),
        &["/id"],
        &["ident", "missing"],
    );
}
