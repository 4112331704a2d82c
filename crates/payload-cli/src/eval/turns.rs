//! The turn file `payload eval` runs: scripted user turns, each on a page (marker
//! mode, as `payload chat` runs it) or for a type (a whole response), read as JSON.
//!
//! ```json
//! {
//!   "description": "a trip planner's pages",
//!   "turns": [
//!     {"page": "trips", "message": "Plan a weekend in Lisbon",
//!      "expect": "trip_proposal", "choice": "required"},
//!     {"page": "itinerary", "message": "Add a museum", "context": "itinerary-context.json"},
//!     {"type": "booking_command", "message": "Find a hotel by the river"}
//!   ]
//! }
//! ```
//!
//! `context` and `history` are what `payload chat --context` and `--history` read: a
//! JSON value written in place, or a string naming a JSON file beside the turn file.

use crate::error::CliError;
use crate::input::read_json;
use crate::text::PromptInputs;
use payload_grammar::Choice;
use serde::Deserialize;
use serde_json::Value;
use std::path::Path;

/// The file: a description and its turns.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TurnFile {
    /// What the turns exercise (shown in the report).
    #[serde(default)]
    pub description: String,
    /// The turns, run in order, each on its own (no turn sees another's answer).
    pub turns: Vec<TurnSpec>,
}

/// One scripted user turn as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TurnSpec {
    /// The page of a marker-mode turn.
    pub page: Option<String>,
    /// The type of a whole-response turn.
    #[serde(rename = "type")]
    pub type_name: Option<String>,
    /// The user's message.
    pub message: String,
    /// The payload types the app expects (one name or a list); a marker-mode turn
    /// without them expects no payload.
    #[serde(default)]
    pub expect: Expected,
    /// This turn's choice (`auto`, `required`, `none`), over the command's `--choice`.
    pub choice: Option<String>,
    /// The app's context, or the name of a JSON file holding it.
    pub context: Option<Value>,
    /// The conversation's payloads, or the name of a JSON file holding them.
    pub history: Option<Value>,
}

/// One expected type's name or several.
#[derive(Debug, Default, Deserialize)]
#[serde(untagged)]
pub(crate) enum Expected {
    /// None expected.
    #[default]
    Nothing,
    /// One type.
    One(String),
    /// Several types.
    Many(Vec<String>),
}

impl Expected {
    pub(crate) fn names(&self) -> Vec<String> {
        match self {
            Expected::Nothing => Vec::new(),
            Expected::One(name) => vec![name.clone()],
            Expected::Many(names) => names.clone(),
        }
    }
}

/// A turn ready to run.
#[derive(Debug)]
pub(crate) struct Turn {
    /// Marker mode on a page, or a whole response of a type.
    pub target: TurnTarget,
    /// The user's message.
    pub message: String,
    /// The payload types expected (whole-response turns: the type).
    pub expected: Vec<String>,
    /// The choice this turn's grammar is made with.
    pub choice: Choice,
    /// The context and history of the system prompt.
    pub inputs: PromptInputs,
}

/// Where a turn runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TurnTarget {
    /// Marker mode on this page.
    Page(String),
    /// A whole response of this type, as JSON.
    Type(String),
}

impl TurnTarget {
    /// `page NAME` or `type NAME`, for reports.
    pub(crate) fn label(&self) -> String {
        match self {
            TurnTarget::Page(page) => format!("page {page}"),
            TurnTarget::Type(name) => format!("type {name}"),
        }
    }
}

/// Reads the turn file at `path`: its description and its turns, each turn's choice
/// defaulting to `choice`.
pub(crate) fn read(
    path: &Path,
    choice: Choice,
    limit: u64,
) -> Result<(String, Vec<Turn>), CliError> {
    let file: TurnFile = serde_json::from_value(read_json(&path.to_path_buf(), limit)?)
        .map_err(|e| CliError::Usage(format!("{}: not a turn file: {e}", path.display())))?;
    let base = path.parent().unwrap_or(Path::new("."));
    let turns = file
        .turns
        .into_iter()
        .enumerate()
        .map(|(index, spec)| {
            let at = |what: String| {
                CliError::Usage(format!("{}: turn {}: {what}", path.display(), index + 1))
            };
            let target = match (spec.page, spec.type_name) {
                (Some(page), None) => TurnTarget::Page(page),
                (None, Some(name)) => TurnTarget::Type(name),
                _ => return Err(at("give either \"page\" or \"type\"".into())),
            };
            let choice = match &spec.choice {
                Some(name) => name.parse().map_err(at)?,
                None => choice,
            };
            let mut expected = spec.expect.names();
            if let TurnTarget::Type(name) = &target {
                expected = vec![name.clone()];
            }
            let context = spec
                .context
                .map(|value| inline_or_file(value, base, limit))
                .transpose()?;
            let history = match spec.history {
                Some(value) => serde_json::from_value(inline_or_file(value, base, limit)?)
                    .map_err(|e| at(format!("history: {e}")))?,
                None => Vec::new(),
            };
            Ok(Turn {
                target,
                message: spec.message,
                expected,
                choice,
                inputs: PromptInputs { context, history },
            })
        })
        .collect::<Result<Vec<Turn>, CliError>>()?;
    Ok((file.description, turns))
}

/// A JSON value written in place, or the value in the file a string names (relative
/// to the turn file).
fn inline_or_file(value: Value, base: &Path, limit: u64) -> Result<Value, CliError> {
    match value {
        Value::String(name) => read_json(&base.join(name), limit),
        other => Ok(other),
    }
}
