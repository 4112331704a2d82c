//! The tree every text format is read into before it meets the schema, and the small
//! text helpers the readers share (name folding, list lines, code fences).
//!
//! Readers only find structure (named parts, their text, their children); what the
//! structure means for a field is decided once, in [`super::convert`], against the
//! schema. That keeps "what counts as an array item" or "what is a number" the same in
//! every format.

use crate::fence;

/// One named part of a response: an element, a tag, a section or a header.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Node {
    /// The name as written (element name, section name, header text).
    pub name: String,
    /// The node's own text, already decoded (entities, CDATA), untrimmed.
    pub text: String,
    /// Named parts inside this one, in order.
    pub children: Vec<Node>,
    /// XML attributes, name and decoded value.
    pub attrs: Vec<(String, String)>,
    /// Byte offset of the node in the model's text, for error locations.
    pub offset: usize,
    /// Byte offset just after the node: after its close tag or END line, or where its
    /// section stops.
    pub end: usize,
    /// The text ended inside this node before anything closed it (see
    /// [`super::ending`]): its value may be cut.
    pub cut: bool,
}

impl Node {
    /// Gives back the spare capacity of the node's text and children once it is
    /// complete: a chain of single children would otherwise hold four slots each.
    pub fn seal(&mut self) {
        self.text.shrink_to_fit();
        self.children.shrink_to_fit();
    }

    /// A node with a name, at `offset`.
    pub fn named(name: impl Into<String>, offset: usize) -> Node {
        Node {
            name: name.into(),
            offset,
            ..Node::default()
        }
    }

    /// A nameless node holding only text (an array item read from a list line).
    pub fn text_only(text: impl Into<String>, offset: usize) -> Node {
        Node {
            text: text.into(),
            offset,
            ..Node::default()
        }
    }

    /// The node's text with the text of every descendant, in document order: what a
    /// person reads as the content of `<analysis>Strong <b>growth</b></analysis>`.
    /// Iterative, so a deep tree cannot overflow the stack.
    pub fn deep_text(&self) -> String {
        if self.children.is_empty() {
            return self.text.clone();
        }
        let mut out = self.text.clone();
        let mut stack: Vec<std::slice::Iter<'_, Node>> = vec![self.children.iter()];
        while let Some(top) = stack.last_mut() {
            match top.next() {
                Some(child) => {
                    out.push_str(&child.text);
                    stack.push(child.children.iter());
                }
                None => {
                    stack.pop();
                }
            }
        }
        out
    }
}

pub(crate) use self::fold_name as fold;

/// A name with case and separators folded away, so that `due_date`, `Due Date`,
/// `DUE-DATE`, `filterDisplay` and `dueDate` compare equal: how field names are matched
/// across formats, and how coercion and "did you mean" match keys.
pub fn fold_name(name: &str) -> String {
    let is_separator = is_fold_separator;
    if name.is_ascii() {
        // Most names are ASCII: one byte each, lowercased as bytes, with no per-char
        // Unicode case lookup (the same result: ASCII letters lowercase to ASCII).
        let mut folded = Vec::with_capacity(name.len());
        folded.extend(
            name.bytes()
                .filter(|&b| !is_separator(char::from(b)))
                .map(|b| b.to_ascii_lowercase()),
        );
        if let Ok(folded) = String::from_utf8(folded) {
            return folded;
        }
    }
    name.chars()
        .filter(|&c| !is_separator(c))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The characters [`fold_name`] drops.
fn is_fold_separator(c: char) -> bool {
    matches!(c, '-' | '_' | ' ' | '.' | '\t')
}

/// Whether `name` folds to `folded` (`fold_name(name) == folded`), without building the
/// folded name.
pub(crate) fn folds_to(name: &str, folded: &str) -> bool {
    if name.is_ascii() {
        // As in `fold_name`: ASCII letters lowercase to ASCII, byte by byte.
        return name
            .bytes()
            .filter(|&b| !is_fold_separator(char::from(b)))
            .map(|b| b.to_ascii_lowercase())
            .eq(folded.bytes());
    }
    name.chars()
        .filter(|&c| !is_fold_separator(c))
        .flat_map(char::to_lowercase)
        .eq(folded.chars())
}

/// Replaces every node that is not a known field name and has children by its
/// children: a `# Analysis Report` title above the field headers, a `---RESPONSE---`
/// section around the field sections. Readers bound the depth, so the recursion is
/// bounded too.
pub(crate) fn splice_unknown(node: &mut Node, known: &std::collections::HashSet<String>) {
    let children = std::mem::take(&mut node.children);
    for mut child in children {
        splice_unknown(&mut child, known);
        if !child.children.is_empty() && !known.contains(&fold(&child.name)) {
            node.children.append(&mut child.children);
        } else {
            node.children.push(child);
        }
    }
}

/// If `line` (already trimmed at the start) begins with a list marker (`1.`, `1)`,
/// `-`, `*`, `+`, `•`), the rest of the line after it.
pub(crate) fn strip_list_marker(line: &str) -> Option<&str> {
    let trimmed = line.trim_start();
    for bullet in ['-', '*', '+', '•', '–', '·'] {
        if let Some(rest) = trimmed.strip_prefix(bullet) {
            if rest.is_empty() || rest.starts_with([' ', '\t']) {
                return Some(rest.trim());
            }
        }
    }
    let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
    if (1..=3).contains(&digits) {
        let rest = &trimmed[digits..];
        if let Some(after) = rest.strip_prefix('.').or_else(|| rest.strip_prefix(')')) {
            if after.is_empty() || after.starts_with([' ', '\t']) {
                return Some(after.trim());
            }
        }
    }
    None
}

/// Splits a block of text into list items, with the byte offset of each item relative
/// to `text`.
///
/// Lines with a list marker start items and unmarked lines continue the item before
/// them (a wrapped bullet, or an indented paragraph of the item); unmarked lines before
/// the first item are an introduction and are dropped. A list ends, as in CommonMark,
/// at a blank line followed by a line that is neither indented nor a list item (docs/spec.md
/// §4.8): that line and the prose after it are closing remarks, not part of the last
/// item, and are dropped like the introduction until the next item starts. Text with
/// no marker at all is a plain list: one item per non-empty line.
#[cfg(test)]
pub(crate) fn list_items(text: &str) -> Vec<(String, usize)> {
    let mut items = Vec::new();
    each_list_item(text, |item, offset, _| items.push((item, offset)));
    items
}

/// The items [`list_items`] finds, handed to `emit` one at a time with their offset and
/// whether each is the last, so a long list is never held twice.
pub(crate) fn each_list_item(text: &str, mut emit: impl FnMut(String, usize, bool)) {
    let marked = text.lines().any(|line| strip_list_marker(line).is_some());
    let mut pending: Option<(String, usize)> = None;
    let mut offset = 0;
    // Whether a blank line came since the last line read, and whether the list has
    // ended (prose after it) until the next item.
    let mut after_blank = false;
    let mut ended = false;
    for line in text.split_inclusive('\n') {
        let at = offset;
        offset += line.len();
        let trimmed = line.trim();
        if trimmed.is_empty() {
            after_blank = true;
            continue;
        }
        if fence::run_at(trimmed).is_some() {
            continue;
        }
        let breaks = std::mem::take(&mut after_blank) && !line.starts_with([' ', '\t']);
        let starts = if marked {
            strip_list_marker(trimmed)
        } else {
            Some(trimmed)
        };
        match starts {
            Some(rest) => {
                ended = false;
                if let Some((item, item_at)) = pending.replace((rest.to_string(), at)) {
                    emit(item, item_at, false);
                }
            }
            None => {
                ended |= breaks;
                if ended {
                    continue;
                }
                if let Some((last, _)) = pending.as_mut() {
                    if !last.is_empty() {
                        last.push(' ');
                    }
                    last.push_str(trimmed);
                }
            }
        }
    }
    if let Some((item, item_at)) = pending {
        emit(item, item_at, true);
    }
}

/// Splits comma-separated values (`a, b, c`), trimming each and dropping empty ones,
/// handing them to `emit` one at a time with whether each is the last.
pub(crate) fn each_comma_item(text: &str, mut emit: impl FnMut(String, bool)) {
    let mut items = text
        .split([',', '\n'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .peekable();
    while let Some(item) = items.next() {
        emit(item.to_string(), items.peek().is_none());
    }
}

/// Each line of `text` (without its line break) with its byte offset.
pub(crate) fn lines_with_offsets(text: &str) -> Vec<(&str, usize)> {
    let mut out = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let bare = line.strip_suffix('\n').unwrap_or(line);
        let bare = bare.strip_suffix('\r').unwrap_or(bare);
        out.push((bare, offset));
        offset += line.len();
    }
    out
}

/// A string value as a person reads it: trimmed, and without a code fence that wraps
/// the whole value (```` ```rust ... ``` ````), which is presentation, not content.
/// A lone fence line left at either end (the response's own fence, cut by a section
/// boundary) is dropped too.
pub(crate) fn clean_string(text: &str) -> String {
    let trimmed = text.trim();
    let lines: Vec<&str> = trimmed.lines().collect();
    let is_fence = |line: &str| fence::run_at(line.trim()).is_some();
    if let (Some(first), Some(last)) = (lines.first(), lines.last()) {
        if let Some(opened) = fence::opener(first).filter(|_| lines.len() >= 2) {
            let inner = &lines[1..lines.len() - 1];
            // One fenced block around all of it: its closer is the last line, and
            // nothing in between closes it first.
            if fence::closes(last, opened) && !inner.iter().any(|l| fence::closes(l, opened)) {
                return inner.join("\n");
            }
        }
    }
    let fences = lines.iter().filter(|l| is_fence(l)).count();
    if fences % 2 == 1 {
        if lines.last().is_some_and(|l| is_fence(l)) {
            return lines[..lines.len() - 1].join("\n").trim().to_string();
        }
        if is_fence(lines[0]) {
            return lines[1..].join("\n").trim().to_string();
        }
    }
    trimmed.to_string()
}

/// If the response is wrapped in a code fence whose language is one of `langs` (or has
/// no language), the fenced part and its byte offset; otherwise the whole text.
/// An unclosed fence runs to the end (a cut-off response).
pub(crate) fn unwrap_fence<'a>(text: &'a str, langs: &[&str]) -> (&'a str, usize) {
    let lines = lines_with_offsets(text);
    let Some((open, opened)) = lines.iter().enumerate().find_map(|(i, (line, _))| {
        let opened = fence::opener(line)?;
        let lang = line
            .trim()
            .trim_start_matches(['`', '~'])
            .trim()
            .to_ascii_lowercase();
        (lang.is_empty() || langs.contains(&lang.as_str())).then_some((i, opened))
    }) else {
        return (text, 0);
    };
    // A bare fence counts only when nothing but prose-free space precedes it.
    let lang_given = !lines[open]
        .0
        .trim()
        .trim_start_matches(['`', '~'])
        .trim()
        .is_empty();
    if !lang_given && lines[..open].iter().any(|(l, _)| !l.trim().is_empty()) {
        return (text, 0);
    }
    let start = lines
        .get(open + 1)
        .map_or(text.len(), |(_, offset)| *offset);
    let end = lines[open + 1..]
        .iter()
        .find(|(line, _)| fence::closes(line, opened))
        .map_or(text.len(), |(_, offset)| *offset);
    (&text[start..end], start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_ignores_case_and_separators() {
        assert_eq!(fold("Due Date"), fold("due_date"));
        assert_eq!(fold("DUE-DATE"), fold("dueDate"));
        assert_ne!(fold("recommendation"), fold("recommendations"));
    }

    proptest::proptest! {
        /// The ASCII fast path folds exactly as the general Unicode rule does.
        #[test]
        fn the_ascii_fold_is_the_unicode_fold(name in "[ -~\t]{0,24}|\\PC{0,12}") {
            let general: String = name
                .chars()
                .filter(|c| !matches!(c, '-' | '_' | ' ' | '.' | '\t'))
                .flat_map(char::to_lowercase)
                .collect();
            proptest::prop_assert_eq!(fold(&name), general);
        }
    }

    #[test]
    fn list_markers_are_recognised_but_numbers_are_not() {
        assert_eq!(strip_list_marker("1. Read file"), Some("Read file"));
        assert_eq!(strip_list_marker("12) Parse"), Some("Parse"));
        assert_eq!(strip_list_marker("• Buy"), Some("Buy"));
        assert_eq!(strip_list_marker("0.85"), None);
        assert_eq!(strip_list_marker("-5 degrees"), None);
    }

    #[test]
    fn lists_with_wrapped_items_and_intros() {
        let text = "Steps:\n1. Read the\n   file\n2. Parse it\n";
        let items: Vec<String> = list_items(text).into_iter().map(|(s, _)| s).collect();
        assert_eq!(items, ["Read the file", "Parse it"]);
        let plain: Vec<String> = list_items("Buy\n\nHold\n")
            .into_iter()
            .map(|(s, _)| s)
            .collect();
        assert_eq!(plain, ["Buy", "Hold"]);
    }

    #[test]
    fn a_list_ends_at_a_blank_line_then_an_unindented_line_that_is_not_an_item() {
        let items =
            |text: &str| -> Vec<String> { list_items(text).into_iter().map(|(s, _)| s).collect() };
        assert_eq!(
            items("- a\n- b\n\nLet me know if you need more.\nThanks!\n"),
            ["a", "b"]
        );
        assert_eq!(items("1. a\r\n2. b\r\n\r\nHope this helps."), ["a", "b"]);
        // Indented after the blank line: a second paragraph of the item.
        assert_eq!(items("- a\n- b\n\n  more on b\n"), ["a", "b more on b"]);
        // No blank line: a wrapped item, even unindented (a lazy continuation).
        assert_eq!(items("- a\n- b\ncontinued\n"), ["a", "b continued"]);
        // Prose between two lists is dropped; the items after it are items.
        assert_eq!(items("- a\n\nAlso:\n  not an item\n- c\n"), ["a", "c"]);
    }

    #[test]
    fn items_are_handed_out_one_at_a_time_with_the_last_marked() {
        let mut seen = Vec::new();
        each_list_item("Intro\n- a\n  wrapped\n- b\n", |item, at, last| {
            seen.push((item, at, last))
        });
        assert_eq!(
            seen,
            [("a wrapped".into(), 6, false), ("b".to_string(), 20, true)]
        );
        let mut commas = Vec::new();
        each_comma_item("x, y,, z", |item, last| commas.push((item, last)));
        assert_eq!(
            commas,
            [
                ("x".into(), false),
                ("y".into(), false),
                ("z".to_string(), true)
            ]
        );
    }

    #[test]
    fn strings_lose_wrapping_fences() {
        assert_eq!(
            clean_string("\n```rust\nfn main() {}\n```\n"),
            "fn main() {}"
        );
        assert_eq!(clean_string("Parse files\n```"), "Parse files");
        assert_eq!(clean_string("  plain  "), "plain");
    }

    #[test]
    fn fenced_responses_are_unwrapped() {
        let text = "Here it is:\n```markdown\n## Task\nX\n```\nBye";
        assert_eq!(unwrap_fence(text, &["markdown"]).0, "## Task\nX\n");
        assert_eq!(unwrap_fence("No fence", &["markdown"]).0, "No fence");
        assert_eq!(
            unwrap_fence("Intro\n```\ncode\n```", &[]).0,
            "Intro\n```\ncode\n```"
        );
    }

    #[test]
    fn every_fence_reader_follows_the_one_rule() {
        let text = "~~~markdown\n## Task\n```\nx\n```\n~~~\nBye";
        assert_eq!(
            unwrap_fence(text, &["markdown"]).0,
            "## Task\n```\nx\n```\n"
        );
        let text = "````md\n## Task\n```\n````\n";
        assert_eq!(unwrap_fence(text, &["md"]).0, "## Task\n```\n");
        assert_eq!(clean_string("~~~\nfn main() {}\n~~~~"), "fn main() {}");
        assert_eq!(clean_string("````rust\nlet a = 1;\n````"), "let a = 1;");
        // Fewer characters do not close it: not one fenced block.
        assert_ne!(clean_string("````\nx\n```"), "x");
    }
}
