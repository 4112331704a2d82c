//! llama.cpp's GBNF, with JSON Schemas converted to rules here: objects (members in the
//! schema's order, optional ones each optional), maps, arrays with
//! item bounds, strings with length bounds, numbers, integers, booleans, null, enums
//! and constants, `anyOf`/`oneOf`, a one-schema `allOf` and local `$ref`s. Whitespace
//! between tokens is bounded as llama.cpp's own schema converter bounds it (a space, or
//! one or two line breaks and at most 20 spaces or tabs), so a model cannot pad a value
//! with whitespace to its token limit. GBNF has no negation: free text is kept free of
//! markers by refusing long runs of the markers' characters (`gbnf_text.rs`); every
//! schema feature left out is listed in [`Grammar::unsupported`].

use crate::choice::{Choice, LEAD_LINES, LINE_CHARS, PROSE_EXCLUDED, PageOptions, TAIL_LINES};
use crate::gbnf_text::{MarkerRuns, bounded_line};
use crate::page::{Block, Kind, PagePlan, custom_kinds, sequences};
use crate::support::{self, scan};
use crate::{Grammar, Target, Unsupported};
use payload_schema::limits::MAX_EXPANSION_DEPTH;
use payload_schema::walk;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The shared rules every JSON grammar uses.
const BASE: &str = r#"ws ::= ( " " | "\n" "\n"? [ \t]{0,20} )?
char ::= [^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})
string ::= "\"" char* "\""
integer ::= "-"? ([0-9] | [1-9] [0-9]*)
number ::= "-"? ([0-9] | [1-9] [0-9]*) ("." [0-9]+)? ([eE] [-+]? [0-9]+)?
boolean ::= "true" | "false"
null ::= "null"
value ::= object | array | string | number | boolean | null
object ::= "{" ws ( string ":" ws value ("," ws string ":" ws value)* )? ws "}"
array ::= "[" ws ( value ("," ws value)* )? ws "]"
"#;

/// Converts schemas to rules, naming each rule once.
struct Converter<'a> {
    root: &'a Value,
    rules: BTreeMap<String, String>,
    /// Definitions already converted (or being converted: a recursive type).
    defined: Vec<String>,
    prefix: String,
}

/// A GBNF string literal for `text`.
fn literal(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// One character as GBNF writes it in a literal or (`in_class`) a character class:
/// letters, digits, `_` and space as they are, anything else as an escape, which
/// llama.cpp reads the same everywhere.
pub(crate) fn literal_char(c: char, in_class: bool) -> String {
    match c {
        c if c.is_ascii_alphanumeric() || c == '_' || c == ' ' => c.to_string(),
        '"' if !in_class => "\\\"".into(),
        c if (c as u32) < 0x80 => format!("\\x{:02X}", c as u32),
        c if (c as u32) <= 0xFFFF => format!("\\u{:04X}", c as u32),
        c => format!("\\U{:08X}", c as u32),
    }
}

fn rule_name(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

impl<'a> Converter<'a> {
    fn new(root: &'a Value, prefix: &str) -> Converter<'a> {
        Converter {
            root,
            rules: BTreeMap::new(),
            defined: Vec::new(),
            prefix: rule_name(prefix),
        }
    }

    /// Adds a rule `name ::= body` (named uniquely) and returns its name.
    fn add(&mut self, name: &str, body: String) -> String {
        let mut unique = format!("{}-{}", self.prefix, rule_name(name));
        let mut n = 2;
        while self
            .rules
            .get(&unique)
            .is_some_and(|existing| existing != &body)
        {
            unique = format!("{}-{}{n}", self.prefix, rule_name(name));
            n += 1;
        }
        self.rules.insert(unique.clone(), body);
        unique
    }

    /// The expression matching JSON values of `schema`.
    fn expr(&mut self, schema: &Value, name: &str, depth: usize) -> String {
        if depth > MAX_EXPANSION_DEPTH {
            return "value".into();
        }
        let Value::Object(map) = schema else {
            return if schema == &Value::Bool(false) {
                "[^\\x00-\\U0010FFFF]".into()
            } else {
                "value".into()
            };
        };
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            return self.reference(reference, depth);
        }
        if let Some(value) = map.get("const") {
            return literal(&value.to_string());
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            let options: Vec<String> = values.iter().map(|v| literal(&v.to_string())).collect();
            return format!("({})", options.join(" | "));
        }
        for keyword in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = map.get(keyword) {
                let options: Vec<String> = branches
                    .iter()
                    .enumerate()
                    .map(|(i, b)| self.expr(b, &format!("{name}-{i}"), depth + 1))
                    .collect();
                return format!("({})", options.join(" | "));
            }
        }
        if let Some(Value::Array(parts)) = map.get("allOf") {
            if let Some(first) = parts.first() {
                return self.expr(first, name, depth + 1);
            }
        }
        match map.get("type") {
            Some(Value::Array(types)) => {
                let options: Vec<String> = types
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|t| self.typed(t, map, name, depth))
                    .collect();
                format!("({})", options.join(" | "))
            }
            Some(Value::String(t)) => self.typed(t, map, name, depth),
            _ => "value".into(),
        }
    }

    fn reference(&mut self, reference: &str, depth: usize) -> String {
        let pointer = reference.strip_prefix('#').unwrap_or(reference);
        let name = format!("def{}", pointer.replace('/', "-"));
        let unique = format!("{}-{}", self.prefix, rule_name(&name));
        if self.defined.contains(&unique) {
            return unique;
        }
        self.defined.push(unique.clone());
        let target = walk::target(self.root, reference)
            .cloned()
            .unwrap_or(Value::Bool(true));
        // The definition's own rules are named apart from the reference's rule, which
        // only points at them (the same name would make the rule refer to itself).
        let body = self.expr(&target, &format!("{name}-is"), depth + 1);
        self.rules.insert(unique.clone(), body);
        unique
    }

    fn typed(
        &mut self,
        kind: &str,
        map: &serde_json::Map<String, Value>,
        name: &str,
        depth: usize,
    ) -> String {
        match kind {
            "string" => {
                let min = map.get("minLength").and_then(Value::as_u64);
                let max = map.get("maxLength").and_then(Value::as_u64);
                match (min, max) {
                    (None, None) => "string".into(),
                    (min, max) => format!(
                        "\"\\\"\" char{{{},{}}} \"\\\"\"",
                        min.unwrap_or(0),
                        max.map(|m| m.to_string()).unwrap_or_default()
                    ),
                }
            }
            "integer" => bounded_integer(map),
            "number" => "number".into(),
            "boolean" => "boolean".into(),
            "null" => "null".into(),
            "array" => {
                let item = match map.get("items") {
                    Some(items) => self.expr(items, &format!("{name}-item"), depth + 1),
                    None => "value".into(),
                };
                let min = map.get("minItems").and_then(Value::as_u64).unwrap_or(0);
                let max = map.get("maxItems").and_then(Value::as_u64);
                let rest = match (min, max) {
                    (_, Some(0)) => return self.add(name, "\"[\" ws \"]\"".into()),
                    (min, max) => format!(
                        "(\",\" ws {item}){{{},{}}}",
                        min.saturating_sub(1),
                        max.map(|m| (m - 1).to_string()).unwrap_or_default()
                    ),
                };
                let body = if min == 0 {
                    format!("\"[\" ws ({item} {rest})? ws \"]\"")
                } else {
                    format!("\"[\" ws {item} {rest} ws \"]\"")
                };
                self.add(name, body)
            }
            "object" => self.object(map, name, depth),
            _ => "value".into(),
        }
    }

    fn object(&mut self, map: &serde_json::Map<String, Value>, name: &str, depth: usize) -> String {
        let properties = map.get("properties").and_then(Value::as_object);
        let required: Vec<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let Some(properties) = properties.filter(|p| !p.is_empty()) else {
            // A map: any keys, values of `additionalProperties` (or anything).
            let value = match map.get("additionalProperties") {
                Some(Value::Bool(false)) => return self.add(name, "\"{\" ws \"}\"".into()),
                Some(schema @ Value::Object(_)) => {
                    self.expr(schema, &format!("{name}-value"), depth + 1)
                }
                _ => "value".into(),
            };
            // Keys within `propertyNames`' length, entries within `maxProperties`
            // (the bounds an app's hints write in, choice.rs).
            let key = match map.get("propertyNames") {
                Some(names @ Value::Object(_)) => {
                    self.typed("string", names.as_object().unwrap_or(map), name, depth)
                }
                _ => "string".into(),
            };
            let min = map
                .get("minProperties")
                .and_then(Value::as_u64)
                .unwrap_or(0);
            let more = match map.get("maxProperties").and_then(Value::as_u64) {
                Some(0) => return self.add(name, "\"{\" ws \"}\"".into()),
                Some(max) => format!("{{{},{}}}", min.saturating_sub(1), max - 1),
                None => format!("{{{},}}", min.saturating_sub(1)),
            };
            let entry = format!("{key} \":\" ws {value}");
            let entries = format!("{entry} (\",\" ws {entry}){more}");
            let body = if min == 0 {
                format!("\"{{\" ws ( {entries} )? ws \"}}\"")
            } else {
                format!("\"{{\" ws {entries} ws \"}}\"")
            };
            return self.add(name, body);
        };
        // Members in the schema's order, each optional one optional.
        let mut members: Vec<(bool, String)> = Vec::new();
        for (key, schema) in properties {
            let value = self.expr(schema, &format!("{name}-{key}"), depth + 1);
            let member = format!("{} ws \":\" ws {value}", literal(&format!("\"{key}\"")));
            members.push((required.contains(&key.as_str()), member));
        }
        // first_i: member i and what may follow it, or (if i is optional) what starts later.
        let mut first = String::new();
        let mut rest = String::new();
        for (index, (is_required, member)) in members.iter().enumerate().rev() {
            let follow = if rest.is_empty() {
                String::new()
            } else {
                format!(" {rest}")
            };
            let this_first = format!("{member}{follow}");
            first = if *is_required || first.is_empty() {
                if *is_required {
                    this_first
                } else {
                    format!("({this_first})?")
                }
            } else {
                format!("({this_first} | {first})")
            };
            let step = format!("\",\" ws {member}");
            let step = if *is_required {
                step
            } else {
                format!("({step})?")
            };
            let rule = self.add(&format!("{name}-after{index}"), format!("{step}{follow}"));
            rest = rule;
        }
        let body = format!("\"{{\" ws {first} ws \"}}\"");
        self.add(name, body)
    }
}

/// An integer within the schema's bounds, as far as GBNF can say it: a small range
/// (at most [`support::SMALL_RANGE`] values) written out, a lower bound of 0 or 1 as
/// no sign (and no zero), an upper bound as its number of digits. What is left wider
/// is listed by `support::verdict`.
fn bounded_integer(map: &serde_json::Map<String, Value>) -> String {
    let (min, max) = support::integer_bounds(map);
    if let Some(values) = support::small_range(min, max) {
        let options: Vec<String> = values.map(|v| literal(&v.to_string())).collect();
        return format!("({})", options.join(" | "));
    }
    let rest = match max {
        Some(max) if max >= 0 => format!("[0-9]{{0,{}}}", max.to_string().len() - 1),
        _ => "[0-9]*".into(),
    };
    match min {
        Some(min) if min >= 1 => format!("([1-9] {rest})"),
        Some(0) => format!("(\"0\" | [1-9] {rest})"),
        _ => "integer".into(),
    }
}

/// The rules for one block's JSON value; returns the value's expression.
fn value_rules(schema: &Value, name: &str, rules: &mut BTreeMap<String, String>) -> String {
    let mut converter = Converter::new(schema, name);
    let expr = converter.expr(schema, "root", 0);
    rules.extend(converter.rules);
    expr
}

fn render(header: &str, root: &str, rules: &BTreeMap<String, String>) -> String {
    let mut out = format!("# {header}\nroot ::= {root}\n");
    for (name, body) in rules {
        let _ = writeln!(out, "{name} ::= {body}");
    }
    out.push_str(BASE);
    out
}

/// The value in each kind of code fence (the one fence rule, docs/spec.md §9.2: the opener's run
/// of three, closed by the same run), as alternatives: ` | "```json\n" v "\n```"`.
fn fenced_alternatives(value: &str) -> String {
    payload_core::fence::CHARS
        .iter()
        .map(|&ch| {
            let run: String = std::iter::repeat_n(ch, payload_core::fence::MIN_LEN).collect();
            format!(
                " | {} {value} {}",
                literal(&format!("{run}json\n")),
                literal(&format!("\n{run}"))
            )
        })
        .collect()
}

/// The rule of one block, `MARKER: ` then its value (bare or fenced); returns its name.
fn block_rule(block: &Block, rules: &mut BTreeMap<String, String>) -> String {
    let value = value_rules(&block.schema, &block.name, rules);
    let rule = format!("blk-{}", rule_name(&block.name));
    let body = match &block.tag {
        // Written in tags (docs/spec.md §1.21): the value, bare or fenced, between them.
        Some(tag) => format!(
            "{} ws ({value}{}) ws {}",
            literal(&format!("<{tag}>")),
            fenced_alternatives(&value),
            literal(&format!("</{tag}>"))
        ),
        None => format!(
            "{} ws ({value}{})",
            literal(&format!("{}: ", block.marker)),
            fenced_alternatives(&value)
        ),
    };
    rules.insert(rule.clone(), body);
    rule
}

/// The grammar of marker-mode responses on the page: blocks allowed, required or
/// refused as `options` say; `expected` are the blocks a required one may be.
pub(crate) fn page(plan: &PagePlan, options: &PageOptions, expected: &[Block]) -> Grammar {
    let mut rules = BTreeMap::new();
    let mut unsupported = Vec::new();
    let runs = MarkerRuns::of(&plan.markers);
    // A required block's prose is its bounded lines (below), not free text.
    let text = match &runs {
        _ if options.choice == Choice::Required => String::new(),
        Some(runs) => runs.rules("text", true, &mut rules),
        None => {
            rules.insert("text".into(), "[^\\x00]*".into());
            "text".into()
        }
    };
    if let Some(runs) = &runs {
        unsupported.push(Unsupported {
            location: "page".into(),
            feature: "free text that merely resembles a marker".into(),
            effect: format!(
                "narrower: free text holds no run of {} or more of the markers' characters (GBNF has no negation, so a long capitalised word is refused with the markers)",
                runs.shortest()
            ),
        });
    }
    if !plan.tags.is_empty() {
        unsupported.push(Unsupported {
            location: "page".into(),
            feature: "free text without an opening tag".into(),
            effect: "wider: GBNF has no negation, so free text may hold an opening tag; the parser reads what follows it as a block (truncated or missing when it is not one)"
                .into(),
        });
    }
    let blocks: Vec<&Block> = match options.choice {
        // A type the count admits none of has no block rule: nothing names it.
        Choice::Auto => plan
            .payloads
            .iter()
            .filter(|b| plan.count.of_type(&b.name) > 0)
            .chain(plan.suggestions())
            .collect(),
        Choice::Required => expected.iter().collect(),
        Choice::None => Vec::new(),
    };
    for block in &blocks {
        block_rule(block, &mut rules);
        unsupported.extend(scan(Target::Gbnf, &block.name, &block.schema));
        unsupported.extend(support::rules(&block.name, &block.rules));
    }
    let root = match options.choice {
        Choice::Auto => auto_root(plan, &text, &mut rules),
        Choice::Required => {
            let choices: Vec<String> = blocks
                .iter()
                .map(|b| format!("blk-{}", rule_name(&b.name)))
                .collect();
            rules.insert("required".into(), choices.join(" | "));
            // The prose around the block is bounded and ends the answer (choice.rs):
            // the block is read as a block, and an answer that holds it ends well
            // within the token limit.
            let line = bounded_line(
                runs.as_ref(),
                "line",
                LINE_CHARS,
                PROSE_EXCLUDED,
                &mut rules,
            );
            rules.insert("lead".into(), format!("({line} \"\\n\"){{0,{LEAD_LINES}}}"));
            rules.insert("tail".into(), format!("(\"\\n\" {line}){{0,{TAIL_LINES}}}"));
            "lead required tail".to_string()
        }
        Choice::None => text.clone(),
    };
    unsupported.push(Unsupported {
        location: "page".into(),
        feature: "other spellings of a marker".into(),
        effect: "blocks are written `MARKER: ` then the value (optionally in a ```json or ~~~json fence)"
            .into(),
    });
    let mut triggers = Vec::new();
    let root = if options.lazy && !blocks.is_empty() {
        // Rooted at the marker: the engine holds the text to the grammar from the
        // trigger on, and the text before it stays free (llama.cpp's lazy grammars).
        let names: Vec<String> = blocks
            .iter()
            .map(|b| format!("blk-{}", rule_name(&b.name)))
            .collect();
        triggers = blocks
            .iter()
            .map(|b| match &b.tag {
                Some(tag) => format!("<{tag}>"),
                None => format!("{}:", b.marker),
            })
            .collect();
        let first = format!("({})", names.join(" | "));
        let page = |feature: &str, effect: &str| Unsupported {
            location: "page".into(),
            feature: feature.into(),
            effect: effect.into(),
        };
        if options.choice == Choice::Required {
            unsupported.push(page(
                "a required block",
                "lazy: the grammar starts only at a marker, so a model that writes none is not led to one; use an eager grammar to require it",
            ));
            format!("{first} tail")
        } else {
            unsupported.push(page(
                "the page's count of custom payloads and one block of each suggestion kind",
                "lazy: any number of blocks may follow the first; the parser keeps the valid custom payloads up to the page's count, in text order, and rejects the others (extra_payload)",
            ));
            format!("{first} ({text} {first})* {text}")
        }
    } else {
        root
    };
    let header = format!(
        "Marker-mode responses on page \"{}\", choice {}{} (llama.cpp GBNF)",
        plan.page,
        options.choice,
        if triggers.is_empty() { "" } else { ", lazy" }
    );
    Grammar {
        target: Target::Gbnf,
        text: render(&header, &root, &rules),
        unsupported,
        triggers,
    }
}

/// Every order of as many custom payloads as the page's count allows (a type with a
/// tighter count of its own is a kind of its own) and at most one block of each
/// suggestion kind, with free text around them.
fn auto_root(plan: &PagePlan, text: &str, rules: &mut BTreeMap<String, String>) -> String {
    let customs = custom_kinds(plan, "custom", |b| format!("custom-{}", rule_name(&b.name)));
    let mut kinds: Vec<Kind> = Vec::new();
    for (kind, blocks) in &customs {
        let blocks: Vec<String> = blocks
            .iter()
            .map(|b| format!("blk-{}", rule_name(&b.name)))
            .collect();
        rules.insert(kind.name.clone(), blocks.join(" | "));
        kinds.push(kind.clone());
    }
    if let Some(values) = &plan.values {
        rules.insert("values".into(), format!("blk-{}", rule_name(&values.name)));
        kinds.push(Kind::suggestion("values"));
    }
    if let Some(actions) = &plan.actions {
        rules.insert(
            "actions".into(),
            format!("blk-{}", rule_name(&actions.name)),
        );
        kinds.push(Kind::suggestion("actions"));
    }
    let alternatives: Vec<String> = sequences(&kinds, plan.count.in_all(), plan.combination)
        .into_iter()
        .map(|sequence| {
            let mut parts = vec![text.to_string()];
            for kind in sequence {
                parts.push(kind);
                parts.push(text.to_string());
            }
            parts.join(" ")
        })
        .collect();
    format!("({})", alternatives.join(" | "))
}

/// A whole response that is one JSON value of the schema.
pub(crate) fn whole_json(name: &str, schema: &Value) -> Grammar {
    let mut rules = BTreeMap::new();
    let value = value_rules(schema, name, &mut rules);
    Grammar {
        target: Target::Gbnf,
        text: render(
            &format!("A whole response: one {name} as JSON (llama.cpp GBNF)"),
            &format!("ws {value} ws"),
            &rules,
        ),
        unsupported: scan(Target::Gbnf, name, schema),
        triggers: Vec::new(),
    }
}
