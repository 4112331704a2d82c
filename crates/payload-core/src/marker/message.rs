//! The message left when blocks are removed (docs/spec.md §1.9), built as the text arrives.
//!
//! Every byte of prose is kept; at each seam a removal leaves, the whitespace on both
//! sides is folded ([`fold_seam`]); the ends are trimmed. The builder takes prose and
//! removals in order and hands out the part of the message that no later input can
//! change: trailing whitespace is held until something visible follows it (it may be
//! folded or trimmed away), and leading whitespace is dropped. The one-shot parser and
//! the stream use this one builder, so the stream's deltas add up to the message
//! exactly.

/// Builds the message from prose and removals.
#[derive(Debug, Default)]
pub(crate) struct MessageBuilder {
    /// Something visible has been handed out (leading whitespace is trimmed until then).
    started: bool,
    /// Whitespace at the end of the message so far, not handed out yet.
    left: String,
    /// After a removal (`in_seam`), the leading whitespace of the prose after it, until
    /// its first visible character says how the seam folds. Kept between seams, so that
    /// its buffer is reused.
    seam: String,
    /// A removal's seam is open: `seam` holds its right side.
    in_seam: bool,
    /// Text ready to be handed out.
    out: String,
    /// How much was handed out before `out`.
    handed: usize,
}

impl MessageBuilder {
    /// Appends prose.
    pub(crate) fn kept(&mut self, text: &str) {
        let mut rest = text;
        if self.in_seam {
            let visible = rest.trim_start();
            self.seam.push_str(&rest[..rest.len() - visible.len()]);
            rest = visible;
            if rest.is_empty() {
                return;
            }
            self.in_seam = false;
            if self.started {
                fold_seam(&mut self.left, &self.seam, rest);
            }
        }
        let body = rest.trim_end();
        if body.is_empty() {
            if self.started {
                self.left.push_str(rest);
            }
            return;
        }
        let trailing = &rest[body.len()..];
        if self.started {
            self.out.push_str(&self.left);
            self.out.push_str(body);
        } else {
            self.out.push_str(body.trim_start());
            self.started = true;
        }
        self.left.clear();
        self.left.push_str(trailing);
    }

    /// Records a removed block at the current end of the text.
    pub(crate) fn removed(&mut self) {
        if self.in_seam && self.started {
            // The prose between two removals was all whitespace.
            fold_seam(&mut self.left, &self.seam, "");
        }
        self.in_seam = true;
        self.seam.clear();
    }

    /// The message text that is final, if any since the last call.
    pub(crate) fn take(&mut self) -> Option<String> {
        self.handed += self.out.len();
        (!self.out.is_empty()).then(|| std::mem::take(&mut self.out))
    }

    /// How long the message is so far: what is final, handed out or not.
    pub(crate) fn len(&self) -> usize {
        self.handed + self.out.len()
    }

    /// The rest of the message: what is final once no more text comes.
    pub(crate) fn finish(mut self) -> String {
        std::mem::take(&mut self.out)
    }
}

/// The spans removed from `text`: each block's span (`blocks`, in order, disjoint) with
/// its seam, the whitespace on both sides of it up to the text around it (docs/spec.md
/// §1.9): the message is the text outside them, trimmed, with only whitespace from each
/// seam put back at it ([`fold_seam`]). One pass over the seams' whitespace.
pub(crate) fn with_seams(
    text: &str,
    mut blocks: Vec<std::ops::Range<usize>>,
) -> Vec<std::ops::Range<usize>> {
    let mut before = 0;
    for i in 0..blocks.len() {
        let after = blocks.get(i + 1).map_or(text.len(), |next| next.start);
        let span = &mut blocks[i];
        let left = &text[before..span.start];
        span.start -= left.len() - left.trim_end().len();
        let right = &text[span.end..after];
        span.end += right.len() - right.trim_start().len();
        before = span.end;
    }
    blocks
}

/// Folds the whitespace that stands at a seam into `left`, the whitespace left of it,
/// given the whitespace right of it and the text that follows (`next`, from its first
/// visible character). Three or more line breaks in all become one blank line, in the
/// text's own line ending (CRLF stays CRLF); spaces on both sides (no line break) become
/// the left side's alone; anything else is kept as it was. A block on a line of its own
/// leaves its line breaks on both sides, so `A\nBLOCK\nB` keeps its paragraph: `A\n\nB`;
/// but in a list (the next line is a list item, as when a block indented under a nested
/// bullet is removed) the line goes with the block, so the list stays one list.
pub(crate) fn fold_seam(left: &mut String, right: &str, next: &str) {
    let breaks = |side: &str| side.bytes().filter(|&b| b == b'\n').count();
    let (left_breaks, right_breaks) = (breaks(left), breaks(right));
    let newlines = left_breaks + right_breaks;
    if left_breaks == 1 && right_breaks == 1 && starts_list_item(next) {
        left.push_str(&right[right.find('\n').map_or(0, |n| n + 1)..]);
    } else if newlines >= 3 {
        let blank_line = if left.contains("\r\n") || right.contains("\r\n") {
            "\r\n\r\n"
        } else {
            "\n\n"
        };
        left.clear();
        left.push_str(blank_line);
    } else if newlines > 0 || left.is_empty() {
        left.push_str(right);
    }
}

/// Whether `text` starts with a list item's marker: a bullet (`-`, `*`, `+`, `•`) or
/// one to three digits and `.` or `)`, then a space. (The segmenter gives a line's
/// start out only once it is known whether it is such a prefix, so the stream decides
/// this on the same text as the one-shot parse.)
fn starts_list_item(text: &str) -> bool {
    let mut chars = text.chars();
    let after = match chars.next() {
        Some('-' | '*' | '+' | '•') => chars.next(),
        Some(c) if c.is_ascii_digit() => {
            let digits = text.bytes().take_while(u8::is_ascii_digit).count();
            if digits > 3 || !matches!(text.as_bytes().get(digits), Some(b'.' | b')')) {
                return false;
            }
            text[digits + 1..].chars().next()
        }
        _ => return false,
    };
    after.is_some_and(|c| c == ' ' || c == '\t')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs prose (`Some`) and removals (`None`), collecting what is handed out.
    fn run(steps: &[Option<&str>]) -> String {
        let mut builder = MessageBuilder::default();
        let mut all = String::new();
        for step in steps {
            match step {
                Some(text) => builder.kept(text),
                None => builder.removed(),
            }
            all.push_str(&builder.take().unwrap_or_default());
        }
        all.push_str(&builder.finish());
        all
    }

    #[test]
    fn nothing_removed_keeps_the_text_but_trims() {
        assert_eq!(run(&[Some("  a\n\n\n\nb  ")]), "a\n\n\n\nb");
    }

    #[test]
    fn blank_runs_at_a_seam_fold_to_one_blank_line() {
        assert_eq!(
            run(&[Some("Intro\n\n"), None, Some("\n\nOutro  ")]),
            "Intro\n\nOutro"
        );
        assert_eq!(
            run(&[Some("Intro\r\n\r\n"), None, Some("\r\nOutro")]),
            "Intro\r\n\r\nOutro"
        );
    }

    #[test]
    fn a_block_on_its_own_line_keeps_the_paragraph_break() {
        assert_eq!(run(&[Some("A\n"), None, Some("\nB")]), "A\n\nB");
        assert_eq!(run(&[Some("A\r\n"), None, Some("\r\nB")]), "A\r\n\r\nB");
    }

    #[test]
    fn a_block_in_a_list_takes_its_line_with_it() {
        assert_eq!(
            run(&[Some("- a\n  - b\n"), None, Some("\n- c")]),
            "- a\n  - b\n- c"
        );
        assert_eq!(
            run(&[Some("- a\r\n  - b\r\n"), None, Some("\r\n  - c")]),
            "- a\r\n  - b\r\n  - c"
        );
        assert_eq!(run(&[Some("A\n"), None, Some("\n-x")]), "A\n\n-x");
    }

    #[test]
    fn inline_seams_keep_the_left_spaces() {
        assert_eq!(
            run(&[Some("Here it is: "), None, Some(" and more")]),
            "Here it is: and more"
        );
    }

    #[test]
    fn leading_whitespace_and_whitespace_only_segments_vanish() {
        assert_eq!(run(&[Some("  \n"), None, Some("\n\n"), None]), "");
        assert_eq!(
            run(&[Some("a\n"), None, Some("\n"), None, Some("\nb")]),
            "a\n\nb"
        );
    }
}
