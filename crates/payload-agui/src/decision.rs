//! What a user decided about a proposal, as either protocol's client says it: AG-UI in
//! a `resume` entry, the AI SDK in a tool approval's response. Both are read into the
//! same [`DecisionRequest`], so a server makes every decision on one path whichever
//! protocol carried it.

use serde_json::Value;
use std::fmt;

/// What the user decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Apply it, with the user's choices (a JSON object, handed to the app's handler).
    Accept {
        /// What the client sent with the decision (`{}` for no choices).
        options: Value,
    },
    /// Refuse it.
    Dismiss,
}

impl Decision {
    /// Accepting with no choices.
    pub fn accept() -> Decision {
        Decision::Accept {
            options: Value::Object(Default::default()),
        }
    }
}

/// A decision on one proposal: the payload at `index` among the accepted payloads of
/// the answer of `turn`. Only names the proposal: the server looks it up in the
/// conversation the request belongs to and applies what it stored, never a value the
/// client sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecisionRequest {
    /// The turn whose answer proposed it.
    pub turn: usize,
    /// Its position among that answer's payloads (0 for the first).
    pub index: usize,
    /// What the user decided.
    pub decision: Decision,
}

/// Why a client's answer could not be read as decisions (nothing was decided).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError(pub String);

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputError {}

/// The id naming the proposal of `turn` at `index`: `payload-{turn}` for the first
/// payload (the id a one-payload answer has always had), `payload-{turn}-{index}` for
/// the others. AG-UI's interrupts and the AI SDK's approvals are named by it.
pub fn proposal_id(turn: usize, index: usize) -> String {
    if index == 0 {
        format!("payload-{turn}")
    } else {
        format!("payload-{turn}-{index}")
    }
}

/// The turn and index a [`proposal_id`] names; `None` for any other text. Only the
/// form [`proposal_id`] writes is read (digits, no sign, no leading zero, no `-0`
/// index), so each proposal has one id and each id one proposal.
pub fn parse_proposal_id(id: &str) -> Option<(usize, usize)> {
    let rest = id.strip_prefix("payload-")?;
    let (turn, index) = match rest.split_once('-') {
        Some((turn, index)) => (turn, Some(index)),
        None => (rest, None),
    };
    let number = |s: &str| {
        (!s.is_empty()
            && s.bytes().all(|b| b.is_ascii_digit())
            && (s == "0" || !s.starts_with('0')))
        .then(|| s.parse::<usize>().ok())
        .flatten()
    };
    let turn = number(turn)?;
    let index = match index {
        Some(index) => Some(number(index)?).filter(|i| *i != 0)?,
        None => 0,
    };
    Some((turn, index))
}

/// The options of an accept: an object, or `{}` when absent.
pub(crate) fn options(value: Option<&Value>) -> Result<Value, InputError> {
    match value {
        None | Some(Value::Null) => Ok(Value::Object(Default::default())),
        Some(options @ Value::Object(_)) => Ok(options.clone()),
        Some(_) => Err(InputError("a decision's options are an object".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn ids_name_their_proposal_and_nothing_else_parses() {
        assert_eq!(proposal_id(2, 0), "payload-2");
        assert_eq!(parse_proposal_id("payload-2"), Some((2, 0)));
        assert_eq!(parse_proposal_id("payload-2-3"), Some((2, 3)));
        for other in [
            "",
            "payload-",
            "payload--1",
            "payload-+1",
            "payload-1-",
            "payload-1-2-3",
            "payload-99999999999999999999999",
            "Payload-1",
            "payload-1 ",
            "payload-01",
            "payload-1-0",
            "payload-1-01",
        ] {
            assert_eq!(parse_proposal_id(other), None, "{other:?}");
        }
    }

    proptest! {
        #[test]
        fn an_id_reads_back_as_the_proposal_it_names(turn in any::<usize>(), index in any::<usize>()) {
            prop_assert_eq!(parse_proposal_id(&proposal_id(turn, index)), Some((turn, index)));
        }

        #[test]
        fn any_text_parses_without_panicking(id in ".{0,40}") {
            if let Some((turn, index)) = parse_proposal_id(&id) {
                prop_assert_eq!(proposal_id(turn, index), id);
            }
        }
    }
}
