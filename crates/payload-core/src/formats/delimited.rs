//! Delimited sections: `---TASK---` ... `---END-TASK---`, `====ANALYSIS====`, and the
//! `section-pattern` / `end-pattern` a schema gives. Names match fields with case and
//! separators folded; END markers are optional.
//!
//! A marker is a whole line: the schema's patterns, or any name between two runs of at
//! least two of `-`, `=`, `~`, `+` (so `## Task`, `**Task**` and a `---` rule are not
//! markers). A section whose END marker comes later holds the sections in between as
//! nested fields; a section without one runs to the next marker. Two passes over the
//! lines, no backtracking.
//!
//! The last section runs to the end of the text when no END line closes it. END lines
//! are expected when the schema has an `end-pattern`, or when the response closes a
//! section that holds no other section with one: then the missing END line is a cut
//! (`truncated`); otherwise the last section may have been cut (`possibly_truncated`).
//! See [`super::ending`]. 128 levels of sections nested with END lines are read; the
//! first section at level 129 stops the reader with a `parsing` error.

use super::FormatRead;
use super::convert::Converter;
use super::ending::{Cut, Reading};
use super::node::{Node, fold};
use super::options::{global_opt, known_names};
use crate::error::Location;
use crate::formats::Format;
use crate::limits::MAX_DEPTH;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// One marker line.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Marker<'t> {
    /// Whether it ends a section.
    pub end: bool,
    /// The section name as written (empty for a bare `---END---`).
    pub name: &'t str,
    /// Byte offset of the line.
    pub offset: usize,
    /// Byte offset just after the line and its line break.
    pub next: usize,
}

/// A `{NAME}` pattern split into what comes before and after the name.
struct Pattern {
    before: String,
    after: String,
}

impl Pattern {
    fn from_option(root: &Value, key: &str) -> Option<Pattern> {
        let text = global_opt(root, root, Format::Delimited, key)?.as_str()?;
        let (before, after) = text.trim().split_once("{NAME}")?;
        Some(Pattern {
            before: before.to_ascii_lowercase(),
            after: after.to_ascii_lowercase(),
        })
    }

    fn name<'l>(&self, line: &'l str) -> Option<&'l str> {
        let lower = line.to_ascii_lowercase();
        if lower.len() <= self.before.len() + self.after.len()
            || !lower.starts_with(&self.before)
            || !lower.ends_with(&self.after)
        {
            return None;
        }
        line.get(self.before.len()..line.len() - self.after.len())
            .map(str::trim)
    }
}

fn is_rule_char(c: char) -> bool {
    matches!(c, '-' | '=' | '~' | '+')
}

/// The name between two runs of rule characters, as in `---TASK---` or `== TASK ==`.
fn generic_name(line: &str) -> Option<&str> {
    let lead = line.chars().take_while(|c| is_rule_char(*c)).count();
    let trail = line.chars().rev().take_while(|c| is_rule_char(*c)).count();
    if lead < 2 || trail < 2 || lead + trail >= line.len() {
        return None;
    }
    Some(line[lead..line.len() - trail].trim())
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 80
        && name.chars().any(char::is_alphabetic)
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
}

/// Whether a name is an end marker's (`END-TASK`, `END TASK`, `/TASK`, `END`), and
/// the section it ends. A name that is itself a field (`end_date`) is a start.
fn end_of<'n>(name: &'n str, known: &HashSet<String>) -> Option<&'n str> {
    if known.contains(&fold(name)) {
        return None;
    }
    if let Some(rest) = name.strip_prefix('/') {
        return Some(rest.trim());
    }
    let upper = name.get(..3)?;
    if !upper.eq_ignore_ascii_case("end") {
        return None;
    }
    let rest = &name[3..];
    if rest.is_empty() {
        return Some("");
    }
    rest.strip_prefix(['-', '_', ' ']).map(str::trim)
}

/// Every marker line in `text`, in order.
pub(crate) fn markers<'t>(text: &'t str, root: &Value, known: &HashSet<String>) -> Vec<Marker<'t>> {
    let start = Pattern::from_option(root, "section-pattern");
    let end = Pattern::from_option(root, "end-pattern");
    let mut out = Vec::new();
    let mut offset = 0;
    for raw in text.split_inclusive('\n') {
        let (line_at, next) = (offset, offset + raw.len());
        offset = next;
        let trimmed = raw.trim();
        if trimmed.len() < 3 {
            continue;
        }
        if let Some(name) = end
            .as_ref()
            .and_then(|p| p.name(trimmed))
            .filter(|n| valid_name(n))
        {
            out.push(Marker {
                end: true,
                name,
                offset: line_at,
                next,
            });
            continue;
        }
        let Some(name) = start
            .as_ref()
            .and_then(|p| p.name(trimmed))
            .or_else(|| generic_name(trimmed))
            .filter(|n| valid_name(n) || n.starts_with('/') && valid_name(&n[1..]))
        else {
            continue;
        };
        let (end, name) = match end_of(name, known) {
            Some(ended) => (true, ended),
            None => (false, name),
        };
        out.push(Marker {
            end,
            name,
            offset: line_at,
            next,
        });
    }
    out
}

/// Reads the sections of `text` into a document node (for tests: depth errors and cuts
/// are not reported).
#[cfg(test)]
pub(crate) fn read_sections(text: &str, root: &Value, known: &HashSet<String>) -> Node {
    read(text, root, known).map(|r| r.doc).unwrap_or_default()
}

/// Reads the sections of `text`: the document, with the sections the text ends inside
/// marked cut. Stops at the first section nested past [`MAX_DEPTH`].
fn read(text: &str, root: &Value, known: &HashSet<String>) -> Result<Reading, Location> {
    let markers = markers(text, root, known);
    // Which start markers have an END after them: a reverse pass that pairs each END
    // with the nearest start of its name before it.
    let mut ends_waiting: HashMap<String, usize> = HashMap::new();
    let mut closed = vec![false; markers.len()];
    for (index, marker) in markers.iter().enumerate().rev() {
        let key = fold(marker.name);
        if marker.end {
            *ends_waiting.entry(key).or_default() += 1;
        } else if let Some(count) = ends_waiting.get_mut(&key).filter(|c| **c > 0) {
            *count -= 1;
            closed[index] = true;
        }
    }
    drop(ends_waiting);
    let mut ends_expected = global_opt(root, root, Format::Delimited, "end-pattern")
        .and_then(Value::as_str)
        .is_some_and(|p| p.contains("{NAME}"));
    let mut stack: Vec<Node> = vec![Node::named("", 0)];
    let mut leaf: Option<Node> = None;
    let mut cursor = 0;
    let flush_text = |stack: &mut Vec<Node>, leaf: &mut Option<Node>, from: usize, to: usize| {
        if to > from {
            let target = match leaf {
                Some(node) => node,
                None => stack.last_mut().expect("the document node stays"),
            };
            target.text.push_str(&text[from..to]);
        }
    };
    for (index, marker) in markers.iter().enumerate() {
        flush_text(&mut stack, &mut leaf, cursor, marker.offset);
        cursor = marker.next;
        if let Some(mut done) = leaf.take() {
            done.end = marker.offset;
            attach(&mut stack, done);
        }
        if marker.end {
            let key = fold(marker.name);
            if let Some(k) = (1..stack.len())
                .rev()
                .find(|&k| fold(&stack[k].name) == key)
            {
                while stack.len() > k {
                    if let Some(mut done) = stack.pop() {
                        let own = stack.len() == k;
                        done.end = if own { marker.next } else { marker.offset };
                        // A section closed by its own END line that holds no other
                        // section shows END lines are this response's convention.
                        ends_expected |= own && done.children.is_empty();
                        attach(&mut stack, done);
                    }
                }
            }
            continue;
        }
        let node = Node::named(marker.name, marker.offset);
        if !closed[index] {
            leaf = Some(node);
        } else if stack.len() > MAX_DEPTH {
            // The document is stack[0]: this section would be at level MAX_DEPTH + 1.
            return Err(Location::of_offset(text, marker.offset));
        } else {
            stack.push(node);
        }
    }
    flush_text(&mut stack, &mut leaf, cursor, text.len());
    // What is still open runs to the end of the text.
    if let Some(mut done) = leaf.take() {
        done.end = text.len();
        done.cut = true;
        attach(&mut stack, done);
    }
    while stack.len() > 1 {
        if let Some(mut done) = stack.pop() {
            done.end = text.len();
            done.cut = true;
            attach(&mut stack, done);
        }
    }
    let mut doc = stack.pop().unwrap_or_default();
    doc.end = text.len();
    doc.seal();
    let cut = if ends_expected {
        Cut::Certain
    } else {
        Cut::Possible
    };
    Ok(Reading { doc, cut })
}

fn attach(stack: &mut [Node], mut node: Node) {
    node.seal();
    if let Some(parent) = stack.last_mut() {
        parent.children.push(node);
    }
}

/// Parses a delimited response into a value of `schema`, with what was noticed on the
/// way.
pub fn parse(text: &str, schema: &Value) -> FormatRead {
    let known = known_names(schema);
    let mut reading = match read(text, schema, &known) {
        Ok(reading) => reading,
        Err(location) => return FormatRead::too_deep(location),
    };
    super::node::splice_unknown(&mut reading.doc, &known);
    let doc = &reading.doc;
    Converter::new(Format::Delimited, schema, text)
        .judging(reading.cut)
        .finish(doc, doc.children.is_empty(), true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn names(node: &Node) -> Vec<(&str, &str)> {
        node.children
            .iter()
            .map(|c| (c.name.as_str(), c.text.trim()))
            .collect()
    }

    #[test]
    fn markers_in_many_spellings() {
        let known = HashSet::from(["enddate".to_string()]);
        let root = json!({});
        let text = "---TASK---\nx\n---END-TASK---\n==== Steps ====\n--- END_DATE ---\n---\n## Task\n**Task**\n[/TASK]\n";
        let found: Vec<(bool, String)> = markers(text, &root, &known)
            .into_iter()
            .map(|m| (m.end, m.name.to_string()))
            .collect();
        assert_eq!(
            found,
            [
                (false, "TASK".to_string()),
                (true, "TASK".to_string()),
                (false, "Steps".to_string()),
                (false, "END_DATE".to_string()),
            ]
        );
    }

    #[test]
    fn schema_patterns_are_used() {
        let root = json!({"x-format": {"delimited": {
            "section-pattern": "[{NAME}]", "end-pattern": "[/{NAME}]"}}});
        let doc = read_sections(
            "[task]\nParse\n[/task]\n[steps]\n1. a\n",
            &root,
            &HashSet::new(),
        );
        assert_eq!(names(&doc), [("task", "Parse"), ("steps", "1. a")]);
    }

    /// Each top-level section's name and whether it is cut, and how cuts are judged.
    fn cuts(text: &str, root: &Value) -> (Vec<(String, bool)>, Cut) {
        let reading = read(text, root, &HashSet::new()).unwrap();
        let names = reading
            .doc
            .children
            .iter()
            .map(|c| (c.name.clone(), c.cut))
            .collect();
        (names, reading.cut)
    }

    #[test]
    fn the_last_open_section_is_cut_and_end_lines_decide_how_surely() {
        let owned = |v: &[(&str, bool)]| -> Vec<(String, bool)> {
            v.iter().map(|(n, c)| (n.to_string(), *c)).collect()
        };
        // No END lines anywhere: the last section may have been cut.
        let (names, cut) = cuts("---A---\nx\n---B---\ny", &json!({}));
        assert_eq!(
            (names, cut),
            (owned(&[("A", false), ("B", true)]), Cut::Possible)
        );
        // A leaf section closed by its END line: END lines are this response's way.
        let (names, cut) = cuts("---A---\nx\n---END-A---\n---B---\ny", &json!({}));
        assert_eq!(
            (names, cut),
            (owned(&[("A", false), ("B", true)]), Cut::Certain)
        );
        // Only a section holding sections has one: that says nothing about leaves.
        let text = "---M---\n---A---\nx\n---END-M---\n---B---\ny";
        assert_eq!(cuts(text, &json!({})).1, Cut::Possible);
        // Configured: certain, even before any END line is seen.
        let root = json!({"x-format": {"delimited": {"end-pattern": "---END-{NAME}---"}}});
        assert_eq!(cuts("---A---\nx", &root).1, Cut::Certain);
        // Everything closed: nothing cut.
        let (names, _) = cuts("---A---\nx\n---END-A---\nThanks", &json!({}));
        assert_eq!(names, owned(&[("A", false)]));
    }

    #[test]
    fn level_128_is_read_and_level_129_stops_the_reader() {
        let nest = |n: usize| "---X---\n".repeat(n) + "x\n" + &"---END-X---\n".repeat(n);
        assert!(read(&nest(MAX_DEPTH), &json!({}), &HashSet::new()).is_ok());
        let at = read(&nest(MAX_DEPTH + 1), &json!({}), &HashSet::new()).unwrap_err();
        assert_eq!(
            at,
            Location {
                line: MAX_DEPTH + 1,
                column: 1
            }
        );
    }

    #[test]
    fn end_markers_nest_sections_and_are_optional() {
        let text = "Intro\n---META---\n---AUTHOR---\nAda\n---END-AUTHOR---\n---END-META---\n---TASK---\nRun\n---NOTE---\nn";
        let doc = read_sections(text, &json!({}), &HashSet::new());
        assert_eq!(doc.text, "Intro\n");
        assert_eq!(names(&doc), [("META", ""), ("TASK", "Run"), ("NOTE", "n")]);
        assert_eq!(names(&doc.children[0]), [("AUTHOR", "Ada")]);
    }
}
