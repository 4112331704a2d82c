//! The FORMAT RULES section for suggestion chips and action buttons (table.that,
//! elements 2 and 3): the format, how many, when to include them and when not, and the
//! only actions the page allows.
//!
//! Which blocks a response may combine is said once, exactly as the parser applies it
//! (`marker::combination`): at most one block of each kind; chips and buttons may go
//! together; beside a custom payload, the suggestion blocks the page's [`Combination`]
//! allows. table.that's pages allow none, and the text then gives table.that's reason
//! when every payload of the page is a proposal (the user must apply or dismiss it
//! first). The wording names no app's domain, so it holds on every page (an app with
//! its own replaces the section).

use payload_core::PayloadKind;
use payload_core::suggestions::Combination;
use payload_core::suggestions::{ActionSpec, SUGGESTED_ACTIONS_MARKER, SUGGESTED_VALUES_MARKER};
use std::fmt::Write;

/// The format rules of SUGGESTED_VALUES and SUGGESTED_ACTIONS for a page whose
/// registered actions are `actions` (page actions and global ones together), whose
/// custom payload types are of the kinds `kinds` (empty: it offers none), and whose
/// rule on the blocks that may go beside a payload is `combination`.
///
/// The actions are listed by name, handler and description, and the text says that no
/// other action may be used; with no actions it says SUGGESTED_ACTIONS must not be
/// used at all. The parser drops unregistered actions anyway (docs/spec.md §1.8): this is what
/// keeps the model from writing them in the first place.
pub fn suggestion_format_rules(
    actions: &[ActionSpec],
    kinds: &[PayloadKind],
    combination: Combination,
) -> String {
    let values = SUGGESTED_VALUES_MARKER;
    let buttons = SUGGESTED_ACTIONS_MARKER;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{values}: clickable chips; clicking one sends its value as the user's next message."
    );
    let _ = writeln!(
        out,
        "Format: the marker {values}: (capitals, with the colon), then a JSON array:"
    );
    let _ = writeln!(
        out,
        "{values}: [\n  {{\"label\": \"Display Text\", \"value\": \"text to send as next message\"}},\n  {{\"label\": \"Another Option\", \"value\": \"another thing to send\"}}\n]"
    );
    let _ = writeln!(
        out,
        "- \"label\": the chip text, 2-6 words. \"value\": the message sent when it is clicked, written as the user would write it."
    );
    let _ = writeln!(out, "- Give 2-4 items.");
    let _ = writeln!(
        out,
        "- Include them after you answered a question or did what the user asked, or when the user seems unsure what to do next; not when the conversation is clearly finished."
    );
    out.push('\n');
    match actions.first() {
        None => {
            let _ = writeln!(
                out,
                "{buttons}: no actions are available here, so never write {buttons}."
            );
        }
        Some(first) => {
            let _ = writeln!(
                out,
                "{buttons}: clickable buttons that trigger an action in the application."
            );
            let _ = writeln!(
                out,
                "Format: the marker {buttons}: (capitals, with the colon), then a JSON array:"
            );
            let _ = writeln!(
                out,
                "{buttons}: [\n  {{\"label\": \"Button Text\", \"action\": \"{}\", \"handler\": \"{}\"}}\n]",
                first.action, first.handler
            );
            let _ = writeln!(
                out,
                "- \"label\": the button text. \"action\" and \"handler\": exactly as listed below."
            );
            let _ = writeln!(
                out,
                "- Use only these actions; never invent one (anything else is discarded):"
            );
            for action in actions {
                let _ = writeln!(
                    out,
                    "  - {} (handler \"{}\"): {}",
                    action.action,
                    action.handler,
                    action
                        .description
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" ")
                );
            }
        }
    }
    out.push('\n');
    let _ = writeln!(
        out,
        "{}",
        combinations(actions.is_empty(), kinds, combination)
    );
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out
}

/// The one rule on which blocks a response may hold together.
fn combinations(no_actions: bool, kinds: &[PayloadKind], combination: Combination) -> String {
    let values = SUGGESTED_VALUES_MARKER;
    let buttons = SUGGESTED_ACTIONS_MARKER;
    let blocks = if no_actions {
        format!("at most one {values} block")
    } else {
        format!(
            "at most one {values} block and at most one {buttons} block; the two may go together"
        )
    };
    if kinds.is_empty() {
        return format!("Combining blocks: a response holds {blocks}.");
    }
    let mut allowed = Vec::new();
    let mut refused = Vec::new();
    for (marker, beside, offered) in [
        (values, combination.values_with_payload, true),
        (buttons, combination.actions_with_payload, !no_actions),
    ] {
        match (offered, beside) {
            (false, _) => {}
            (true, true) => allowed.push(marker),
            (true, false) => refused.push(marker),
        }
    }
    let payload = "A response with a payload from STRUCTURED RESPONSES";
    let beside = match (allowed.as_slice(), refused.as_slice()) {
        (_, []) => format!("{payload} may hold them too."),
        ([], refused) => {
            let none = match refused {
                [one] => format!("no {one}"),
                _ => format!("neither {values} nor {buttons}"),
            };
            // table.that's reason, given where it holds: every payload is a proposal.
            if kinds.iter().all(|kind| *kind == PayloadKind::Proposal) {
                format!(
                    "{payload} (a proposal) holds {none}: the user must apply or dismiss \
                     the proposal first."
                )
            } else {
                format!("{payload} holds {none}.")
            }
        }
        (allowed, refused) => format!(
            "{payload} may also hold {} but no {}.",
            allowed.join(" and "),
            refused.join(" or ")
        ),
    };
    format!("Combining blocks: a response holds {blocks}. {beside}")
}
