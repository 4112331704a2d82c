//! # payload-grammar
//!
//! Constrained decoding for marker mode and whole-response mode: a page's payloads, or
//! one payload type, as a grammar an inference server enforces while the model writes,
//! so that prose stays free and every block the model starts is a valid value.
//!
//! - [`Target::Lark`]: llguidance's Lark dialect (vLLM, SGLang, llama.cpp with
//!   llguidance), with each type's JSON Schema embedded as `%json {...}`. Everything a
//!   page says is expressed: free text that holds no marker of a registered type (a
//!   negated lexeme), each marker followed by a value of its type, as many custom
//!   payloads as the page's count allows (in all and per type) and at most one block
//!   of each suggestion kind, `SUGGESTED_ACTIONS` items
//!   limited to the page's registered (action, handler) pairs.
//! - [`Target::StructuralTag`]: xgrammar's `structural_tag` format (vLLM, SGLang): free
//!   text that switches into a JSON-Schema-constrained value after a trigger.
//! - [`Target::Gbnf`]: llama.cpp's GBNF, with the JSON Schema converted to rules here.
//!
//! Where a target cannot say something the page or the schema says, the grammar is
//! never silently wider: [`Grammar::unsupported`] lists each feature, where it is and
//! what the grammar does instead (the command prints the list on stderr). The marker
//! spelling is the one the instructions teach (`MARKER: ` then the value, optionally in
//! a code fence after the colon; emphasis around the name is allowed in Lark), so a
//! constrained model writes what the parser reads first time.

#![forbid(unsafe_code)]

mod choice;
mod gbnf;
mod gbnf_text;
mod lark;
mod page;
mod structural_tag;
mod support;

pub use choice::{Choice, Hints, LEAD_LINES, LINE_CHARS, PROSE_EXCLUDED, PageOptions, TAIL_LINES};
pub use page::{Block, PagePlan};

use payload_core::{PayloadType, schema::Dialect};
use payload_registry::{Registry, UnknownPage};
use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// The grammar formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Target {
    /// xgrammar's `structural_tag` response format (JSON).
    StructuralTag,
    /// llguidance's Lark dialect.
    Lark,
    /// llama.cpp's GBNF.
    Gbnf,
}

impl Target {
    /// The name used on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Target::StructuralTag => "structural-tag",
            Target::Lark => "lark",
            Target::Gbnf => "gbnf",
        }
    }
}

impl FromStr for Target {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "structural-tag" | "structural_tag" => Ok(Target::StructuralTag),
            "lark" => Ok(Target::Lark),
            "gbnf" => Ok(Target::Gbnf),
            other => Err(format!(
                "unknown grammar target '{other}': use structural-tag, lark or gbnf"
            )),
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Something the page or the schema says that the target cannot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unsupported {
    /// Where: the payload type's name and a JSON Pointer into its schema, or `page`.
    pub location: String,
    /// The feature (`minLength`, `free-form map`, `at most one custom payload`, ...).
    pub feature: String,
    /// What the grammar does instead: always narrower or equal, or said to be wider.
    pub effect: String,
}

/// A grammar, and what it could not express.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Grammar {
    /// The format.
    pub target: Target,
    /// The grammar text (JSON for structural tags).
    pub text: String,
    /// What the target could not express, in order found.
    pub unsupported: Vec<Unsupported>,
    /// For a lazy grammar ([`PageOptions::lazy`]): the words that switch it on. The
    /// engine leaves the text free until one of them is written, then holds what
    /// follows, the trigger included, to the grammar. Empty for an eager grammar.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub triggers: Vec<String>,
}

/// Why no grammar could be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GrammarError {
    /// The page is not registered.
    #[error(transparent)]
    UnknownPage(UnknownPage),
    /// The whole-response format is not one the target can express for this type.
    #[error("{0}")]
    Format(String),
    /// The options ask for something the page cannot give (an expected type it does
    /// not offer, a lazy grammar the target has no triggers for).
    #[error("{0}")]
    Options(String),
}

/// The grammar of marker-mode responses on `page`, blocks allowed
/// ([`Choice::Auto`]).
pub fn page_grammar(
    registry: &Registry,
    page: &str,
    target: Target,
) -> Result<Grammar, GrammarError> {
    page_grammar_with(registry, page, target, &PageOptions::default())
}

/// The grammar of marker-mode responses on `page`, with a block required, allowed or
/// refused as `options` say (like a provider's `tool_choice`), eager or lazy.
pub fn page_grammar_with(
    registry: &Registry,
    page: &str,
    target: Target,
    options: &PageOptions,
) -> Result<Grammar, GrammarError> {
    let plan = options.bounded(PagePlan::of(registry, page).map_err(GrammarError::UnknownPage)?);
    let expected = options.expected_blocks(&plan)?;
    if options.choice == Choice::Auto && target != Target::StructuralTag && !plan.orders_fit() {
        return Err(GrammarError::Options(format!(
            "the page allows {} payloads per response: more orders of blocks than a grammar \
             lists ({} at most); lower the page's count or constrain without a page grammar",
            plan.count.in_all(),
            page::MAX_ORDERS
        )));
    }
    if options.lazy && target == Target::Lark {
        return Err(GrammarError::Options(
            "lark grammars have no triggers: a lark page grammar is already lazy (text stays free until a marker), so ask for an eager one".into(),
        ));
    }
    let mut grammar = match target {
        Target::Lark => lark::page(&plan, options.choice, &expected),
        Target::StructuralTag => structural_tag::page(&plan, options.choice, &expected),
        Target::Gbnf => gbnf::page(&plan, options, &expected),
    };
    grammar.unsupported.extend(options.hints.notes("page"));
    Ok(grammar)
}

/// The grammar of a whole response that is one value of `payload`, written as JSON
/// (`format` must be `json`: the other formats' readers are lenient by design, and a
/// grammar for them is not made here).
pub fn type_grammar(
    payload: &PayloadType,
    target: Target,
    format: &str,
) -> Result<Grammar, GrammarError> {
    type_grammar_with(payload, target, format, &Hints::default())
}

/// [`type_grammar`] with `hints`: bounds the app allows on what the schema leaves
/// unbounded (every string's length, every list's items), so a constrained value
/// cannot pad itself out to the token limit. The grammar is then narrower than the
/// schema, and says so in [`Grammar::unsupported`].
pub fn type_grammar_with(
    payload: &PayloadType,
    target: Target,
    format: &str,
    hints: &Hints,
) -> Result<Grammar, GrammarError> {
    if format != "json" {
        return Err(GrammarError::Format(format!(
            "grammars are made for whole responses written as json, not {format}"
        )));
    }
    let schema = hints.apply(&payload.schema(Dialect::Draft2020_12));
    let mut grammar = match target {
        Target::Lark => lark::whole_json(payload.name, &schema),
        Target::StructuralTag => structural_tag::whole_json(payload.name, &schema),
        Target::Gbnf => gbnf::whole_json(payload.name, &schema),
    };
    let rules: Vec<String> = payload.rules.iter().map(|r| r.to_string()).collect();
    grammar
        .unsupported
        .extend(support::rules(payload.name, &rules));
    grammar.unsupported.extend(hints.notes(payload.name));
    Ok(grammar)
}

#[cfg(test)]
mod error_tests {
    use super::GrammarError;
    use payload_registry::UnknownPage;

    use payload_loopback::errors::assert_each_cause_printed_once;

    #[test]
    fn a_grammar_error_prints_its_cause_once() {
        let unknown = GrammarError::UnknownPage(UnknownPage {
            name: "nope".into(),
            known: vec!["home"],
        });
        assert_each_cause_printed_once(&unknown);
        assert_eq!(
            unknown.to_string(),
            "unknown page 'nope' (registered pages: home)"
        );
    }
}
