//! `payload grammar --page PAGE [--choice auto|required|none] [--expect TYPE]...
//! [--lazy] | --type NAME [--format json] [--max-length N] [--max-items N] --target
//! structural-tag|lark|gbnf [--json]`: the grammar on stdout and, so it is never
//! missed, what the target cannot express on stderr (one line each), or all of it as
//! JSON.

use crate::error::CliError;
use crate::find_type;
#[cfg(feature = "providers")]
use payload_core::PayloadType;
use payload_grammar::{Grammar, Hints, PageOptions, Target, page_grammar_with, type_grammar_with};
#[cfg(feature = "providers")]
use payload_providers::Constraint;
use payload_registry::Registry;
use std::io::Write;

/// The grammar target named on the command line.
pub(crate) fn target(name: &str) -> Result<Target, CliError> {
    name.parse().map_err(CliError::Grammar)
}

/// What `payload grammar` was asked for.
#[derive(Debug)]
pub(crate) struct GrammarRequest<'a> {
    pub page: Option<&'a str>,
    pub type_name: Option<&'a str>,
    pub target: &'a str,
    pub format: &'a str,
    pub page_options: PageOptions,
    pub hints: Hints,
    pub json: bool,
}

/// Prints the grammar asked for.
pub(crate) fn run(
    registry: &Registry,
    request: GrammarRequest<'_>,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let target = target(request.target)?;
    let json = request.json;
    let grammar = match (request.page, request.type_name) {
        (Some(page), _) => page_grammar_with(registry, page, target, &request.page_options),
        (None, Some(name)) => type_grammar_with(
            find_type(registry, name)?,
            target,
            request.format,
            &request.hints,
        ),
        (None, None) => unreachable!("clap requires --page or --type"),
    }
    .map_err(|e| CliError::Grammar(e.to_string()))?;
    if json {
        serde_json::to_writer_pretty(&mut *out, &grammar)
            .map_err(|e| CliError::Output(e.into()))?;
        writeln!(out)?;
    } else {
        write!(out, "{}", grammar.text)?;
        if !grammar.text.ends_with('\n') {
            writeln!(out)?;
        }
        report(&grammar);
    }
    Ok(())
}

/// The unsupported features, on stderr.
fn report(grammar: &Grammar) {
    for item in &grammar.unsupported {
        eprintln!(
            "payload grammar: {} cannot express {} at {}: {}",
            grammar.target, item.feature, item.location, item.effect
        );
    }
}

/// The page's grammar in `target` with `options`, as a constraint for the
/// OpenAI-compatible client; what it cannot express goes to stderr when `report`.
#[cfg(feature = "providers")]
pub(crate) fn page_constraint(
    registry: &Registry,
    page: &str,
    target: Target,
    options: &PageOptions,
    report_unsupported: bool,
) -> Result<Constraint, CliError> {
    let grammar = page_grammar_with(registry, page, target, options)
        .map_err(|e| CliError::Grammar(e.to_string()))?;
    if report_unsupported {
        report(&grammar);
    }
    as_constraint(grammar)
}

/// The whole-response grammar of `payload` (JSON) in `target` with `hints`, as a
/// constraint: GBNF as `grammar`, Lark as `structured_outputs.grammar`, and for the
/// structural-tag target the `json_schema` response format (which llama.cpp's server
/// reads too).
#[cfg(feature = "providers")]
pub(crate) fn type_constraint(
    payload: &PayloadType,
    target: Target,
    hints: &Hints,
    report_unsupported: bool,
) -> Result<Constraint, CliError> {
    let grammar = type_grammar_with(payload, target, "json", hints)
        .map_err(|e| CliError::Grammar(e.to_string()))?;
    if report_unsupported {
        report(&grammar);
    }
    as_constraint(grammar)
}

#[cfg(feature = "providers")]
fn as_constraint(grammar: Grammar) -> Result<Constraint, CliError> {
    Ok(match grammar.target {
        Target::Lark => Constraint::Lark(grammar.text),
        Target::Gbnf if !grammar.triggers.is_empty() => Constraint::LazyGbnf {
            grammar: grammar.text,
            triggers: grammar.triggers,
        },
        Target::Gbnf => Constraint::Gbnf(grammar.text),
        Target::StructuralTag => Constraint::StructuralTag(
            serde_json::from_str(&grammar.text).map_err(|e| CliError::Grammar(e.to_string()))?,
        ),
    })
}

/// Runs `payload grammar`.
pub(crate) fn command(
    registry: &Registry,
    args: crate::args::GrammarArgs,
    out: &mut dyn Write,
) -> Result<std::process::ExitCode, CliError> {
    run(
        registry,
        GrammarRequest {
            page: args.page.as_deref(),
            type_name: args.type_name.as_deref(),
            target: &args.target,
            format: &args.format,
            page_options: args.choice.options(&args.hints),
            hints: args.hints.hints(),
            json: args.json,
        },
        out,
    )?;
    Ok(std::process::ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use crate::{CliError, run};
    use payload_registry::{Page, Registry};
    use serde_json::Value;

    fn registry() -> Registry {
        Registry::from_parts(
            vec![payload_registry::PayloadEntry::new(
                <payload_core_test::Note as payload_core::LlmPayload>::TYPE,
                &[],
            )],
            vec![
                Page::new("notes")
                    .payloads(&[<payload_core_test::Note as payload_core::LlmPayload>::TYPE]),
            ],
            vec![],
        )
    }

    mod payload_core_test {
        use payload_core::LlmPayload;
        use schemars::JsonSchema;
        use serde::{Deserialize, Serialize};

        /// A note.
        #[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
        #[payload(marker = "NOTE")]
        pub struct Note {
            /// Its text.
            pub text: String,
        }
    }

    fn cli(args: &[&str]) -> Result<String, CliError> {
        let mut out = Vec::new();
        run(args.iter().copied(), &registry(), &mut out)?;
        Ok(String::from_utf8(out).unwrap())
    }

    #[test]
    fn the_command_prints_each_target_for_a_page_and_a_type() {
        let lark = cli(&["payload", "grammar", "--page", "notes", "--target", "lark"]).unwrap();
        assert!(lark.contains("hd_note[lazy]: TEXT /NOTE"), "{lark}");
        let gbnf = cli(&["payload", "grammar", "--type", "note", "--target", "gbnf"]).unwrap();
        assert!(
            gbnf.starts_with("# A whole response") && gbnf.contains("root ::="),
            "{gbnf}"
        );
        let tag = cli(&[
            "payload",
            "grammar",
            "--page",
            "notes",
            "--target",
            "structural-tag",
        ])
        .unwrap();
        let tag: Value = serde_json::from_str(&tag).unwrap();
        assert_eq!(tag["format"]["triggers"][0], "NOTE:");
        let json = cli(&[
            "payload", "grammar", "--page", "notes", "--target", "gbnf", "--json",
        ])
        .unwrap();
        let json: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(json["target"], "gbnf");
        assert!(
            json["unsupported"]
                .as_array()
                .unwrap()
                .iter()
                .any(|u| u["feature"] == "other spellings of a marker")
        );
    }

    #[test]
    fn wrong_targets_formats_and_pages_are_errors() {
        let bad = cli(&["payload", "grammar", "--page", "notes", "--target", "yaml"]).unwrap_err();
        assert!(bad.to_string().contains("structural-tag, lark or gbnf"));
        let xml = cli(&[
            "payload", "grammar", "--type", "note", "--target", "lark", "--format", "xml",
        ])
        .unwrap_err();
        assert!(xml.to_string().contains("json"));
        assert!(cli(&["payload", "grammar", "--page", "nope", "--target", "lark"]).is_err());
    }
}
