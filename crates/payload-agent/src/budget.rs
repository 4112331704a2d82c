//! How much of a conversation's history a model is sent: a budget in characters (or
//! an estimate of tokens), met by leaving out whole turns, oldest first. A conversation
//! can go on for thousands of turns; without a bound every request would carry all of
//! them, growing past what a provider accepts and what a turn should cost.

use crate::ModelMessage;

/// The most history one request carries, counted in bytes of the messages' text (a
/// tool call's input, a tool's result and the blocks a provider reads back included):
/// UTF-8 bytes, so the bound holds for any script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryBudget {
    /// The characters the earlier turns may take together.
    pub chars: usize,
}

/// Characters per token in the estimate [`HistoryBudget::tokens`] makes: about what
/// the providers' tokenizers give for English prose and JSON.
pub const CHARS_PER_TOKEN: usize = 4;

impl Default for HistoryBudget {
    /// 64,000 characters, about 16,000 tokens: dozens of ordinary turns, well within
    /// every supported model's context window with the system prompt beside it.
    fn default() -> Self {
        HistoryBudget { chars: 64_000 }
    }
}

impl HistoryBudget {
    /// A budget of about `tokens` tokens ([`CHARS_PER_TOKEN`] characters each).
    pub fn tokens(tokens: usize) -> HistoryBudget {
        HistoryBudget {
            chars: tokens.saturating_mul(CHARS_PER_TOKEN),
        }
    }

    /// The earlier turns of `history` that fit the budget, and how many turns were left
    /// out. A turn is a user message with everything after it up to the next user
    /// message (answers, tool calls, tool results); turns leave whole, oldest first, so
    /// what is kept is the conversation's most recent stretch, starting with a user
    /// message once any turn is left out. Messages before the first user message are
    /// the oldest stretch, kept only when everything fits.
    pub fn trim(&self, history: Vec<ModelMessage>) -> (Vec<ModelMessage>, usize) {
        let users: Vec<usize> = history
            .iter()
            .enumerate()
            .filter(|(_, m)| matches!(m, ModelMessage::User { .. }))
            .map(|(i, _)| i)
            .collect();
        // Messages before the first user message are one more stretch, the oldest.
        let mut starts = users.clone();
        if !history.is_empty() && starts.first() != Some(&0) {
            starts.insert(0, 0);
        }
        // From the newest turn back, as many as fit.
        let mut used = 0usize;
        let mut keep_from = history.len();
        for (k, &start) in starts.iter().enumerate().rev() {
            let end = starts.get(k + 1).copied().unwrap_or(history.len());
            let size: usize = history[start..end].iter().map(chars).sum();
            if used.saturating_add(size) > self.chars {
                break;
            }
            used += size;
            keep_from = start;
        }
        let dropped = users.iter().filter(|&&start| start < keep_from).count();
        if keep_from == 0 {
            return (history, dropped);
        }
        (history.into_iter().skip(keep_from).collect(), dropped)
    }
}

/// The bytes of text `message` puts into a request's history.
fn chars(message: &ModelMessage) -> usize {
    match message {
        ModelMessage::User { text } => text.len(),
        ModelMessage::Assistant {
            text,
            tool_calls,
            replay,
        } => {
            text.len()
                + tool_calls
                    .iter()
                    .map(|call| call.name.len() + call.input.to_string().len())
                    .sum::<usize>()
                + replay
                    .iter()
                    .map(|block| block.block.to_string().len())
                    .sum::<usize>()
        }
        ModelMessage::Tool { name, text, .. } => name.len() + text.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conversation(turns: usize, size: usize) -> Vec<ModelMessage> {
        (0..turns)
            .flat_map(|t| {
                [
                    ModelMessage::user(format!("{t:0size$}")),
                    ModelMessage::assistant("a".repeat(size)),
                ]
            })
            .collect()
    }

    #[test]
    fn the_oldest_turns_leave_first_and_whole() {
        let budget = HistoryBudget { chars: 45 };
        let (kept, dropped) = budget.trim(conversation(10, 10));
        // Each turn is 20 characters: two fit.
        assert_eq!(dropped, 8);
        assert_eq!(kept.len(), 4);
        assert_eq!(kept[0], ModelMessage::user("0000000008"));
        assert_eq!(kept[3], ModelMessage::assistant("a".repeat(10)));
    }

    #[test]
    fn what_fits_is_kept_unchanged() {
        let history = conversation(3, 5);
        let (kept, dropped) = HistoryBudget::default().trim(history.clone());
        assert_eq!((kept, dropped), (history, 0));
    }

    #[test]
    fn a_turn_larger_than_the_budget_leaves_and_the_rest_too() {
        let mut history = conversation(2, 5);
        history.push(ModelMessage::user("x".repeat(100)));
        let (kept, dropped) = HistoryBudget { chars: 50 }.trim(history);
        assert!(kept.is_empty());
        assert_eq!(dropped, 3);
    }

    fn message(role: u8, len: usize) -> ModelMessage {
        match role {
            0 => ModelMessage::user("u".repeat(len)),
            1 => ModelMessage::assistant("a".repeat(len)),
            _ => ModelMessage::Tool {
                id: "t".into(),
                name: "tool".into(),
                text: "r".repeat(len),
            },
        }
    }

    proptest::proptest! {
        /// What is kept is the longest stretch of whole turns, newest last, that fits
        /// the budget, and the count of turns left out is the count of user messages
        /// before it.
        #[test]
        fn the_kept_history_is_the_longest_recent_stretch_that_fits(
            shape in proptest::collection::vec((0u8..3, 0usize..40), 0..40),
            chars in 0usize..400,
        ) {
            let history: Vec<ModelMessage> =
                shape.iter().map(|&(role, len)| message(role, len)).collect();
            let budget = HistoryBudget { chars };
            let (kept, dropped) = budget.trim(history.clone());
            let cut = history.len() - kept.len();
            proptest::prop_assert_eq!(&history[cut..], &kept[..]);
            let size = |m: &[ModelMessage]| m.iter().map(super::chars).sum::<usize>();
            proptest::prop_assert!(size(&kept) <= chars);
            let users = |m: &[ModelMessage]| {
                m.iter().filter(|m| matches!(m, ModelMessage::User { .. })).count()
            };
            proptest::prop_assert_eq!(dropped, users(&history[..cut]));
            if cut > 0 {
                let starts_with_user =
                    kept.first().is_none_or(|m| matches!(m, ModelMessage::User { .. }));
                proptest::prop_assert!(starts_with_user);
                // One more turn (back to the previous user message, or to the start)
                // would not fit.
                let previous = history[..cut]
                    .iter()
                    .rposition(|m| matches!(m, ModelMessage::User { .. }))
                    .unwrap_or(0);
                proptest::prop_assert!(size(&history[previous..]) > chars);
            }
        }
    }

    #[test]
    fn tokens_are_estimated_at_four_characters() {
        assert_eq!(HistoryBudget::tokens(1000).chars, 4000);
        assert_eq!(HistoryBudget::tokens(usize::MAX).chars, usize::MAX);
    }
}
