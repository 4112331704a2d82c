//! The text half of the stream: kept text in, display-ready deltas out.
//!
//! The one-shot parser builds the message from the kept segments and folds the
//! whitespace at each seam a removal leaves (`message::join_at_seam`), then trims the
//! ends. This emitter does the same fold as the text arrives, so the deltas add up to
//! the final message exactly: trailing whitespace is held until something that is not
//! whitespace follows it (it may be folded away or trimmed), and whitespace before the
//! first visible character is dropped.

use crate::message::fold_seam as fold;

/// Turns kept text and removals into the text the user sees.
#[derive(Debug, Default)]
pub(crate) struct TextEmitter {
    /// Something visible has been emitted (leading whitespace is trimmed until then).
    started: bool,
    /// Whitespace at the end of the message so far, not emitted yet.
    left: String,
    /// After a removal, the leading whitespace of the next segment, until its first
    /// visible character says how the seam folds.
    seam: Option<String>,
    /// Text ready to be sent as a delta.
    out: String,
}

impl TextEmitter {
    /// Appends kept text.
    pub(crate) fn kept(&mut self, text: &str) {
        let mut rest = text;
        if let Some(right) = &mut self.seam {
            let visible = rest.trim_start();
            right.push_str(&rest[..rest.len() - visible.len()]);
            rest = visible;
            if rest.is_empty() {
                return;
            }
            let right = self.seam.take().unwrap_or_default();
            if self.started {
                self.left = fold(&self.left, &right);
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
        if let Some(right) = self.seam.take() {
            // The segment between two removals was all whitespace.
            if self.started {
                self.left = fold(&self.left, &right);
            }
        }
        self.seam = Some(String::new());
    }

    /// The text ready to be shown, if any.
    pub(crate) fn take(&mut self) -> Option<String> {
        (!self.out.is_empty()).then(|| std::mem::take(&mut self.out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(steps: &[Option<&str>]) -> String {
        let mut emitter = TextEmitter::default();
        let mut all = String::new();
        for step in steps {
            match step {
                Some(text) => emitter.kept(text),
                None => emitter.removed(),
            }
            all.push_str(&emitter.take().unwrap_or_default());
        }
        all
    }

    #[test]
    fn blank_runs_at_a_seam_fold_to_one_blank_line() {
        assert_eq!(
            run(&[Some("Intro\n\n"), None, Some("\n\nOutro  ")]),
            "Intro\n\nOutro"
        );
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
