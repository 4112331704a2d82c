//! The rules every format shares: truncation (docs/spec.md §4.5), duplicates (§7.3), markdown
//! headers (§4.6), depth (§8.3) and bounded reports (§8.1), format by format.

use super::tests::analysis_schema;
use super::*;
use crate::warning::WarningKind;
use serde_json::json;

fn read(format: Format, text: &str) -> FormatRead {
    read_as(format, text, &analysis_schema())
}

/// The kinds and paths of a failure's errors.
fn errors(read: &FormatRead) -> Vec<(ErrorKind, String)> {
    match &read.result {
        Ok(value) => panic!("accepted {value}"),
        Err(failure) => failure
            .errors
            .iter()
            .map(|e| (e.kind(), e.path().to_owned()))
            .collect(),
    }
}

fn warned(read: &FormatRead, kind: WarningKind) -> Vec<&str> {
    read.warnings
        .iter()
        .filter(|w| w.kind == kind)
        .map(|w| w.message.as_str())
        .collect()
}

fn value(read: &FormatRead) -> &Value {
    match &read.result {
        Ok(value) => value,
        Err(failure) => panic!("not read: {failure}"),
    }
}

fn truncated_at(path: &str) -> Vec<(ErrorKind, String)> {
    vec![(ErrorKind::Truncated, path.to_string())]
}

#[test]
fn a_cut_xml_value_is_truncated_at_its_path_and_never_taken() {
    let text = "<analysis-result>\n<analysis>Growth</analysis>\n<confidence>0.8";
    let read = read(Format::Xml, text);
    assert_eq!(errors(&read), truncated_at("/confidence"));
    let failure = read.result.unwrap_err();
    let error = &failure.errors[0];
    assert!(
        error.message().contains("<confidence>"),
        "{}",
        error.message()
    );
    assert!(
        error.suggestion().unwrap().contains("</confidence>"),
        "{error:?}"
    );
    assert_eq!(error.location(), Some(Location { line: 3, column: 1 }));
    // The cut 0.8 is not taken, not even as partial data; the closed member is.
    assert_eq!(failure.partial, json!({"analysis": "Growth"}));
}

#[test]
fn every_way_xml_can_end_open_is_truncated() {
    let cases = [
        // The root never closes, though every field did.
        (
            "<analysis-result><analysis>Growth</analysis></analysis-result",
            "",
        ),
        ("<analysis-result><analysis>Growth</analysis>", ""),
        // Inside a list: the items so far are not the array.
        (
            "<analysis-result><analysis>G</analysis><recommendations><recommendation>Buy</recommendation><recommendation>Ho",
            "/recommendations/1",
        ),
        (
            "<analysis-result><analysis>G</analysis><recommendations><recommendation>Buy</recommendation>",
            "/recommendations",
        ),
        // Inside a close tag, an attribute, a comment, a CDATA section.
        ("<analysis-result><analysis>Growth</analysi", "/analysis"),
        ("<analysis-result><analysis note=\"a", ""),
        ("<analysis-result><analysis>Growth</analysis><!-- more", ""),
        ("<analysis-result><analysis><![CDATA[Grow", "/analysis"),
    ];
    for (text, path) in cases {
        let read = read(Format::Xml, text);
        assert_eq!(errors(&read)[0], truncated_at(path)[0], "{text}");
        if let Err(failure) = &read.result {
            assert!(failure.partial.get("recommendations").is_none(), "{text}");
        }
    }
}

#[test]
fn a_forgotten_close_tag_or_a_cut_after_the_root_is_not_a_truncation() {
    // Closed by an ancestor's close tag: forgotten, read as before.
    let text = "<analysis-result><analysis>Growth\n<confidence>0.8</confidence></analysis-result>";
    let read = read(Format::Xml, text);
    assert_eq!(
        value(&read),
        &json!({"analysis": "Growth", "confidence": 0.8})
    );
    assert!(read.warnings.is_empty(), "{:?}", read.warnings);
    // Once the root closes, what follows is prose, even cut prose.
    let text = "<analysis-result><analysis>Growth</analysis></analysis-result>\nIf a<b";
    assert_eq!(
        value(&read_as(Format::Xml, text, &analysis_schema())),
        &json!({"analysis": "Growth"})
    );
}

#[test]
fn a_cut_tagged_response_is_truncated() {
    let cases = [
        (
            "<ANALYSIS>Growth</ANALYSIS>\n<CONFIDENCE>0.8",
            "/confidence",
        ),
        (
            "<ANALYSIS>Growth</ANALYSIS>\n<CONFIDENCE>0.87</CONF",
            "/confidence",
        ),
        ("<ANALYSIS>Growth</ANALYSIS>\n<RECOMM", ""),
        ("<ANALYSIS>Growth</ANALYSIS>\n<", ""),
        (
            "<ANALYSIS>Growth</ANALYSIS>\n<RECOMMENDATIONS>Buy",
            "/recommendations/0",
        ),
    ];
    for (text, path) in cases {
        assert_eq!(
            errors(&read(Format::Tagged, text)),
            truncated_at(path),
            "{text}"
        );
    }
}

#[test]
fn a_tagged_response_that_could_go_on_is_flagged_and_a_finished_one_is_not() {
    // Cut between two fields: the later field is absent.
    let read1 = read(Format::Tagged, "<ANALYSIS>Growth</ANALYSIS>\n");
    assert_eq!(value(&read1), &json!({"analysis": "Growth"}));
    let flagged = warned(&read1, WarningKind::PossiblyTruncated);
    assert_eq!(flagged.len(), 1);
    assert!(
        flagged[0].contains("'confidence', 'recommendations' are absent"),
        "{flagged:?}"
    );
    // Ending with an item written as its own tag: the next item may be cut.
    let read2 = read(
        Format::Tagged,
        "<ANALYSIS>G</ANALYSIS><CONFIDENCE>0.8</CONFIDENCE><RECOMMENDATIONS>Buy</RECOMMENDATIONS>",
    );
    assert_eq!(warned(&read2, WarningKind::PossiblyTruncated).len(), 1);
    // Ending with the last declared field, whole, or with its list in one tag: no doubt.
    for text in [
        "<ANALYSIS>G</ANALYSIS><RECOMMENDATIONS>\n- Buy\n- Hold\n</RECOMMENDATIONS><CONFIDENCE>0.8</CONFIDENCE>",
        "<ANALYSIS>G</ANALYSIS><CONFIDENCE>0.8</CONFIDENCE><RECOMMENDATIONS>\n- Buy\n- Hold\n</RECOMMENDATIONS>",
        "<RESPONSE><ANALYSIS>G</ANALYSIS></RESPONSE>",
    ] {
        let read = read(Format::Tagged, text);
        assert!(read.result.is_ok(), "{text}");
        assert!(read.warnings.is_empty(), "{text}: {:?}", read.warnings);
    }
}

fn delimited_schema(end_pattern: bool) -> Value {
    let mut schema = analysis_schema();
    schema["x-format"]["delimited"] = if end_pattern {
        json!({"section-pattern": "[{NAME}]", "end-pattern": "[/{NAME}]"})
    } else {
        json!({"section-pattern": "[{NAME}]"})
    };
    schema
}

#[test]
fn delimited_sections_are_truncated_when_end_lines_are_expected() {
    let configured = delimited_schema(true);
    let text = "[ANALYSIS]\nGrowth\n[/ANALYSIS]\n[CONFIDENCE]\n0.8";
    let read = read_as(Format::Delimited, text, &configured);
    assert_eq!(errors(&read), truncated_at("/confidence"));
    let suggestion = read.result.unwrap_err().errors[0]
        .suggestion()
        .map(str::to_owned)
        .unwrap();
    assert!(suggestion.contains("[/CONFIDENCE]"), "{suggestion}");
    // Not configured, but the response closes its sections: its own convention.
    let schema = delimited_schema(false);
    let text = "[ANALYSIS]\nGrowth\n[END-ANALYSIS]\n[RECOMMENDATIONS]\n- Buy\n- Ho";
    let read = read_as(Format::Delimited, text, &schema);
    assert_eq!(errors(&read), truncated_at("/recommendations/1"));
    // A forgotten END line before another section is not a cut.
    let text = "[ANALYSIS]\nGrowth\n[CONFIDENCE]\n0.8\n[/CONFIDENCE]\n";
    let read = read_as(Format::Delimited, text, &configured);
    assert_eq!(
        value(&read),
        &json!({"analysis": "Growth", "confidence": 0.8})
    );
}

#[test]
fn delimited_sections_without_end_lines_may_have_been_cut() {
    let schema = delimited_schema(false);
    let text = "[ANALYSIS]\nGrowth\n[CONFIDENCE]\n0.8";
    let read = read_as(Format::Delimited, text, &schema);
    assert_eq!(
        value(&read),
        &json!({"analysis": "Growth", "confidence": 0.8})
    );
    let flagged = warned(&read, WarningKind::PossiblyTruncated);
    assert!(
        flagged.len() == 1 && flagged[0].contains("'/confidence'"),
        "{flagged:?}"
    );
    // Closed by its END line, with nothing declared after it absent: whole.
    let text = "[ANALYSIS]\nGrowth\n[RECOMMENDATIONS]\n- Buy\n[END-RECOMMENDATIONS]\n[CONFIDENCE]\n0.8\n[END-CONFIDENCE]\n";
    let read = read_as(Format::Delimited, text, &schema);
    assert!(read.warnings.is_empty(), "{:?}", read.warnings);
    // Closed, but a later field is absent: a cut between sections looks like this.
    let text = "[ANALYSIS]\nGrowth\n[END-ANALYSIS]\n";
    let read = read_as(Format::Delimited, text, &schema);
    assert_eq!(warned(&read, WarningKind::PossiblyTruncated).len(), 1);
}

#[test]
fn the_last_markdown_section_may_have_been_cut_unless_its_end_shows() {
    let text = "## Analysis\nGrowth\n\n## Recommendations\n- Buy\n- Hold lo";
    let read1 = read(Format::Markdown, text);
    assert_eq!(value(&read1)["recommendations"], json!(["Buy", "Hold lo"]));
    let flagged = warned(&read1, WarningKind::PossiblyTruncated);
    assert!(
        flagged.len() == 1 && flagged[0].contains("'/recommendations/1'"),
        "{flagged:?}"
    );
    let bold = "**Analysis:** Growth\n**Confidence:** 0.8";
    let flagged = warned(
        &read(Format::Markdown, bold),
        WarningKind::PossiblyTruncated,
    )
    .len();
    assert_eq!(flagged, 1);
    // A fenced response whose fence closes, or a last section that ends by closing
    // its code block, has a visible end.
    let whole = [
        "```markdown\n## Analysis\nGrowth\n## Confidence\n0.8\n## Recommendations\n- Buy\n```",
        "## Confidence\n0.8\n## Recommendations\n- Buy\n## Analysis\n```\nGrowth\n```\n",
    ];
    for text in whole {
        let read = read(Format::Markdown, text);
        assert!(read.result.is_ok(), "{text}");
        assert!(read.warnings.is_empty(), "{text}: {:?}", read.warnings);
    }
    // A fence that never closes is a cut like any other.
    let text = "```markdown\n## Analysis\nGrowth";
    assert_eq!(
        warned(
            &read(Format::Markdown, text),
            WarningKind::PossiblyTruncated
        )
        .len(),
        1
    );
}

#[test]
fn a_field_written_twice_keeps_the_last_value_in_every_format() {
    let cases = [
        (
            Format::Xml,
            "<analysis-result><analysis>A</analysis><confidence>0.5</confidence><confidence>0.9</confidence></analysis-result>",
        ),
        (
            Format::Xml,
            "<analysis-result confidence=\"0.5\"><analysis>A</analysis><confidence>0.9</confidence></analysis-result>",
        ),
        (
            Format::Tagged,
            "<ANALYSIS>A</ANALYSIS><CONFIDENCE>0.5</CONFIDENCE>\n<Confidence>0.9</Confidence>\n<CONFIDENCE>0.9</CONFIDENCE>",
        ),
        (
            Format::Delimited,
            "====ANALYSIS====\nA\n====CONFIDENCE====\n0.5\n====confidence====\n0.9",
        ),
        (
            Format::Markdown,
            "## Analysis\nA\n## Confidence\n0.5\n**Confidence:** 0.9",
        ),
    ];
    for (format, text) in cases {
        let read = read(format, text);
        assert_eq!(value(&read)["confidence"], json!(0.9), "{format}: {text}");
        let duplicates = warned(&read, WarningKind::DuplicateKey);
        assert_eq!(duplicates.len(), 1, "{format}: {:?}", read.warnings);
        assert!(duplicates[0].contains("'/confidence'"), "{duplicates:?}");
    }
    // The earlier value loses even when only the earlier one is valid: the model's
    // last word stands, and validation says what is wrong with it.
    let read = read(
        Format::Tagged,
        "<ANALYSIS>A</ANALYSIS><ANALYSIS>B</ANALYSIS>",
    );
    assert_eq!(value(&read)["analysis"], json!("B"));
}

#[test]
fn repeated_parts_of_an_array_field_stay_an_array() {
    let cases = [
        (
            Format::Tagged,
            "<ANALYSIS>A</ANALYSIS><RECOMMENDATIONS>Buy</RECOMMENDATIONS><RECOMMENDATIONS>Hold</RECOMMENDATIONS><CONFIDENCE>1</CONFIDENCE>",
        ),
        (
            Format::Xml,
            "<analysis-result><analysis>A</analysis><recommendation>Buy</recommendation><recommendation>Hold</recommendation></analysis-result>",
        ),
    ];
    for (format, text) in cases {
        let read = read(format, text);
        assert_eq!(
            value(&read)["recommendations"],
            json!(["Buy", "Hold"]),
            "{format}"
        );
        assert!(
            warned(&read, WarningKind::DuplicateKey).is_empty(),
            "{format}"
        );
    }
}

#[test]
fn free_keys_written_twice_keep_the_last_value() {
    let schema = json!({"type": "object", "properties": {
        "meta": {"type": "object", "additionalProperties": {"type": "string"}}}});
    let text = "<meta><a>1</a><b>2</b><a>3</a></meta>";
    let read = read_as(Format::Tagged, text, &schema);
    assert_eq!(value(&read), &json!({"meta": {"a": "3", "b": "2"}}));
    assert_eq!(warned(&read, WarningKind::DuplicateKey).len(), 1);
}

#[test]
fn markdown_headers_match_in_any_case_at_any_level_and_as_bold_lines() {
    let want = json!({"analysis": "Growth", "confidence": 0.8, "recommendations": ["Buy"]});
    let cases = [
        "# ANALYSIS\nGrowth\n###### confidence\n0.8\n### RecommendationS\n- Buy",
        "**Analysis**\nGrowth\n\n**Confidence:**\n0.8\n\n**Recommendations**:\n- Buy",
        "__Analysis__\nGrowth\n**CONFIDENCE**\n0.8\n## Recommendations\n- Buy",
        "Here is my answer.\n\n**Analysis**\nGrowth\n**Confidence** \n0.8\n**Recommendations**\n- Buy",
    ];
    for text in cases {
        assert_eq!(value(&read(Format::Markdown, text)), &want, "{text}");
        assert_eq!(
            detect(text, &analysis_schema())[0].0,
            Format::Markdown,
            "{text}"
        );
    }
    // Bold text that names no field is emphasis inside the value, kept as written.
    let text = "## Analysis\nGrowth\n**Key point**\nStrong\n## Confidence\n0.8";
    assert_eq!(
        value(&read(Format::Markdown, text))["analysis"],
        json!("Growth\n**Key point**\nStrong")
    );
}

/// `n` levels of parts in `format` (level 1 is the outermost), the innermost holding
/// text, as the `extra` field of a schema that takes any value.
fn nested(format: Format, n: usize) -> String {
    match format {
        Format::Xml => format!(
            "<note><text>a</text>{}x{}</note>",
            "<extra>".to_string() + &"<x>".repeat(n - 2),
            "</x>".repeat(n - 2) + "</extra>"
        ),
        Format::Tagged => format!(
            "<TEXT>a</TEXT>\n<EXTRA>{}x{}</EXTRA>",
            "<x>".repeat(n - 1),
            "</x>".repeat(n - 1)
        ),
        Format::Delimited => format!(
            "---TEXT---\na\n---END-TEXT---\n---EXTRA---\n{}x\n{}---END-EXTRA---\n",
            "---X---\n".repeat(n - 1),
            "---END-X---\n".repeat(n - 1)
        ),
        _ => unreachable!("markdown cannot nest past seven levels"),
    }
}

/// `extra` is a recursive value: an object of `x`, or text.
fn note_schema() -> Value {
    json!({"type": "object",
           "properties": {"text": {"type": "string"}, "extra": {"$ref": "#/$defs/X"}},
           "required": ["text"],
           "$defs": {"X": {"anyOf": [
               {"type": "object", "properties": {"x": {"$ref": "#/$defs/X"}}},
               {"type": "string"}]}}})
}

#[test]
fn level_128_is_read_and_level_129_is_a_parsing_error_in_every_reader() {
    use crate::limits::MAX_DEPTH;
    for format in [Format::Xml, Format::Tagged, Format::Delimited] {
        let read = read_as(format, &nested(format, MAX_DEPTH), &note_schema());
        let mut inner = &value(&read)["extra"];
        let mut levels = 1;
        while let Some(next) = inner.get("x") {
            inner = next;
            levels += 1;
        }
        let top = if format == Format::Xml { 2 } else { 1 };
        assert_eq!(
            (levels + top - 1, inner),
            (MAX_DEPTH, &json!("x")),
            "{format}"
        );
        // One level more: the reader stops there, with one error and nothing read.
        let read = read_as(format, &nested(format, MAX_DEPTH + 1), &note_schema());
        let failure = read.result.unwrap_err();
        assert_eq!(failure.errors.len(), 1, "{format}: {:?}", failure.errors);
        assert_eq!(failure.errors[0].kind(), ErrorKind::Parsing);
        assert!(failure.errors[0].message().contains("deeper than 128"));
        assert!(failure.errors[0].location().is_some());
        assert_eq!(failure.partial, json!({}));
    }
}

#[test]
fn many_problems_are_capped_and_counted() {
    use crate::caps::{MAX_ERRORS, MAX_WARNINGS};
    let schema = json!({"type": "object", "properties": {
        "a": {"type": "string"},
        "n": {"type": "array", "items": {"type": "integer"}}}});
    let text = "<A>x</A>\n".repeat(500) + "<N>no</N>".repeat(500).as_str() + "<A>x</A>";
    let read = read_as(Format::Tagged, &text, &schema);
    assert_eq!(
        warned(&read, WarningKind::DuplicateKey).len(),
        1,
        "{:?}",
        read.warnings
    );
    let failure = read.result.unwrap_err();
    assert_eq!(failure.errors.len(), MAX_ERRORS + 1);
    assert!(failure.errors[MAX_ERRORS].message().starts_with("400 more"));
    // Duplicates of many fields: one warning each, capped.
    let schema = json!({"type": "object", "additionalProperties": {"type": "string"}});
    let text: String = (0..300)
        .map(|i| format!("<k{i}>a</k{i}><k{i}>b</k{i}>"))
        .collect();
    let read = read_as(Format::Xml, &format!("<r>{text}</r>"), &schema);
    assert_eq!(read.warnings.len(), MAX_WARNINGS + 1);
    assert_eq!(read.warnings[MAX_WARNINGS].kind, WarningKind::Omitted);
    assert!(read.warnings[MAX_WARNINGS].message.starts_with("200 more"));
}
