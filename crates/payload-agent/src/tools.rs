//! Tools (seed 001): functions the model may call during a turn, registered at link
//! time and available on every page. A tool returns text for the model and, if it has
//! something to show, a payload for the client; a tool payload takes precedence over
//! one the model writes (SPEC 1.10).
//!
//! ```ignore
//! fn search_pubmed(input: &Value, ctx: &ToolContext) -> ToolResult { ... }
//! payload_agent::register_tool!(Tool::new(
//!     "search_pubmed",
//!     "Search PubMed for articles",
//!     payload_agent::tool_schema::<SearchInput>,
//!     search_pubmed,
//! ));
//! ```

use payload_core::CustomPayload;
use serde::Serialize;
use serde_json::Value;
use std::cell::RefCell;

/// A tool the model can call.
#[derive(Debug, Clone, Copy)]
pub struct Tool {
    /// The name the model calls it by (e.g. `search_pubmed`).
    pub name: &'static str,
    /// What it does, for the model.
    pub description: &'static str,
    /// The JSON Schema of its input (write [`tool_schema::<Input>`](tool_schema)).
    pub input_schema: fn() -> Value,
    /// Runs the tool.
    pub execute: fn(&Value, &ToolContext) -> ToolResult,
}

impl Tool {
    /// A tool, ready for [`crate::register_tool!`].
    pub const fn new(
        name: &'static str,
        description: &'static str,
        input_schema: fn() -> Value,
        execute: fn(&Value, &ToolContext) -> ToolResult,
    ) -> Tool {
        Tool {
            name,
            description,
            input_schema,
            execute,
        }
    }

    /// The registered tool named `name`.
    pub fn find(name: &str) -> Option<&'static Tool> {
        inventory::iter::<Tool>.into_iter().find(|t| t.name == name)
    }

    /// Every registered tool, by name.
    pub fn all() -> Vec<&'static Tool> {
        let mut tools: Vec<&'static Tool> = inventory::iter::<Tool>.into_iter().collect();
        tools.sort_by_key(|t| t.name);
        tools
    }

    /// What the model is told about the tool.
    pub fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name.to_string(),
            description: self.description.to_string(),
            input_schema: (self.input_schema)(),
        }
    }
}

inventory::collect!(Tool);

/// The JSON Schema of a tool's input type, for [`Tool::input_schema`].
pub fn tool_schema<T: schemars::JsonSchema>() -> Value {
    serde_json::to_value(schemars::schema_for!(T)).unwrap_or(Value::Null)
}

/// A tool as a model API describes it: name, description, input schema.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolSpec {
    /// The tool's name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Its input's JSON Schema.
    pub input_schema: Value,
}

/// What a tool returns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolResult {
    /// What the model sees.
    pub text: String,
    /// What the client shows (`{type, data}`), if anything.
    pub payload: Option<CustomPayload>,
}

impl ToolResult {
    /// A result with text for the model and nothing for the client.
    pub fn text(text: impl Into<String>) -> ToolResult {
        ToolResult {
            text: text.into(),
            payload: None,
        }
    }

    /// Adds a payload for the client.
    pub fn with_payload(mut self, kind: impl Into<String>, data: Value) -> ToolResult {
        self.payload = Some(CustomPayload::new(kind, data));
        self
    }

    /// A failure the model should read and may recover from (bad input, no results).
    pub fn error(message: impl std::fmt::Display) -> ToolResult {
        ToolResult::text(format!("Error: {message}"))
    }
}

/// What a tool knows about the turn it runs in.
#[derive(Debug, Default)]
pub struct ToolContext {
    /// The page the chat is on (`current_page`).
    pub page: String,
    /// The frontend's context object (report id, active tab, ...).
    pub context: Value,
    progress: RefCell<Vec<String>>,
}

impl ToolContext {
    /// The context of a turn on `page`.
    pub fn new(page: impl Into<String>, context: Value) -> ToolContext {
        ToolContext {
            page: page.into(),
            context,
            progress: RefCell::new(Vec::new()),
        }
    }

    /// Reports progress (sent to the client as `tool_progress`).
    pub fn progress(&self, message: impl Into<String>) {
        self.progress.borrow_mut().push(message.into());
    }

    /// The progress reported since the last call.
    pub(crate) fn take_progress(&self) -> Vec<String> {
        std::mem::take(&mut *self.progress.borrow_mut())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(schemars::JsonSchema, serde::Deserialize)]
    #[allow(dead_code)]
    struct EchoInput {
        /// What to echo.
        text: String,
    }

    fn echo(input: &Value, ctx: &ToolContext) -> ToolResult {
        ctx.progress("echoing");
        match input.get("text").and_then(Value::as_str) {
            Some(text) => ToolResult::text(text).with_payload("echo", json!({"text": text})),
            None => ToolResult::error("`text` is required"),
        }
    }

    crate::register_tool!(Tool::new(
        "test_echo",
        "Echoes its input",
        tool_schema::<EchoInput>,
        echo
    ));

    #[test]
    fn registered_tools_are_found_by_name_and_run() {
        let tool = Tool::find("test_echo").expect("registered");
        assert!(Tool::all().iter().any(|t| t.name == "test_echo"));
        assert!(Tool::find("nope").is_none());
        let ctx = ToolContext::new("reports", json!({}));
        let result = (tool.execute)(&json!({"text": "hi"}), &ctx);
        assert_eq!(result.text, "hi");
        assert_eq!(result.payload.unwrap().kind, "echo");
        assert_eq!(ctx.take_progress(), vec!["echoing".to_string()]);
        let failed = (tool.execute)(&json!({}), &ctx);
        assert!(failed.text.starts_with("Error:") && failed.payload.is_none());
    }

    #[test]
    fn the_spec_carries_the_input_schema() {
        let spec = Tool::find("test_echo").unwrap().spec();
        assert_eq!(spec.input_schema["properties"]["text"]["type"], "string");
        assert_eq!(spec.input_schema["required"], json!(["text"]));
    }
}
