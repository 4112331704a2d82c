//! The message left when blocks are removed (SPEC 1.9): every other byte kept, runs of
//! three or more newlines that a removal leaves behind folded to two, the ends trimmed.

/// Builds a message from a text and the (increasing, disjoint) ranges removed from it.
#[derive(Debug)]
pub struct MessageBuilder<'t> {
    text: &'t str,
    removed: Vec<(usize, usize)>,
}

impl<'t> MessageBuilder<'t> {
    /// A builder over `text` with nothing removed yet.
    pub fn new(text: &'t str) -> Self {
        MessageBuilder {
            text,
            removed: Vec::new(),
        }
    }

    /// Removes `start..end` (after every range removed so far).
    pub fn remove(&mut self, start: usize, end: usize) {
        debug_assert!(self.removed.last().is_none_or(|&(_, e)| e <= start));
        if start < end {
            self.removed.push((start, end));
        }
    }

    /// The message.
    pub fn finish(self) -> String {
        let mut out = String::with_capacity(self.text.len());
        let mut kept_from = 0;
        for (i, &(start, end)) in self.removed.iter().enumerate() {
            let segment = &self.text[kept_from..start];
            if i == 0 {
                out.push_str(segment);
            } else {
                join_at_seam(&mut out, segment);
            }
            kept_from = end;
        }
        let tail = &self.text[kept_from..];
        if self.removed.is_empty() {
            out.push_str(tail);
        } else {
            join_at_seam(&mut out, tail);
        }
        let trimmed = out.trim();
        if trimmed.len() == out.len() {
            out
        } else {
            trimmed.to_string()
        }
    }
}

/// Appends `segment` where a removal was, folding the whitespace on both sides of the
/// seam ([`fold_seam`]).
pub fn join_at_seam(out: &mut String, segment: &str) {
    let left_start = out.trim_end().len();
    let right = segment.trim_start();
    let right_ws = &segment[..segment.len() - right.len()];
    let folded = fold_seam(&out[left_start..], right_ws);
    out.truncate(left_start);
    out.push_str(&folded);
    out.push_str(right);
}

/// The whitespace that stands at a seam, given the whitespace left of it and right of
/// it: three or more newlines in all become one blank line; spaces on both sides (no
/// newline) become the left side's alone; anything else is kept as it was. The
/// streaming parser folds with this too, so its deltas add up to the same message.
pub fn fold_seam(left: &str, right: &str) -> String {
    let newlines = left.matches('\n').count() + right.matches('\n').count();
    if newlines >= 3 {
        "\n\n".to_string()
    } else if newlines == 0 && !left.is_empty() {
        left.to_string()
    } else {
        let mut joined = String::with_capacity(left.len() + right.len());
        joined.push_str(left);
        joined.push_str(right);
        joined
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn without(text: &str, ranges: &[(usize, usize)]) -> String {
        let mut builder = MessageBuilder::new(text);
        for &(s, e) in ranges {
            builder.remove(s, e);
        }
        builder.finish()
    }

    #[test]
    fn nothing_removed_keeps_the_text_but_trims() {
        assert_eq!(without("  a\n\n\n\nb  ", &[]), "a\n\n\n\nb");
    }

    #[test]
    fn seams_fold_blank_runs_to_one_blank_line() {
        let text = "Intro\n\nBLOCK\n\nOutro";
        let s = text.find("BLOCK").unwrap();
        assert_eq!(without(text, &[(s, s + 5)]), "Intro\n\nOutro");
    }

    #[test]
    fn inline_removal_leaves_one_space() {
        let text = "Here it is: BLOCK and more";
        let s = text.find("BLOCK").unwrap();
        assert_eq!(without(text, &[(s, s + 5)]), "Here it is: and more");
    }

    #[test]
    fn removing_everything_gives_an_empty_message() {
        assert_eq!(without("BLOCK", &[(0, 5)]), "");
    }
}
