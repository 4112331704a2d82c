//! Every registered type, in every text format that can write it: the example rendered
//! in the format (as the instructions show it) reads back through `extract_as` to the
//! example value, and the instructions of each format carry that same rendering.

use payload_core::formats::{Format, expressible, render};
use payload_core::{extract_as, schema::Dialect};
use payload_instructions::{InstructionOptions, whole_response_instructions_in};
use payload_registry::Registry;
use serde_json::Value;

use payload_tests as _;

const TEXT_FORMATS: [Format; 4] = [
    Format::Xml,
    Format::Delimited,
    Format::Tagged,
    Format::Markdown,
];

/// An absent optional member and a `null` one decode to the same `None`. An empty list
/// is dropped too: in the text formats an empty `Option<Vec<_>>` field (`<media></media>`)
/// reads as `None`, as a person would read it; that non-nullable empty lists read back
/// as `[]` is checked in the renderer's own tests.
fn without_null_members(value: &Value) -> Value {
    let mut value = value.clone();
    let mut stack = vec![&mut value];
    while let Some(node) = stack.pop() {
        match node {
            Value::Object(map) => {
                map.retain(|_, v| !v.is_null() && v.as_array().is_none_or(|a| !a.is_empty()));
                stack.extend(map.values_mut());
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
    value
}

#[test]
fn every_example_round_trips_through_every_format_that_can_write_it() {
    let mut checked = Vec::new();
    let mut refused = Vec::new();
    for t in Registry::global().types() {
        let schema = t.schema(Dialect::Draft2020_12);
        let example = t.example().expect("every registered type has an example");
        for format in TEXT_FORMATS {
            if let Err(reason) = expressible(format, &schema) {
                refused.push(format!("{} {format}: {reason}", t.name));
                continue;
            }
            let text = render(format, &example, &schema);
            let result = extract_as(&text, t, Some(format));
            assert!(
                result.success,
                "{} in {format} does not read back:\n{text}\n{:#?}",
                t.name, result.errors
            );
            assert_eq!(
                without_null_members(result.data.as_ref().unwrap()),
                without_null_members(&example),
                "{} {format}:\n{text}",
                t.name
            );
            // Detection finds the format too: the example is what a model copies.
            let detected = extract_as(&text, t, None);
            assert_eq!(detected.format, format.as_str(), "{} {format}", t.name);
            assert!(detected.success, "{} {format} auto", t.name);
            checked.push(format!("{} {format}", t.name));
        }
    }
    println!("round-tripped {} type/format pairs", checked.len());
    println!("refused:\n{}", refused.join("\n"));
    // Most types are flat or nested objects; the refusals are maps, unions and
    // top-level arrays. This guards against a change that refuses everything.
    assert!(checked.len() >= 40, "{checked:?}");
    assert!(checked.contains(&"analysis_result xml".to_string()));
    assert!(checked.contains(&"task_plan delimited".to_string()));
}

#[test]
fn every_example_sent_inside_a_json_string_reads_as_itself() {
    // docs/values.md, "A value sent inside a string": for every registered type whose
    // answer is an object or an array, the example serialized twice reads as the
    // example serialized once, with one more warning, in `json` and in `auto`.
    let mut checked = 0;
    for t in Registry::global().types() {
        let example = t.example().expect("every registered type has an example");
        if !(example.is_object() || example.is_array()) {
            continue;
        }
        let once = example.to_string();
        let twice = serde_json::to_string(&once).unwrap();
        for format in [Some(Format::Json), None] {
            let plain = extract_as(&once, t, format);
            let read = extract_as(&twice, t, format);
            assert!(read.success, "{}: {:#?}", t.name, read.errors);
            assert_eq!(read.data, plain.data, "{}", t.name);
            assert_eq!(read.warnings[1..], plain.warnings[..], "{}", t.name);
            assert!(read.warnings[0].message.contains("inside a JSON string"));
        }
        checked += 1;
    }
    assert!(checked >= 15, "{checked}");
}

#[test]
fn the_instructions_show_the_example_as_rendered() {
    for t in Registry::global().types() {
        let schema = t.schema(Dialect::Draft2020_12);
        let example = t.example().expect("every registered type has an example");
        for format in TEXT_FORMATS {
            if expressible(format, &schema).is_err() {
                continue;
            }
            let text = whole_response_instructions_in(t, format, &InstructionOptions::default());
            let rendered = render(format, &example, &schema);
            assert!(
                text.contains(&format!(
                    "\nEXAMPLE OUTPUT:\n{rendered}\n\nVALIDATION REQUIREMENTS:\n"
                )),
                "{} {format}:\n{text}",
                t.name
            );
        }
    }
}

#[test]
fn instructions_of_the_seed_types_in_every_format() {
    for name in ["analysis_result", "task_plan"] {
        let t = Registry::global().payload_type(name).expect("registered");
        for format in TEXT_FORMATS {
            let text = whole_response_instructions_in(t, format, &InstructionOptions::default());
            insta::assert_snapshot!(format!("instructions_{format}_{name}"), text);
        }
    }
}

/// Per-type and per-field format options are schemars attributes: they land in the
/// published schema as `x-format`, and the readers, hints and instructions follow them.
mod field_options {
    use super::*;
    use payload_core::LlmPayload;
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    /// A code review.
    #[derive(Debug, Serialize, Deserialize, JsonSchema, LlmPayload)]
    #[payload(example = review)]
    #[schemars(extend("x-format" = {"xml": {"root-element": "review"}}))]
    pub struct Review {
        /// The patched code.
        #[schemars(extend("x-format" = {
            "xml": {"cdata": true},
            "markdown": {"header": "## Patched code", "code-fence": "rust"}
        }))]
        pub code: String,
        /// What to fix.
        #[schemars(extend("x-format" = {
            "xml": {"element": "findings", "item-element": "finding"},
            "tagged": {"tag": "FINDING"},
            "markdown": {"list-style": "ordered"}
        }))]
        pub issues: Vec<String>,
    }

    fn review() -> Review {
        Review {
            code: "if a < b && c {\n    run();\n}".into(),
            issues: vec!["Name the condition".into(), "Handle the error".into()],
        }
    }

    #[test]
    fn field_level_x_format_is_in_the_schema_and_is_followed() {
        let t = Review::TYPE;
        let schema = t.schema(Dialect::Draft2020_12);
        assert_eq!(schema["x-format"]["xml"]["root-element"], "review");
        assert_eq!(
            schema["properties"]["issues"]["x-format"]["xml"]["item-element"],
            "finding"
        );
        let example = t.example().unwrap();
        let xml = render(Format::Xml, &example, &schema);
        assert!(
            xml.starts_with("<review>\n  <code><![CDATA[if a < b"),
            "{xml}"
        );
        assert!(
            xml.contains("<findings>\n    <finding>Name the condition</finding>"),
            "{xml}"
        );
        let md = render(Format::Markdown, &example, &schema);
        assert!(md.starts_with("## Patched code\n```rust\n"), "{md}");
        assert!(
            md.contains("## Issues\n1. Name the condition\n2. Handle the error"),
            "{md}"
        );
        let tagged = render(Format::Tagged, &example, &schema);
        assert!(
            tagged.contains("<FINDING>Handle the error</FINDING>"),
            "{tagged}"
        );
        for format in TEXT_FORMATS {
            let text = render(format, &example, &schema);
            let result = extract_as(&text, &t, None);
            assert!(result.success, "{format}: {:#?}\n{text}", result.errors);
            assert_eq!(result.format, format.as_str(), "{text}");
            assert_eq!(result.data.unwrap(), example, "{format}");
        }
        let missing = extract_as("<review><code>x</code></review>", &t, Some(Format::Xml));
        let hint = missing.errors[0].suggestion().unwrap();
        assert!(
            hint.contains("In XML: <findings><finding>...</finding>"),
            "{hint}"
        );
    }
}

mod declared_format_options {
    use payload_core::{LlmPayload, schema::Dialect};
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};
    use serde_json::json;

    /// A release note.
    #[derive(Serialize, Deserialize, JsonSchema, LlmPayload)]
    #[serde(rename_all = "camelCase")]
    #[payload(format(xml(root = "release")))]
    struct ReleaseNote {
        #[payload(format(
            xml(element = "headline", cdata),
            markdown(header = "# Title", level = 1)
        ))]
        release_title: String,
        #[serde(rename = "items")]
        #[payload(format(xml(item = "change"), delimited(list = "numbered", prefix = "- ")))]
        changes: Vec<String>,
    }

    #[test]
    fn field_options_are_keyed_by_the_serialized_name() {
        let schema = ReleaseNote::TYPE.schema(Dialect::Draft2020_12);
        assert_eq!(
            schema["x-format"],
            json!({
                "xml": {"root-element": "release", "properties": {
                    "releaseTitle": {"element": "headline", "cdata": true},
                    "items": {"item-element": "change"}}},
                "markdown": {"properties": {"releaseTitle": {"header": "# Title", "level": 1}}},
                "delimited": {"properties": {"items": {"list-format": "numbered", "item-prefix": "- "}}}
            })
        );
    }
}

/// The format rules reach `extract_as`: a cut response fails with `truncated`, and the
/// readers' warnings (`duplicate_key`, `possibly_truncated`) are in the result.
mod rules_through_extract {
    use super::*;
    use payload_core::{ErrorKind, WarningKind};

    fn analysis() -> &'static payload_core::PayloadType {
        Registry::global()
            .payload_type("analysis_result")
            .expect("registered")
    }

    #[test]
    fn a_cut_response_is_truncated_in_every_format_with_an_end_marker() {
        let cases = [
            (
                Format::Xml,
                "<analysis-result>\n<analysis>Growth</analysis>\n<confidence>0.8",
            ),
            (
                Format::Tagged,
                "<ANALYSIS>Growth</ANALYSIS>\n<CONFIDENCE>0.8",
            ),
        ];
        for (format, text) in cases {
            for asked in [Some(format), None] {
                let result = extract_as(text, analysis(), asked);
                assert!(!result.success, "{format}: {result:?}");
                assert_eq!(result.format, format.as_str());
                assert_eq!(result.errors[0].kind(), ErrorKind::Truncated, "{format}");
                assert_eq!(result.errors[0].path(), "/confidence");
                let partial = result.partial_data.unwrap();
                assert!(partial.get("confidence").is_none(), "{partial}");
            }
        }
        let plan = Registry::global().payload_type("task_plan").unwrap();
        let text = "---TASK---\nParse configuration files\n---END-TASK---\n---CONFIDENCE---\n0.8";
        let result = extract_as(text, plan, Some(Format::Delimited));
        assert_eq!(result.errors[0].kind(), ErrorKind::Truncated);
        assert_eq!(result.errors[0].path(), "/confidence");
    }

    #[test]
    fn warnings_of_the_readers_are_in_the_result() {
        let text = "## Analysis\nGrowth\n\n## Confidence\n0.5\n\n**Confidence:** 0.9\n\n## Recommendations\n- Buy\n- Hold";
        let result = extract_as(text, analysis(), Some(Format::Markdown));
        assert!(result.success, "{:?}", result.errors);
        assert_eq!(result.data.as_ref().unwrap()["confidence"], 0.9);
        let kinds: Vec<WarningKind> = result.warnings.iter().map(|w| w.kind).collect();
        assert_eq!(
            kinds,
            [WarningKind::PossiblyTruncated, WarningKind::DuplicateKey],
            "{:?}",
            result.warnings
        );
        assert!(result.warnings[0].message.contains("/recommendations/1"));
        assert!(result.warnings[1].message.contains("/confidence"));
    }
}

/// docs/spec.md §8.1 and §8.3 for the text formats: over generated large inputs, what each
/// reader returns and the memory it holds at its peak stay within a constant factor of
/// the input, whatever its shape (deep, wide, repeated, broken).
// A counting global allocator is `unsafe` by definition.
#[allow(unsafe_code)]
mod size_bounds {
    use super::*;
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    /// Counts the bytes each thread holds, so tests running beside this one do not
    /// count (the readers do all their work on the calling thread).
    struct Counting;

    thread_local! {
        static LIVE: Cell<isize> = const { Cell::new(0) };
        static PEAK: Cell<isize> = const { Cell::new(0) };
    }

    fn track(delta: isize) {
        let _ = LIVE.try_with(|live| {
            let now = live.get() + delta;
            live.set(now);
            let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
        });
    }

    // SAFETY: every call is passed on to the system allocator unchanged; only a
    // thread-local counter (no allocation) is updated beside it.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            // SAFETY: the caller's layout is passed on as it is.
            let p = unsafe { System.alloc(layout) };
            if !p.is_null() {
                track(layout.size() as isize);
            }
            p
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            // SAFETY: `ptr` was allocated by `System` with this layout.
            unsafe { System.dealloc(ptr, layout) };
            track(-(layout.size() as isize));
        }
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            // SAFETY: as `GlobalAlloc::realloc` requires of its caller.
            let p = unsafe { System.realloc(ptr, layout, new_size) };
            if !p.is_null() {
                track(new_size as isize - layout.size() as isize);
            }
            p
        }
    }

    #[global_allocator]
    static ALLOCATOR: Counting = Counting;

    /// Runs `f` and returns its result with the most bytes it held at once beyond what
    /// was held before.
    fn peak_of<R>(f: impl FnOnce() -> R) -> (R, usize) {
        let start = LIVE.with(Cell::get);
        PEAK.with(|p| p.set(start));
        let result = f();
        let peak = PEAK.with(Cell::get) - start;
        (result, peak.max(0) as usize)
    }

    /// About one mebibyte of `unit` repeated, between `head` and `tail`.
    fn fill(head: &str, unit: &str, tail: &str) -> String {
        let n = (1 << 20) / unit.len().max(1);
        format!("{head}{}{tail}", unit.repeat(n))
    }

    fn nest(open: &str, close: &str, levels: usize) -> String {
        open.repeat(levels) + "x" + &close.repeat(levels)
    }

    /// Large inputs in every shape a reader treats differently.
    fn inputs() -> Vec<(&'static str, Format, String)> {
        let deep_xml = nest("<x>", "</x>", 126);
        let deep_sections = nest("---X---\n", "\n---END-X---\n", 127);
        vec![
            (
                "xml many fields",
                Format::Xml,
                fill(
                    "<analysis-result>",
                    "<analysis>a</analysis>",
                    "</analysis-result>",
                ),
            ),
            (
                "xml many items",
                Format::Xml,
                fill(
                    "<analysis-result><recommendations>",
                    "<recommendation>r</recommendation>",
                    "</recommendations></analysis-result>",
                ),
            ),
            (
                "xml deep groups",
                Format::Xml,
                fill(
                    "<analysis-result><analysis>",
                    &deep_xml,
                    "</analysis></analysis-result>",
                ),
            ),
            (
                "xml too deep",
                Format::Xml,
                fill("<analysis-result>", "<x>", ""),
            ),
            (
                "xml unclosed leaves",
                Format::Xml,
                fill("<analysis-result>", "<confidence>1", ""),
            ),
            (
                "xml bad numbers",
                Format::Xml,
                fill(
                    "<analysis-result><analysis>a</analysis>",
                    "<confidence>high</confidence>",
                    "</analysis-result>",
                ),
            ),
            (
                "xml attributes",
                Format::Xml,
                fill(
                    "<analysis-result>",
                    "<a b=\"1\" c='2' d=3/>",
                    "</analysis-result>",
                ),
            ),
            (
                "xml one long value",
                Format::Xml,
                fill(
                    "<analysis-result><analysis>",
                    "word ",
                    "</analysis></analysis-result>",
                ),
            ),
            ("xml angles", Format::Xml, fill("", "<", "")),
            (
                "tagged many fields",
                Format::Tagged,
                fill("", "<ANALYSIS>a</ANALYSIS>\n", ""),
            ),
            (
                "tagged repeated items",
                Format::Tagged,
                fill(
                    "<ANALYSIS>a</ANALYSIS>",
                    "<RECOMMENDATIONS>r</RECOMMENDATIONS>",
                    "",
                ),
            ),
            (
                "tagged deep groups",
                Format::Tagged,
                fill("<ANALYSIS>", &deep_xml, "</ANALYSIS>"),
            ),
            (
                "tagged unfinished",
                Format::Tagged,
                fill("", "<ANALYSIS>a<!--", ""),
            ),
            (
                "delimited many sections",
                Format::Delimited,
                fill("", "====ANALYSIS====\na\n", ""),
            ),
            (
                "delimited unknown sections",
                Format::Delimited,
                fill("", "--S--\nx\n", ""),
            ),
            (
                "delimited deep groups",
                Format::Delimited,
                fill("====ANALYSIS====\n", &deep_sections, ""),
            ),
            (
                "delimited too deep",
                Format::Delimited,
                fill("", "---X---\n", "") + &"---END-X---\n".repeat(1 << 16),
            ),
            (
                "delimited end lines",
                Format::Delimited,
                fill("", "---END-ANALYSIS---\n", ""),
            ),
            (
                "delimited long list",
                Format::Delimited,
                fill("====RECOMMENDATIONS====\n", "- r\n", ""),
            ),
            (
                "markdown many headers",
                Format::Markdown,
                fill("", "## Analysis\n", ""),
            ),
            (
                "markdown nested headers",
                Format::Markdown,
                fill("", "# A\n## B\n### C\n#### D\n##### E\n###### F\n", ""),
            ),
            (
                "markdown bold lines",
                Format::Markdown,
                fill("", "**Confidence:** 0.5\n", ""),
            ),
            (
                "markdown bold headers",
                Format::Markdown,
                fill("", "**Analysis**\n", ""),
            ),
            (
                "markdown long list",
                Format::Markdown,
                fill("## Recommendations\n", "- r\n", ""),
            ),
            (
                "markdown fences",
                Format::Markdown,
                fill("## Analysis\n", "```\n# x\n```\n", ""),
            ),
        ]
    }

    #[test]
    fn output_and_peak_memory_stay_within_a_constant_factor_of_the_input() {
        let t = Registry::global().payload_type("analysis_result").unwrap();
        let schema = t.schema(Dialect::Draft2020_12);
        let mut report = Vec::new();
        let mut over = Vec::new();
        for (name, format, text) in inputs() {
            let n = text.len();
            let (read, read_peak) =
                peak_of(|| payload_core::formats::read_as(format, &text, &schema));
            let (result, extract_peak) = peak_of(|| extract_as(&text, t, Some(format)));
            let read_out = match &read.result {
                Ok(value) => serde_json::to_string(value).unwrap().len(),
                Err(failure) => {
                    serde_json::to_string(&failure.errors).unwrap().len()
                        + serde_json::to_string(&failure.partial).unwrap().len()
                }
            } + serde_json::to_string(&read.warnings).unwrap().len();
            let out = serde_json::to_string(&result).unwrap().len().max(read_out);
            let peak = read_peak.max(extract_peak);
            let line = format!(
                "{name:28} in {n:>8}  out {out:>8} ({:.2}x)  peak {peak:>9} ({:.1}x)  errors {} warnings {}",
                out as f64 / n as f64,
                peak as f64 / n as f64,
                result.errors.len(),
                result.warnings.len()
            );
            // Output: the values read are slices of the input; errors and warnings are
            // capped. Peak: the tree of parts, about 130 bytes per part, for inputs that
            // spend as little as 4 to 12 bytes on each (about 8x on seed-like shapes).
            if out > 2 * n + (64 << 10) || peak > 40 * n + (1 << 20) {
                over.push(line.clone());
            }
            assert!(
                result.errors.len() <= 101 && result.warnings.len() <= 101,
                "{line}"
            );
            report.push(line);
        }
        println!("{}", report.join("\n"));
        assert!(over.is_empty(), "over the bound:\n{}", over.join("\n"));
    }
}

/// Detection checked against the result (docs/spec.md §4.7): every registered type's example,
/// written in any format and wrapped the ways models wrap an answer (a tag around it,
/// prose before and after, a reasoning section first), is read in `auto` whenever some
/// named format reads it (`json_invariants::check_auto`), and JSON in a wrapper tag is
/// always read.
mod detection_checked {
    use super::*;
    use payload_benches::json_invariants::check_auto;
    use payload_core::WarningKind;
    use proptest::prelude::*;

    /// How a model wraps an answer.
    fn wrap(body: &str, style: u8, tag: &str, prose: &str) -> String {
        match style % 4 {
            0 => format!("<{tag}>{body}</{tag}>"),
            1 => format!("<{tag}>\n{body}\n</{tag}>"),
            2 => format!("{prose}\n\n{body}\n\n{prose}"),
            _ => format!("<think>{prose}</think>\n{body}"),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        #[test]
        fn auto_reads_what_some_format_reads(
            pick in any::<prop::sample::Index>(),
            style in any::<u8>(),
            tag in "[a-z]{1,8}",
            prose in "[A-Z][a-z]{1,8}( [a-z]{1,8}){0,5}[.!]",
        ) {
            let types: Vec<&payload_core::PayloadType> = Registry::global().types().collect();
            let t = *pick.get(&types);
            let schema = t.schema(Dialect::Draft2020_12);
            let example = t.example().expect("every registered type has an example");
            let json = serde_json::to_string_pretty(&example).unwrap();
            let text = wrap(&json, style, &tag, &prose);
            let auto = check_auto(&text, t);
            if style % 4 < 2 {
                prop_assert!(auto.success, "{} in <{}>: {:?}\n{}", t.name, tag, auto.errors, text);
            }
            for format in TEXT_FORMATS {
                if expressible(format, &schema).is_ok() {
                    let body = render(format, &example, &schema);
                    check_auto(&wrap(&body, style, &tag, &prose), t);
                }
            }
        }
    }

    /// Pieces of every format, shuffled: whatever some format reads, `auto` reads.
    fn piece() -> impl Strategy<Value = String> {
        prop::sample::select(vec![
            "<command>",
            "</command>",
            "<think>",
            "</think>",
            "<name>",
            "</name>",
            "{\"name\": \"x\"}",
            "{\"operations\": []}",
            "[",
            "]",
            "{",
            "}",
            "## Name\n",
            "## Operations\n",
            "- a\n",
            "1. b\n",
            "\n\n",
            "Thanks!\n",
            "---NAME---\n",
            "---END-NAME---\n",
            "```json\n",
            "\n```\n",
            "x ",
            "\"",
            "\"a\" | \"b\"",
            ": ",
            ", ",
        ])
        .prop_map(str::to_string)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn auto_keeps_its_guarantees_on_mixed_formats(
            pick in any::<prop::sample::Index>(),
            pieces in prop::collection::vec(piece(), 0..24),
        ) {
            let types: Vec<&payload_core::PayloadType> = Registry::global().types().collect();
            let t: &&payload_core::PayloadType = pick.get(&types);
            check_auto(&pieces.concat(), t);
        }
    }

    #[test]
    fn json_in_a_wrapper_tag_falls_back_with_a_warning() {
        let mut fell_back = Vec::new();
        for t in Registry::global().types() {
            let example = t.example().unwrap();
            let text = format!(
                "<command>{}</command>",
                serde_json::to_string(&example).unwrap()
            );
            let auto = check_auto(&text, t);
            assert!(auto.success, "{}: {:?}\n{text}", t.name, auto.errors);
            if auto
                .warnings
                .iter()
                .any(|w| w.kind == WarningKind::FormatFallback)
            {
                fell_back.push(t.name);
            }
        }
        // Types whose schema names no top-level member give detection no JSON key to
        // see: their `<command>` wrapper looks like XML, and fallback reads the JSON.
        assert!(!fell_back.is_empty(), "no type needed the fallback");
    }
}
