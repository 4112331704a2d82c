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
/// seam: three or more newlines become two, and spaces on both sides become the left
/// side's alone.
pub fn join_at_seam(out: &mut String, segment: &str) {
    let left_len = out.len() - out.trim_end().len();
    let right = segment.trim_start();
    let right_ws = &segment[..segment.len() - right.len()];
    let newlines =
        out[out.len() - left_len..].matches('\n').count() + right_ws.matches('\n').count();
    if newlines >= 3 {
        out.truncate(out.len() - left_len);
        out.push_str("\n\n");
        out.push_str(right);
    } else if newlines == 0 && left_len > 0 {
        out.push_str(right);
    } else {
        out.push_str(segment);
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
