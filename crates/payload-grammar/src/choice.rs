//! What a grammar is asked for beyond its page or type: whether a block is required,
//! allowed or refused (like a provider's `tool_choice`), which types may fill it,
//! whether the grammar switches on lazily at a marker, and the bounds an app allows on
//! what a schema leaves unbounded.

use crate::page::{Block, PagePlan};
use crate::{GrammarError, Unsupported};
use payload_schema::limits::MAX_SCHEMA_DEPTH;
use serde::Serialize;
use serde_json::{Map, Value};
use std::fmt;
use std::str::FromStr;

/// How many lines of free text may come before the block a [`Choice::Required`]
/// grammar asks for: enough for a sentence or two of introduction, few enough that a
/// model which would rather go on talking reaches the marker well before its token
/// limit.
pub const LEAD_LINES: usize = 4;

/// How many lines of free text may follow the block a [`Choice::Required`] grammar
/// asks for, before the answer must end: room for a closing sentence or a question,
/// and an end the engine reaches, so an answer whose block is done is never cut by
/// the token limit while it goes on talking.
pub const TAIL_LINES: usize = 2;

/// The most characters one line of a [`Choice::Required`] grammar's free text may
/// hold, a long sentence, not counting the markers' characters (in GBNF each may
/// follow a run of them shorter than the shortest marker: `gbnf_text.rs`). With
/// [`LEAD_LINES`] and [`TAIL_LINES`] it bounds the free text around the block, so a
/// model that rambles still reaches the block and the end: the tokens an answer needs
/// are the block's and a few hundred more.
pub const LINE_CHARS: usize = 120;

/// The characters a [`Choice::Required`] grammar's free text does without: with them
/// a line could open a code fence (`` ` ``, `~`), a quote (`>`) or an HTML block
/// (`<`, `<blockquote>`), and a marker after it would be prose (docs/spec.md §1.11),
/// so the required block would not be read as one.
pub const PROSE_EXCLUDED: &[char] = &['`', '~', '<', '>'];

/// Whether a response must hold a block, like a provider's `tool_choice`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Choice {
    /// Free text; blocks allowed (as many custom payloads as the page's count allows
    /// and one block of each suggestion kind).
    #[default]
    Auto,
    /// At most [`LEAD_LINES`] lines of free text, then exactly one block of the
    /// expected types, then at most [`TAIL_LINES`] lines of free text and the end;
    /// no other block. The lines are at most [`LINE_CHARS`] long and hold none of
    /// [`PROSE_EXCLUDED`].
    Required,
    /// Free text only: no marker of any registered type.
    None,
}

impl Choice {
    /// The name used on the command line and in turn files.
    pub fn as_str(self) -> &'static str {
        match self {
            Choice::Auto => "auto",
            Choice::Required => "required",
            Choice::None => "none",
        }
    }
}

impl FromStr for Choice {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "auto" => Ok(Choice::Auto),
            "required" => Ok(Choice::Required),
            "none" => Ok(Choice::None),
            other => Err(format!(
                "unknown choice '{other}': use auto, required or none"
            )),
        }
    }
}

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The options of a page's grammar.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageOptions {
    /// Whether a block is required, allowed or refused.
    pub choice: Choice,
    /// With [`Choice::Required`]: the types the block may be (their names; a
    /// suggestion kind by its name too). Empty: the page's custom payload types.
    pub expected: Vec<String>,
    /// A lazy grammar (llama.cpp's `grammar_lazy` with `grammar_triggers`): the text
    /// stays free until a marker is written, and the grammar, rooted at the marker,
    /// holds what follows. GBNF only: Lark and structural tags are lazy by nature.
    pub lazy: bool,
    /// Bounds on the blocks' values that their schemas leave open.
    pub hints: Hints,
}

impl PageOptions {
    /// `plan` with the hints written into every block's schema.
    pub(crate) fn bounded(&self, mut plan: PagePlan) -> PagePlan {
        for block in plan
            .payloads
            .iter_mut()
            .chain(plan.values.iter_mut())
            .chain(plan.actions.iter_mut())
        {
            block.schema = self.hints.apply(&block.schema);
        }
        plan
    }

    /// The blocks a [`Choice::Required`] grammar may hold: the expected types, each
    /// one the page offers, or else the page's custom payloads. Other choices: every
    /// block of the page.
    pub(crate) fn expected_blocks(&self, plan: &PagePlan) -> Result<Vec<Block>, GrammarError> {
        let offered: Vec<&Block> = plan.payloads.iter().chain(plan.suggestions()).collect();
        if self.choice != Choice::Required {
            if !self.expected.is_empty() {
                return Err(GrammarError::Options(
                    "expected types are for a required block: add choice required".into(),
                ));
            }
            return Ok(offered.into_iter().cloned().collect());
        }
        if self.expected.is_empty() {
            if plan.payloads.is_empty() {
                return Err(GrammarError::Options(format!(
                    "page '{}' offers no payload type to require: name the expected blocks",
                    plan.page
                )));
            }
            return Ok(plan.payloads.clone());
        }
        self.expected
            .iter()
            .map(|name| {
                offered
                    .iter()
                    .find(|b| &b.name == name)
                    .map(|b| (*b).clone())
                    .ok_or_else(|| {
                        GrammarError::Options(format!(
                            "page '{}' does not offer '{name}' (it offers {})",
                            plan.page,
                            offered
                                .iter()
                                .map(|b| b.name.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ))
                    })
            })
            .collect()
    }
}

/// Bounds an app allows on what a type's schema leaves open, so a value under its
/// grammar cannot pad itself out to the token limit: each caps every string's length
/// or list's items where the schema allows more (never below the schema's minimum).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Hints {
    /// The longest string, in characters (`maxLength`).
    pub max_length: Option<u64>,
    /// The most items of a list (`maxItems`), and entries of a map (`maxProperties`).
    pub max_items: Option<u64>,
}

impl Hints {
    /// `schema` with the hints written in as `maxLength` and `maxItems` wherever a
    /// string or a list allows more.
    pub(crate) fn apply(&self, schema: &Value) -> Value {
        if self.max_length.is_none() && self.max_items.is_none() {
            return schema.clone();
        }
        self.bound(schema, 0)
    }

    fn bound(&self, schema: &Value, depth: usize) -> Value {
        match schema {
            // Deeper than any schema the walkers read: left as is.
            _ if depth > MAX_SCHEMA_DEPTH => schema.clone(),
            Value::Object(map) => {
                let mut out: Map<String, Value> = map
                    .iter()
                    .map(|(key, value)| {
                        let value = match (key.as_str(), value) {
                            // Member names are data, not schemas.
                            ("properties" | "$defs" | "definitions", Value::Object(members)) => {
                                Value::Object(
                                    members
                                        .iter()
                                        .map(|(k, v)| (k.clone(), self.bound(v, depth + 1)))
                                        .collect(),
                                )
                            }
                            ("enum" | "const" | "required" | "examples" | "default", v) => {
                                v.clone()
                            }
                            // A map of any values: its values bounded as scalars.
                            ("additionalProperties", Value::Bool(true)) => self.any_value(),
                            (_, v) => self.bound(v, depth + 1),
                        };
                        (key.clone(), value)
                    })
                    .collect();
                let kind = |name: &str| match map.get("type") {
                    Some(Value::String(t)) => t == name,
                    Some(Value::Array(types)) => types.iter().any(|t| t == name),
                    _ => false,
                };
                let mut cap = |hint: Option<u64>, kind_name: &str, min_key: &str, max_key: &str| {
                    let (Some(hint), true) = (hint, kind(kind_name)) else {
                        return;
                    };
                    let min = map.get(min_key).and_then(Value::as_u64).unwrap_or(0);
                    let stated = map.get(max_key).and_then(Value::as_u64).unwrap_or(u64::MAX);
                    out.insert(max_key.into(), stated.min(hint.max(min)).into());
                };
                cap(self.max_length, "string", "minLength", "maxLength");
                cap(self.max_items, "array", "minItems", "maxItems");
                // A map (an object without declared members) is a list of entries: as
                // many as a list may hold, each key a string within the length hint.
                let declared = map
                    .get("properties")
                    .and_then(Value::as_object)
                    .is_some_and(|p| !p.is_empty());
                if !declared {
                    cap(self.max_items, "object", "minProperties", "maxProperties");
                    if let (Some(max), true) = (self.max_length, kind("object")) {
                        out.entry("propertyNames").or_insert_with(
                            || serde_json::json!({"type": "string", "maxLength": max}),
                        );
                    }
                }
                Value::Object(out)
            }
            Value::Array(list) => {
                Value::Array(list.iter().map(|v| self.bound(v, depth + 1)).collect())
            }
            other => other.clone(),
        }
    }

    /// Any value, as the hints bound it: with a length hint, a scalar (a string within
    /// it, a number, a boolean or null), since a nested value could grow without end;
    /// without one, any value.
    fn any_value(&self) -> Value {
        match self.max_length {
            Some(max) => serde_json::json!({
                "type": ["string", "number", "boolean", "null"],
                "maxLength": max,
            }),
            None => Value::Bool(true),
        }
    }

    /// The hints, listed with what they do (the grammar is narrower than the schema).
    pub(crate) fn notes(&self, name: &str) -> Vec<Unsupported> {
        let mut out = Vec::new();
        if let Some(max) = self.max_length {
            out.push(Unsupported {
                location: format!("{name}#"),
                feature: format!("strings longer than the hint (maxLength {max})"),
                effect: format!(
                    "narrower: a string has at most {max} characters, and a map of any values holds scalars"
                ),
            });
        }
        if let Some(max) = self.max_items {
            out.push(Unsupported {
                location: format!("{name}#"),
                feature: format!("lists and maps longer than the hint (maxItems {max})"),
                effect: format!(
                    "narrower: a list has at most {max} items and a map at most {max} entries (never fewer than their minimum)"
                ),
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::{Choice, Hints};
    use serde_json::json;

    #[test]
    fn hints_cap_what_the_schema_leaves_open_but_never_below_its_minimum() {
        let hints = Hints {
            max_length: Some(40),
            max_items: Some(3),
        };
        let schema = json!({
            "type": "object",
            "properties": {
                "type": {"type": "string"},
                "short": {"type": "string", "maxLength": 5},
                "long_min": {"type": "string", "minLength": 60},
                "tags": {"type": "array", "items": {"type": ["string", "null"]}},
                "pinned": {"type": "array", "maxItems": 9, "items": {"const": "x"}}
            },
            "required": ["type"]
        });
        let bounded = hints.apply(&schema);
        let p = &bounded["properties"];
        assert_eq!(p["type"]["maxLength"], 40);
        assert_eq!(p["short"]["maxLength"], 5);
        assert_eq!(
            p["long_min"]["maxLength"], 60,
            "never below the stated minimum"
        );
        assert_eq!(p["tags"]["maxItems"], 3);
        assert_eq!(p["tags"]["items"]["maxLength"], 40);
        assert_eq!(
            p["pinned"]["maxItems"], 3,
            "a looser stated bound is capped"
        );
        assert_eq!(bounded["required"], json!(["type"]));
        let rows =
            json!({"type": "array", "items": {"type": "object", "additionalProperties": true}});
        let rows = hints.apply(&rows);
        assert_eq!(rows["items"]["additionalProperties"]["maxLength"], 40);
        assert_eq!(rows["maxItems"], 3);
        assert_eq!(
            rows["items"]["maxProperties"], 3,
            "a map's entries are bounded"
        );
        assert_eq!(rows["items"]["propertyNames"]["maxLength"], 40);
        assert!(
            bounded.get("maxProperties").is_none(),
            "an object with declared members keeps them all"
        );
        assert_eq!(Hints::default().apply(&schema), schema);
    }

    #[test]
    fn choices_read_as_tool_choice_does() {
        for choice in [Choice::Auto, Choice::Required, Choice::None] {
            assert_eq!(choice.as_str().parse::<Choice>(), Ok(choice));
        }
        assert!("any".parse::<Choice>().is_err());
    }
}
