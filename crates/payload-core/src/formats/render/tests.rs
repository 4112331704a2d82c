//! Every rendering reads back, through the format's own reader, to the value written.

use super::*;
use crate::formats::parse_as;
use crate::formats::tests::analysis_schema;
use serde_json::json;

/// A schema with a nested object, an optional field, an enum, a boolean, an integer
/// and an array of objects, without any `x-format`.
fn nested_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "status": {"type": "string", "enum": ["open", "done"]},
            "count": {"type": "integer"},
            "urgent": {"type": "boolean"},
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "owner": {"$ref": "#/$defs/Owner"},
            "rows": {"type": "array", "items": {"$ref": "#/$defs/Row"}}
        },
        "required": ["title", "status", "count", "urgent", "owner", "rows"],
        "$defs": {
            "Owner": {"type": "object", "properties": {
                "name": {"type": "string"}, "end_date": {"type": "string"}}},
            "Row": {"type": "object", "properties": {
                "key": {"type": "string"}, "value": {"type": "number"}}}
        }
    })
}

fn nested_value() -> Value {
    json!({"title": "R&D <budget> review", "status": "open", "count": 3, "urgent": false,
           "note": null, "owner": {"name": "Ada", "end_date": "2025-01-31"},
           "rows": [{"key": "a", "value": 1.5}, {"key": "b", "value": 2}]})
}

fn without_nulls(mut value: Value) -> Value {
    if let Value::Object(map) = &mut value {
        map.retain(|_, v| !v.is_null());
    }
    value
}

fn round_trip(format: Format, schema: &Value, value: &Value) {
    let text = render(format, value, schema);
    let back = parse_as(format, &text, schema)
        .unwrap_or_else(|e| panic!("{format} does not read back: {e}\n{text}"));
    assert_eq!(
        without_nulls(back),
        without_nulls(value.clone()),
        "{format}:\n{text}"
    );
}

#[test]
fn the_seed_analysis_renders_as_the_seed_shows_it() {
    let schema = analysis_schema();
    let value = json!({"analysis": "Market shows strong growth", "confidence": 0.87,
                       "recommendations": ["Buy", "Hold long-term"]});
    assert_eq!(
        render(Format::Xml, &value, &schema),
        "<analysis-result>\n  <analysis>Market shows strong growth</analysis>\n  <confidence>0.87</confidence>\n  <recommendations>\n    <recommendation>Buy</recommendation>\n    <recommendation>Hold long-term</recommendation>\n  </recommendations>\n</analysis-result>"
    );
    assert_eq!(
        render(Format::Delimited, &value, &schema),
        "====ANALYSIS====\nMarket shows strong growth\n\n====CONFIDENCE====\n0.87\n\n====RECOMMENDATIONS====\n- Buy\n- Hold long-term"
    );
    assert_eq!(
        render(Format::Tagged, &value, &schema),
        "<ANALYSIS>Market shows strong growth</ANALYSIS>\n<CONFIDENCE>0.87</CONFIDENCE>\n<RECOMMENDATIONS>Buy</RECOMMENDATIONS>\n<RECOMMENDATIONS>Hold long-term</RECOMMENDATIONS>"
    );
    assert_eq!(
        render(Format::Markdown, &value, &schema),
        "## Analysis\nMarket shows strong growth\n\n## Confidence\n0.87\n\n## Recommendations\n- Buy\n- Hold long-term"
    );
    for format in Format::ALL {
        round_trip(format, &schema, &value);
    }
}

#[test]
fn delimited_defaults_to_the_seed_end_markers_and_numbered_lists() {
    let schema = json!({"type": "object", "properties": {
        "task": {"type": "string"},
        "steps": {"type": "array", "items": {"type": "string"}}}});
    let value = json!({"task": "Parse configuration files", "steps": ["Read file", "Parse JSON"]});
    assert_eq!(
        render(Format::Delimited, &value, &schema),
        "---TASK---\nParse configuration files\n---END-TASK---\n\n---STEPS---\n1. Read file\n2. Parse JSON\n---END-STEPS---"
    );
    round_trip(Format::Delimited, &schema, &value);
}

#[test]
fn nested_objects_enums_and_escapes_read_back() {
    let schema = nested_schema();
    let value = nested_value();
    round_trip(Format::Xml, &schema, &value);
    round_trip(Format::Tagged, &schema, &value);
    let mut no_rows = value.clone();
    no_rows["rows"] = json!([]);
    for format in Format::ALL {
        round_trip(format, &schema, &no_rows);
    }
    let xml = render(Format::Xml, &value, &schema);
    assert!(
        xml.contains("<title>R&amp;D &lt;budget&gt; review</title>"),
        "{xml}"
    );
    assert!(!xml.contains("<note>"), "nulls are left out:\n{xml}");
}

#[test]
fn options_for_attributes_cdata_fences_and_custom_names() {
    let schema = json!({
        "type": "object",
        "properties": {
            "id": {"type": "string", "x-format": {"xml": {"attribute": true}}},
            "code": {"type": "string", "x-format": {
                "xml": {"cdata": true}, "markdown": {"code-fence": "rust"}}},
            "tags": {"type": "array", "items": {"type": "string"}, "x-format": {
                "tagged": {"tag": "LABELS", "multi-value": "comma-separated"},
                "markdown": {"header": "## Labels", "list-style": "ordered"},
                "delimited": {"list-format": "plain"}}}
        }
    });
    let value = json!({"id": "7", "code": "if a < b && c {}", "tags": ["x", "y"]});
    for format in Format::ALL {
        round_trip(format, &schema, &value);
    }
    let xml = render(Format::Xml, &value, &schema);
    assert!(xml.starts_with("<response id=\"7\">"), "{xml}");
    assert!(xml.contains("<![CDATA[if a < b && c {}]]>"), "{xml}");
    assert!(render(Format::Tagged, &value, &schema).contains("<LABELS>x, y</LABELS>"));
    let md = render(Format::Markdown, &value, &schema);
    assert!(
        md.contains("```rust\nif a < b && c {}\n```") && md.contains("## Labels\n1. x\n2. y"),
        "{md}"
    );
}

#[test]
fn what_a_format_cannot_write_is_named() {
    let schema = nested_schema();
    assert_eq!(expressible(Format::Xml, &schema), Ok(()));
    assert_eq!(expressible(Format::Tagged, &schema), Ok(()));
    assert_eq!(
        expressible(Format::Markdown, &schema).map_err(|e| e.to_string()),
        Err("field 'rows' is an array of objects, which markdown cannot write".into())
    );
    let map = json!({"type": "object", "properties": {
        "extra": {"type": "object", "additionalProperties": {"type": "string"}}}});
    assert_eq!(
        expressible(Format::Xml, &map).map_err(|e| e.to_string()),
        Err("field 'extra' is a map with free-form keys".into())
    );
    let array = json!({"type": "array", "items": {"type": "string"}});
    assert!(expressible(Format::Tagged, &array).is_err());
    assert_eq!(expressible(Format::Json, &array), Ok(()));
    let recursive = json!({"$ref": "#/$defs/N", "$defs": {"N": {"type": "object",
        "properties": {"a": {"$ref": "#/$defs/N"}, "b": {"$ref": "#/$defs/N"}}}}});
    assert!(expressible(Format::Xml, &recursive).is_err());
}
