//! What `payload eval` reports: each turn's outcome, and the totals overall and per
//! page or type, as JSON or as Markdown tables.

use payload_agent::RefusalReason;
use payload_grammar::Choice;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;

/// A payload the parser refused in a turn's final answer.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct RejectedOutcome {
    /// The payload type.
    #[serde(rename = "type")]
    pub kind: String,
    /// The kinds of its errors (`missing`, `validation`, `truncated`, ...), in order.
    pub errors: Vec<String>,
    /// The first error's message, to read why.
    pub first: String,
}

impl RejectedOutcome {
    /// The outcome of a payload of type `kind` refused with `errors`.
    pub(crate) fn of(kind: &str, errors: &[payload_core::PayloadError]) -> RejectedOutcome {
        RejectedOutcome {
            kind: kind.to_string(),
            errors: errors
                .iter()
                .map(|e| e.kind().as_str().to_string())
                .collect(),
            first: errors
                .first()
                .map(|e| e.message().to_owned())
                .unwrap_or_default(),
        }
    }
}

/// What one turn gave.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct TurnOutcome {
    /// `page NAME` or `type NAME`.
    pub target: String,
    /// The user's message.
    pub message: String,
    /// The choice its grammar was made with (when one was sent).
    pub choice: Choice,
    /// The payload types the app expected.
    pub expected: Vec<String>,
    /// Whether a payload of an expected type was accepted; `None` when none was
    /// expected.
    pub accepted: Option<bool>,
    /// The accepted payload's type, if any (the expected one when several were
    /// accepted and one of them was expected).
    pub payload: Option<String>,
    /// Every accepted custom payload's type, in text order: each payload block of the
    /// answer is its own count (a page's count may let an answer hold several).
    pub payloads: Vec<String>,
    /// The payloads refused in the final answer.
    pub rejected: Vec<RejectedOutcome>,
    /// Near-miss markers and markers without a value in the final answer.
    pub near_misses: usize,
    /// How often the turn asked the model again to correct a payload.
    pub reasks: usize,
    /// Whether a re-ask ended in an accepted payload.
    pub recovered: bool,
    /// Whether the last answer was cut by the token limit.
    pub truncated: bool,
    /// Tokens of the requests, summed over the turn's calls.
    pub input_tokens: u64,
    /// Tokens of the answers, summed over the turn's calls.
    pub output_tokens: u64,
    /// Milliseconds from sending the first request to its first content.
    pub first_token_ms: Option<u64>,
    /// Milliseconds the whole turn took.
    pub total_ms: u64,
    /// The refusal or content filter's stop the turn ended in, if it did: an outcome
    /// counted apart (`refused`, `filtered`), not a failure and not a rejected payload.
    pub refusal: Option<crate::chat::RefusalOutcome>,
    /// The failure that ended the turn, if any.
    pub error: Option<String>,
    /// The last answer's text, to read what the model did.
    pub text: String,
}

/// Totals over some turns.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct Summary {
    /// Turns run.
    pub turns: usize,
    /// Turns that expected a payload.
    pub expecting: usize,
    /// Of those, turns whose payload was accepted.
    pub accepted: usize,
    /// `accepted / expecting`, when any turn expected a payload.
    pub acceptance: Option<f64>,
    /// Payload blocks in the final answers, each counted on its own: the accepted
    /// custom payloads and the refused blocks.
    pub blocks: usize,
    /// Of those, the accepted custom payloads.
    pub blocks_accepted: usize,
    /// Accepted custom payloads, counted by type.
    pub accepted_by_type: BTreeMap<String, usize>,
    /// Refused payloads' errors, counted by kind.
    pub rejected_by_kind: BTreeMap<String, usize>,
    /// Near-miss markers.
    pub near_misses: usize,
    /// Re-asks, and how many of the turns with one recovered.
    pub reasks: usize,
    /// Turns a re-ask recovered.
    pub recovered: usize,
    /// Turns cut by the token limit.
    pub truncated: usize,
    /// Turns the model refused (`refusal` with reason `refusal`).
    pub refused: usize,
    /// Turns the provider's content filter stopped (reason `content_filter`).
    pub filtered: usize,
    /// Turns that failed (the model or the time limit).
    pub errors: usize,
    /// Tokens in and out.
    pub input_tokens: u64,
    /// Tokens of the answers.
    pub output_tokens: u64,
    /// Mean milliseconds to the first content.
    pub mean_first_token_ms: Option<u64>,
    /// Mean milliseconds per turn.
    pub mean_total_ms: u64,
}

impl Summary {
    /// The totals of `turns`.
    pub(crate) fn of<'a>(turns: impl IntoIterator<Item = &'a TurnOutcome>) -> Summary {
        let mut summary = Summary::default();
        let mut first = Vec::new();
        let mut total = 0u64;
        for turn in turns {
            summary.turns += 1;
            if let Some(accepted) = turn.accepted {
                summary.expecting += 1;
                summary.accepted += usize::from(accepted);
            }
            summary.blocks += turn.payloads.len() + turn.rejected.len();
            summary.blocks_accepted += turn.payloads.len();
            for kind in &turn.payloads {
                *summary.accepted_by_type.entry(kind.clone()).or_default() += 1;
            }
            for rejected in &turn.rejected {
                for kind in &rejected.errors {
                    *summary.rejected_by_kind.entry(kind.clone()).or_default() += 1;
                }
            }
            summary.near_misses += turn.near_misses;
            summary.reasks += turn.reasks;
            summary.recovered += usize::from(turn.recovered);
            summary.truncated += usize::from(turn.truncated);
            match turn.refusal.as_ref().map(|r| r.reason) {
                Some(RefusalReason::ContentFilter) => summary.filtered += 1,
                Some(_) => summary.refused += 1,
                None => {}
            }
            summary.errors += usize::from(turn.error.is_some());
            summary.input_tokens += turn.input_tokens;
            summary.output_tokens += turn.output_tokens;
            first.extend(turn.first_token_ms);
            total += turn.total_ms;
        }
        summary.acceptance =
            (summary.expecting > 0).then(|| summary.accepted as f64 / summary.expecting as f64);
        summary.mean_first_token_ms =
            (!first.is_empty()).then(|| first.iter().sum::<u64>() / first.len() as u64);
        summary.mean_total_ms = total / summary.turns.max(1) as u64;
        summary
    }
}

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Report {
    /// The turn file's description.
    pub description: String,
    /// The provider and model.
    pub model: String,
    /// The grammar target sent, if any (`gbnf`, `lark`, `structural-tag`), and
    /// whether it was lazy.
    pub constrain: Option<String>,
    /// Totals over every turn.
    pub overall: Summary,
    /// Totals per page or type, in the order first met.
    pub groups: Vec<(String, Summary)>,
    /// Each turn.
    pub turns: Vec<TurnOutcome>,
}

impl Report {
    /// The report of `turns`.
    pub(crate) fn new(
        description: String,
        model: String,
        constrain: Option<String>,
        turns: Vec<TurnOutcome>,
    ) -> Report {
        let mut labels: Vec<String> = Vec::new();
        for turn in &turns {
            if !labels.contains(&turn.target) {
                labels.push(turn.target.clone());
            }
        }
        let groups = labels
            .into_iter()
            .map(|label| {
                let summary = Summary::of(turns.iter().filter(|t| t.target == label));
                (label, summary)
            })
            .collect();
        Report {
            description,
            model,
            constrain,
            overall: Summary::of(&turns),
            groups,
            turns,
        }
    }

    /// The report as Markdown: the totals per page or type and overall, then each turn.
    pub(crate) fn markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{}: {}, {}\n",
            if self.description.is_empty() {
                "payload eval"
            } else {
                &self.description
            },
            self.model,
            self.constrain.as_deref().unwrap_or("no grammar")
        );
        out.push_str("| turns on | turns | accepted | payload blocks accepted | rejected (by kind) | near-miss markers | re-asks (recovered) | truncated | refused / filtered | errors | tokens in / out | first token | turn |\n");
        out.push_str("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        let rows = self
            .groups
            .iter()
            .map(|(label, s)| (label.as_str(), s))
            .chain(std::iter::once(("**all**", &self.overall)));
        for (label, s) in rows {
            let turn = format!("{:.1} s", s.mean_total_ms as f64 / 1000.0);
            let _ = writeln!(
                out,
                "| {label} | {} | {} | {}/{} | {} | {} | {} ({}) | {} | {} / {} | {} | {} / {} | {} | {turn} |",
                s.turns,
                accepted(s),
                s.blocks_accepted,
                s.blocks,
                by_kind(&s.rejected_by_kind),
                s.near_misses,
                s.reasks,
                s.recovered,
                s.truncated,
                s.refused,
                s.filtered,
                s.errors,
                s.input_tokens,
                s.output_tokens,
                s.mean_first_token_ms
                    .map_or("-".into(), |ms| format!("{:.1} s", ms as f64 / 1000.0)),
            );
        }
        out.push_str("\n| # | turn | choice | message | result | re-asks | truncated | tokens out | turn |\n");
        out.push_str("|---|---|---|---|---|---|---|---|---|\n");
        for (index, t) in self.turns.iter().enumerate() {
            let result = match (&t.error, t.accepted, &t.payload) {
                (Some(error), _, _) => format!("error: {}", cell(error, 60)),
                (None, _, _) if t.refusal.is_some() => {
                    let refusal = t.refusal.as_ref().map(|r| (r.reason, r.message.as_str()));
                    let (reason, message) = refusal.unwrap_or((RefusalReason::Refusal, ""));
                    let said = match reason {
                        RefusalReason::ContentFilter => "filtered",
                        _ => "refused",
                    };
                    format!("{said}: {}", cell(message, 60))
                }
                // Several payloads: each named, in the order written.
                (None, Some(true), Some(_)) if t.payloads.len() > 1 => {
                    format!("accepted {}", t.payloads.join(", "))
                }
                (None, Some(true), Some(kind)) => format!("accepted {kind}"),
                (None, Some(true), None) => "accepted".into(),
                (None, _, _) if !t.rejected.is_empty() => format!(
                    "rejected {}",
                    t.rejected
                        .iter()
                        .map(|r| format!("{} ({})", r.kind, r.errors.join(", ")))
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
                (None, Some(false), _) => "no payload".into(),
                (None, None, Some(kind)) => format!("{kind} (not expected)"),
                (None, None, None) => "text".into(),
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {:.1} s |",
                index + 1,
                t.target,
                t.choice,
                cell(&t.message, 50),
                result,
                t.reasks,
                if t.truncated { "yes" } else { "no" },
                t.output_tokens,
                t.total_ms as f64 / 1000.0
            );
        }
        out
    }
}

fn accepted(s: &Summary) -> String {
    match s.acceptance {
        Some(rate) => format!("{}/{} ({:.0}%)", s.accepted, s.expecting, rate * 100.0),
        None => "-".into(),
    }
}

fn by_kind(kinds: &BTreeMap<String, usize>) -> String {
    if kinds.is_empty() {
        return "0".into();
    }
    kinds
        .iter()
        .map(|(kind, n)| format!("{kind} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `text` as one table cell: one line, `|` escaped, at most `max` characters.
fn cell(text: &str, max: usize) -> String {
    let line: String = text
        .chars()
        .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
        .take(max)
        .collect();
    let line = line.replace('|', "\\|");
    if text.chars().count() > max {
        format!("{line}…")
    } else {
        line
    }
}
