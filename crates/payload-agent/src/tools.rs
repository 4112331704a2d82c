//! Tools (the chat architecture app): functions the model may call during a turn, registered at
//! link time and offered on the pages that name them. A tool returns text for the model
//! and, if it has something to show, a payload for the client; a tool payload takes
//! precedence over one the model writes (docs/spec.md §1.10).
//!
//! The model's input is checked against the tool's input schema before the tool runs:
//! input that does not match goes back to the model as the tool's result, naming each
//! problem, and the tool is not run. A typed tool ([`TypedTool`], [`Tool::of`]) also
//! gets its input decoded into its input type.
//!
//! ```standalone_crate
//! use payload_agent::{Tool, ToolContext, ToolResult, TypedTool};
//!
//! /// What to search for.
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct SearchInput {
//!     /// The words to look for.
//!     query: String,
//! }
//!
//! struct SearchPubmed;
//! impl TypedTool for SearchPubmed {
//!     type Input = SearchInput;
//!     const NAME: &'static str = "search_pubmed";
//!     const DESCRIPTION: &'static str = "Search PubMed for articles";
//!     fn run(input: SearchInput, _ctx: &ToolContext) -> ToolResult {
//!         ToolResult::text(format!("No articles about {}", input.query))
//!     }
//! }
//! payload_agent::register_tool!(Tool::of::<SearchPubmed>());
//!
//! # fn main() {
//! // The input is checked against the schema before the tool runs.
//! let tool = Tool::find("search_pubmed").expect("registered");
//! let ctx = ToolContext::new("reports", serde_json::json!({}));
//! let found = tool.call(&serde_json::json!({"query": "aspirin"}), &ctx);
//! assert_eq!(found.text, "No articles about aspirin");
//! let refused = tool.call(&serde_json::json!({"q": "aspirin"}), &ctx);
//! assert!(refused.text.contains("query"), "{}", refused.text);
//! # }
//! ```

use payload_core::CustomPayload;
use serde::de::DeserializeOwned;
use serde::{Deserialize as _, Serialize};
use serde_json::Value;
use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

/// Why a tool's input was not run: each way it fails the tool's input schema (the
/// first ten), as `pointer: what is wrong`. Its `Display` is them in one line, joined by
/// `; `, which is what the model is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputMismatch {
    problems: Vec<String>,
}

impl InputMismatch {
    /// The problems, one `pointer: what is wrong` each (`the input` for the root).
    pub fn problems(&self) -> &[String] {
        &self.problems
    }
}

impl fmt::Display for InputMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.problems.join("; "))
    }
}

impl std::error::Error for InputMismatch {}

/// A tool the model can call.
#[derive(Debug, Clone, Copy)]
pub struct Tool {
    /// The name the model calls it by (e.g. `search_pubmed`).
    pub name: &'static str,
    /// What it does, for the model.
    pub description: &'static str,
    /// The JSON Schema of its input (write [`tool_schema::<Input>`](tool_schema)).
    pub input_schema: fn() -> Value,
    /// Runs the tool on input that matched the schema.
    pub execute: fn(&Value, &ToolContext) -> ToolResult,
}

/// A tool with a typed input: the input's schema comes from its `JsonSchema`
/// implementation and the tool receives it decoded. Register it with
/// [`Tool::of`].
pub trait TypedTool: 'static {
    /// The input the model sends.
    type Input: DeserializeOwned + schemars::JsonSchema;
    /// The name the model calls it by.
    const NAME: &'static str;
    /// What it does, for the model.
    const DESCRIPTION: &'static str;
    /// Runs the tool.
    fn run(input: Self::Input, ctx: &ToolContext) -> ToolResult;
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

    /// The tool of a [`TypedTool`].
    pub const fn of<T: TypedTool>() -> Tool {
        Tool::new(
            T::NAME,
            T::DESCRIPTION,
            tool_schema::<T::Input>,
            run_typed::<T>,
        )
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

    /// Checks `input` against the input schema, then runs the tool. Input that does not
    /// match is not run: the result is an error naming every problem, for the model.
    pub fn call(&self, input: &Value, ctx: &ToolContext) -> ToolResult {
        match self.check(input) {
            Ok(()) => (self.execute)(input, ctx),
            Err(problems) => ToolResult::error(format_args!(
                "the input of '{}' does not match its schema: {problems}. \
                 Call it again with input that does.",
                self.name
            )),
        }
    }

    /// Every way `input` fails the input schema (the first ten); `Ok` when it matches.
    /// A schema that does not compile checks nothing (the tool then sees all input).
    pub fn check(&self, input: &Value) -> Result<(), InputMismatch> {
        let Some(validator) = self.validator() else {
            return Ok(());
        };
        let problems: Vec<String> = validator
            .iter_errors(input)
            .take(10)
            .map(|error| {
                let at = error.instance_path().as_str();
                let at = if at.is_empty() { "the input" } else { at };
                format!("{at}: {error}")
            })
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(InputMismatch { problems })
        }
    }

    /// The compiled input schema, built once per schema function.
    fn validator(&self) -> Option<Arc<jsonschema::Validator>> {
        type Cache = Mutex<HashMap<usize, Option<Arc<jsonschema::Validator>>>>;
        static CACHE: OnceLock<Cache> = OnceLock::new();
        // Keyed by the schema function's address: tools sharing one share its schema.
        let key = self.input_schema as usize;
        let cache = CACHE.get_or_init(Default::default);
        if let Some(found) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return found.clone();
        }
        let compiled = jsonschema::validator_for(&(self.input_schema)())
            .ok()
            .map(Arc::new);
        cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, compiled.clone());
        compiled
    }
}

/// Decodes the checked input and runs a typed tool. The schema check came first, so a
/// decoding failure here is a rule serde enforces beyond the schema; it is reported to
/// the model the same way.
fn run_typed<T: TypedTool>(input: &Value, ctx: &ToolContext) -> ToolResult {
    match T::Input::deserialize(input) {
        Ok(input) => T::run(input, ctx),
        Err(error) => ToolResult::error(format_args!(
            "the input of '{}' could not be read: {error}",
            T::NAME
        )),
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
    fn input_that_fails_the_schema_is_named_problem_by_problem() {
        let tool = Tool::find("test_echo").unwrap();
        assert_eq!(tool.check(&json!({"text": "hi"})), Ok(()));
        let mismatch = tool.check(&json!({"text": 1, "more": true})).unwrap_err();
        assert!(!mismatch.problems().is_empty());
        assert!(mismatch.problems().iter().all(|p| p.starts_with("/text: ")));
        // What the model is told is every problem, in one line.
        assert_eq!(mismatch.to_string(), mismatch.problems().join("; "));
        let missing = tool.check(&json!({})).unwrap_err();
        assert!(
            missing.problems()[0].starts_with("the input: "),
            "{missing}"
        );
        let ctx = ToolContext::new("reports", json!({}));
        let refused = tool.call(&json!({}), &ctx);
        assert!(
            refused.text.contains(&missing.to_string()),
            "{}",
            refused.text
        );
    }

    #[test]
    fn the_spec_carries_the_input_schema() {
        let spec = Tool::find("test_echo").unwrap().spec();
        assert_eq!(spec.input_schema["properties"]["text"]["type"], "string");
        assert_eq!(spec.input_schema["required"], json!(["text"]));
    }
}
