//! `payload grammar --page PAGE | --type NAME --target structural-tag|lark|gbnf
//! [--format json] [--json]`: the grammar on stdout and, so it is never missed, what
//! the target cannot express on stderr (one line each), or all of it as JSON.

use crate::error::CliError;
use crate::find_type;
use payload_grammar::{Grammar, Target, page_grammar, type_grammar};
#[cfg(feature = "providers")]
use payload_providers::Constraint;
use payload_registry::Registry;
use std::io::Write;

fn target(name: &str) -> Result<Target, CliError> {
    name.parse().map_err(CliError::Grammar)
}

/// Prints the grammar asked for.
pub(crate) fn run(
    registry: &Registry,
    page: Option<&str>,
    type_name: Option<&str>,
    target_name: &str,
    format: &str,
    json: bool,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let target = target(target_name)?;
    let grammar = match (page, type_name) {
        (Some(page), _) => page_grammar(registry, page, target),
        (None, Some(name)) => type_grammar(find_type(registry, name)?, target, format),
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

/// The page's grammar in `target_name`, as a constraint for the OpenAI-compatible client.
#[cfg(feature = "providers")]
pub(crate) fn constraint(
    registry: &Registry,
    page: &str,
    target_name: &str,
) -> Result<Constraint, CliError> {
    let target = target(target_name)?;
    let grammar =
        page_grammar(registry, page, target).map_err(|e| CliError::Grammar(e.to_string()))?;
    report(&grammar);
    Ok(match target {
        Target::Lark => Constraint::Lark(grammar.text),
        Target::Gbnf => Constraint::Gbnf(grammar.text),
        Target::StructuralTag => Constraint::StructuralTag(
            serde_json::from_str(&grammar.text).map_err(|e| CliError::Grammar(e.to_string()))?,
        ),
    })
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
        assert_eq!(tag["triggers"][0], "NOTE:");
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
                .any(|u| u["feature"] == "free text without markers")
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
