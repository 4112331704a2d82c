//! Which output mode a request is sent in: the caller's [`OutputMode`] resolved by what
//! the provider and model can do (the README's provider table says it per provider).
//!
//! The rule, the same for every client:
//! - no [`StructuredOutput`], or [`OutputMode::Marker`]: no schema is sent;
//! - `Native`: the provider's own structured output when it has one for this model and
//!   the schema is in the strict subset it enforces; otherwise the client's fallback:
//!   `Tool` where the provider's tool input follows the schema, `Prompted` where JSON
//!   mode is the safer guess (Chat Completions, whose compatible servers force tool
//!   calls unevenly);
//! - `Auto`: as `Native`;
//! - `Tool` and `Prompted`: as asked (`Tool` falls back to `Prompted` where the
//!   provider has no tools).
//!
//! A native schema constrains the answer's text only, so the page's tools stay callable
//! in native mode. In tool mode the output tool is offered beside the page's tools and
//! the model must call one of them: a tool call is never suppressed, and the answer is
//! the output tool's input.

use payload_agent::{OutputMode, StructuredOutput};

/// The mode a request is sent in, resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sent {
    /// No schema: marker pages.
    Marker,
    /// The provider's structured output.
    Native,
    /// An output tool the model must call.
    Tool,
    /// Instructions only (and JSON mode where the provider has one).
    Prompted,
}

/// What a client can do for its model.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Capability {
    /// The provider enforces a strict JSON Schema on the answer for this model.
    pub native: bool,
    /// The provider has tools whose input can carry the answer.
    pub tool: bool,
    /// `Native` and `Auto` fall back to the output tool (else to prompted).
    pub tool_first: bool,
}

/// The mode `output` is sent in by a client that can do `can`.
pub(crate) fn resolve(output: Option<&StructuredOutput>, can: Capability) -> Sent {
    let Some(output) = output else {
        return Sent::Marker;
    };
    let fallback = if can.tool && can.tool_first {
        Sent::Tool
    } else {
        Sent::Prompted
    };
    match output.mode {
        OutputMode::Marker => Sent::Marker,
        OutputMode::Auto | OutputMode::Native if can.native && output.strict => Sent::Native,
        OutputMode::Auto | OutputMode::Native => fallback,
        OutputMode::Tool if can.tool => Sent::Tool,
        OutputMode::Tool => Sent::Prompted,
        OutputMode::Prompted => Sent::Prompted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn output(mode: OutputMode, strict: bool) -> StructuredOutput {
        StructuredOutput {
            name: "note".into(),
            description: String::new(),
            schema: serde_json::json!({"type": "object"}),
            strict,
            mode,
        }
    }

    #[test]
    fn every_mode_resolves_by_capability() {
        let all = Capability {
            native: true,
            tool: true,
            tool_first: true,
        };
        let no_native = Capability {
            native: false,
            tool: true,
            tool_first: true,
        };
        let neither = Capability {
            native: false,
            tool: false,
            tool_first: true,
        };
        let prompted_first = Capability {
            native: true,
            tool: true,
            tool_first: false,
        };
        assert_eq!(
            resolve(Some(&output(OutputMode::Auto, false)), prompted_first),
            Sent::Prompted
        );
        assert_eq!(
            resolve(Some(&output(OutputMode::Tool, false)), prompted_first),
            Sent::Tool
        );
        assert_eq!(resolve(None, all), Sent::Marker);
        assert_eq!(
            resolve(Some(&output(OutputMode::Marker, true)), all),
            Sent::Marker
        );
        assert_eq!(
            resolve(Some(&output(OutputMode::Auto, true)), all),
            Sent::Native
        );
        assert_eq!(
            resolve(Some(&output(OutputMode::Auto, false)), all),
            Sent::Tool
        );
        assert_eq!(
            resolve(Some(&output(OutputMode::Native, true)), no_native),
            Sent::Tool
        );
        assert_eq!(
            resolve(Some(&output(OutputMode::Native, true)), neither),
            Sent::Prompted
        );
        assert_eq!(
            resolve(Some(&output(OutputMode::Tool, true)), all),
            Sent::Tool
        );
        assert_eq!(
            resolve(Some(&output(OutputMode::Tool, true)), neither),
            Sent::Prompted
        );
        assert_eq!(
            resolve(Some(&output(OutputMode::Prompted, true)), all),
            Sent::Prompted
        );
    }
}
