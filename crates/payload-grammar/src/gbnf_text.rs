//! Free text that holds no marker, in GBNF, which has no negation. Every registered
//! marker is at least `m` characters long and made of characters from a set `S` (for
//! table.that, capital letters and `_`), so text in which no run of `m` characters
//! from `S` occurs holds no marker. That is a regular language with `m` states: the
//! state is the length of the current run. It is narrower than "no marker" (a
//! capitalised word as long as the shortest marker is refused too), never wider.

use crate::gbnf::literal_char;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The character set and the shortest length of the markers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MarkerRuns {
    /// Every character any marker holds, sorted, deduplicated.
    chars: Vec<char>,
    /// The shortest marker's length in characters (at least 1).
    shortest: usize,
}

impl MarkerRuns {
    /// The runs `markers` are made of; `None` when there is no marker to keep out.
    pub(crate) fn of(markers: &[String]) -> Option<MarkerRuns> {
        let shortest = markers.iter().map(|m| m.chars().count()).min()?;
        if shortest == 0 {
            return None;
        }
        let mut chars: Vec<char> = markers.iter().flat_map(|m| m.chars()).collect();
        chars.sort_unstable();
        chars.dedup();
        Some(MarkerRuns { chars, shortest })
    }

    /// The shortest marker's length: the run the text never reaches.
    pub(crate) fn shortest(&self) -> usize {
        self.shortest
    }

    /// The marker characters as the inside of a GBNF character class.
    fn class(&self) -> String {
        self.chars.iter().map(|&c| literal_char(c, true)).collect()
    }

    /// Adds the rules of text without markers, named `{name}-0` to `{name}-{m-1}`
    /// (the state is the length of the run of marker characters so far), and returns
    /// the name of the first. `newlines`: whether the text may hold line breaks (a
    /// line of a lead does not).
    pub(crate) fn rules(
        &self,
        name: &str,
        newlines: bool,
        rules: &mut BTreeMap<String, String>,
    ) -> String {
        let inside = self.class();
        let breaks = if newlines { "" } else { "\\n" };
        let other = format!("[^{inside}{breaks}\\x00]");
        let run = format!("[{inside}]");
        for state in 0..self.shortest {
            let mut body = format!("( {other} {name}-0");
            if state + 1 < self.shortest {
                let _ = write!(body, " | {run} {name}-{}", state + 1);
            }
            body.push_str(" )?");
            rules.insert(format!("{name}-{state}"), body);
        }
        format!("{name}-0")
    }
}

/// Adds the rule `name`: one line of prose around a required block, and returns its
/// name. The line holds no line break, none of `excluded`, and no run of the markers'
/// characters as long as the shortest marker (`runs`); it is a bounded repetition of
/// at most `units` units, each one other character after at most `m - 1` marker
/// characters, then at most `m - 1` of them, so its length is bounded too (at most
/// `units * m + m - 1` characters), which a recursive rule could not say.
pub(crate) fn bounded_line(
    runs: Option<&MarkerRuns>,
    name: &str,
    units: usize,
    excluded: &[char],
    rules: &mut BTreeMap<String, String>,
) -> String {
    let excluded: String = excluded.iter().map(|&c| literal_char(c, true)).collect();
    let body = match runs {
        Some(runs) => {
            let inside = runs.class();
            let short = runs.shortest() - 1;
            let other = format!("[^{inside}{excluded}\\n\\x00]");
            if short == 0 {
                format!("{other}{{0,{units}}}")
            } else {
                let run = format!("[{inside}]");
                format!("({run}{{0,{short}}} {other}){{0,{units}}} {run}{{0,{short}}}")
            }
        }
        None => format!("[^{excluded}\\n\\x00]{{0,{units}}}"),
    };
    rules.insert(name.to_string(), body);
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::{MarkerRuns, bounded_line};
    use std::collections::BTreeMap;

    #[test]
    fn the_runs_are_the_markers_characters_and_shortest_length() {
        let runs = MarkerRuns::of(&["AB_C".to_string(), "ABD".to_string()]).unwrap();
        assert_eq!(runs.shortest(), 3);
        let mut rules = BTreeMap::new();
        assert_eq!(runs.rules("text", true, &mut rules), "text-0");
        assert_eq!(rules.len(), 3);
        assert_eq!(
            rules["text-0"],
            "( [^ABCD_\\x00] text-0 | [ABCD_] text-1 )?"
        );
        assert_eq!(rules["text-2"], "( [^ABCD_\\x00] text-0 )?");
        let mut lines = BTreeMap::new();
        runs.rules("line", false, &mut lines);
        assert!(lines["line-0"].contains("[^ABCD_\\n\\x00]"));
        assert!(MarkerRuns::of(&[]).is_none());
    }

    #[test]
    fn a_bounded_line_repeats_units_that_end_every_run_short() {
        let runs = MarkerRuns::of(&["ABD".to_string()]).unwrap();
        let mut rules = BTreeMap::new();
        assert_eq!(bounded_line(Some(&runs), "ln", 9, &['`'], &mut rules), "ln");
        assert_eq!(
            rules["ln"],
            "([ABD]{0,2} [^ABD\\x60\\n\\x00]){0,9} [ABD]{0,2}"
        );
        bounded_line(None, "plain", 3, &['>'], &mut rules);
        assert_eq!(rules["plain"], "[^\\x3E\\n\\x00]{0,3}");
    }
}
