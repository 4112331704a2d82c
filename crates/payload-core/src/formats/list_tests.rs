//! Lists end where markdown says (docs/spec.md §4.8): a blank line followed by a line that is
//! neither indented nor a list item ends a list, so a closing remark is never read as
//! part of the last item, in every format whose lists are markdown lists.

use super::tests::analysis_schema;
use super::*;
use proptest::prelude::*;
use serde_json::json;

fn words() -> impl Strategy<Value = String> {
    prop::collection::vec("[A-Za-z][a-z]{0,6}", 1..4).prop_map(|w| w.join(" "))
}

/// A line of prose: a capitalised sentence that is not a list item, a header or a
/// marker line.
fn remark() -> impl Strategy<Value = String> {
    (
        "[A-Z][a-z]{1,8}",
        prop::collection::vec("[a-z]{1,8}", 0..6),
        "[.!]?",
    )
        .prop_map(|(first, rest, end)| format!("{first} {}{end}", rest.join(" ")))
}

/// The recommendations as a list of `style`: bullets, numbers or stars.
fn list(items: &[String], style: u8, crlf: bool) -> String {
    let newline = if crlf { "\r\n" } else { "\n" };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| match style % 3 {
            0 => format!("- {item}{newline}"),
            1 => format!("{}. {item}{newline}", i + 1),
            _ => format!("* {item}{newline}"),
        })
        .collect()
}

fn recommendations(format: Format, text: &str) -> Value {
    match read_as(format, text, &analysis_schema()).result {
        Ok(value) => value["recommendations"].clone(),
        Err(failure) => panic!("{format} did not read: {failure}\n{text}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn a_closing_remark_is_never_the_last_item(
        analysis in words(),
        items in prop::collection::vec(words(), 1..5),
        remarks in prop::collection::vec(remark(), 1..3),
        style in any::<u8>(),
        crlf in any::<bool>(),
    ) {
        let newline = if crlf { "\r\n" } else { "\n" };
        let closing = format!("{newline}{}{newline}", remarks.join(newline));
        let list = list(&items, style, crlf);
        let expected = json!(items);
        let markdown = format!(
            "## Analysis{newline}{analysis}{newline}{newline}## Recommendations{newline}{list}{closing}"
        );
        prop_assert_eq!(recommendations(Format::Markdown, &markdown), expected.clone(), "{}", markdown);
        let delimited = format!(
            "====ANALYSIS===={newline}{analysis}{newline}====RECOMMENDATIONS===={newline}{list}{closing}"
        );
        prop_assert_eq!(recommendations(Format::Delimited, &delimited), expected, "{}", delimited);
    }
}

#[test]
fn an_indented_paragraph_after_a_blank_line_stays_in_its_item() {
    let text = "## Analysis\nGrowth\n\n## Recommendations\n- Buy\n- Hold\n\n  for a year\n\nLet me know if you need more.";
    assert_eq!(
        recommendations(Format::Markdown, text),
        json!(["Buy", "Hold for a year"])
    );
}
