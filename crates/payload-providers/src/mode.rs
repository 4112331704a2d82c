//! Which output mode a request is sent in: the caller's [`OutputMode`] resolved by what
//! the provider and model can do (docs/cli.md's provider table says it per provider).
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

/// The native schema `output` has in `dialect`, if it has one.
pub(crate) fn native(
    output: &StructuredOutput,
    dialect: payload_core::schema::Dialect,
) -> Option<&serde_json::Value> {
    output.native.get(dialect.as_str())
}

/// The output tool's input schema in `dialect`, and whether it is strict: the dialect's
/// native schema when the type has one, else the tool-mode schema (not strict).
pub(crate) fn tool_schema(
    output: &StructuredOutput,
    dialect: payload_core::schema::Dialect,
) -> (&serde_json::Value, bool) {
    match native(output, dialect) {
        Some(schema) => (schema, true),
        None => (&output.schema, false),
    }
}

/// Whether `request` has an output with a native schema in `dialect`.
pub(crate) fn has_native(
    request: &payload_agent::ModelRequest,
    dialect: payload_core::schema::Dialect,
) -> bool {
    request
        .output
        .as_ref()
        .is_some_and(|output| native(output, dialect).is_some())
}

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

/// What a client can do for its model and this output.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Capability {
    /// The provider enforces a JSON Schema on the answer for this model, and the output
    /// has a schema in the provider's dialect ([`native`]).
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
        OutputMode::Auto | OutputMode::Native if can.native => Sent::Native,
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
        let mut output = StructuredOutput::new("note", "", serde_json::json!({"type": "object"}));
        output.strict = strict;
        output.mode = mode;
        output
    }

    #[test]
    fn every_mode_resolves_by_capability() {
        let can = |native, tool, tool_first| Capability {
            native,
            tool,
            tool_first,
        };
        let out = |mode| output(mode, true);
        let all = can(true, true, true);
        assert_eq!(resolve(None, all), Sent::Marker);
        assert_eq!(resolve(Some(&out(OutputMode::Marker)), all), Sent::Marker);
        assert_eq!(resolve(Some(&out(OutputMode::Auto)), all), Sent::Native);
        assert_eq!(resolve(Some(&out(OutputMode::Tool)), all), Sent::Tool);
        assert_eq!(
            resolve(Some(&out(OutputMode::Prompted)), all),
            Sent::Prompted
        );
        // Without a native schema: the client's fallback.
        let no_native = can(false, true, true);
        assert_eq!(resolve(Some(&out(OutputMode::Auto)), no_native), Sent::Tool);
        assert_eq!(
            resolve(Some(&out(OutputMode::Native)), no_native),
            Sent::Tool
        );
        let prompted_first = can(false, true, false);
        assert_eq!(
            resolve(Some(&out(OutputMode::Auto)), prompted_first),
            Sent::Prompted
        );
        assert_eq!(
            resolve(Some(&out(OutputMode::Tool)), prompted_first),
            Sent::Tool
        );
        let neither = can(false, false, true);
        assert_eq!(
            resolve(Some(&out(OutputMode::Native)), neither),
            Sent::Prompted
        );
        assert_eq!(
            resolve(Some(&out(OutputMode::Tool)), neither),
            Sent::Prompted
        );
    }
}
