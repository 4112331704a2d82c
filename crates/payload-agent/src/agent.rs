//! The agent of one page: what its turns are built from (the page's parser options,
//! its tools, the system prompt, whole-response output, limits).

use crate::model::StructuredOutput;
use crate::tools::Tool;
use payload_core::{ParseOptions, Parser};
use payload_registry::{Registry, UnknownPage};

/// The default limit on model calls in one turn.
pub const DEFAULT_MAX_ITERATIONS: usize = 5;

/// How many times, by default, a turn sends a rejected custom payload back to the model
/// to be corrected.
pub const DEFAULT_REASKS: usize = 1;

/// What a page's parser is built from, as the registry builds it
/// ([`payload_registry::PageInfo::options`]): the page's payload types, the registered
/// types it does not offer, its actions and the global ones, its combination rule.
pub fn page_options(registry: &Registry, page: &str) -> Result<ParseOptions, UnknownPage> {
    Ok(registry.page(page)?.options().clone())
}

/// Why an agent could not be built for a page.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    /// The page is not registered.
    #[error(transparent)]
    UnknownPage(#[from] UnknownPage),
    /// The page names a tool that is not registered.
    #[error(
        "page '{page}' offers the tool '{tool}', but no tool of that name is registered: \
         register it with register_tool! or correct the name"
    )]
    UnknownTool {
        /// The page.
        page: String,
        /// The tool it names.
        tool: String,
    },
}

/// Runs turns on one page with one set of tools.
#[derive(Debug, Clone)]
pub struct Agent {
    pub(crate) page: String,
    pub(crate) options: ParseOptions,
    /// The page's parser, compiled once (the registry's own for a registered page), so
    /// that a turn does not build its marker table again.
    pub(crate) parser: Parser,
    pub(crate) tools: Vec<&'static Tool>,
    pub(crate) system: String,
    pub(crate) output: Option<StructuredOutput>,
    pub(crate) max_iterations: usize,
    pub(crate) reasks: usize,
    /// Whether message contents go on the turn's spans (off by default).
    pub(crate) capture_content: bool,
}

impl Agent {
    /// An agent on `page` whose text is parsed with `options`, with no tools yet.
    pub fn new(page: impl Into<String>, options: ParseOptions) -> Agent {
        let parser = Parser::new(&options);
        Agent::compiled(page, options, parser)
    }

    /// An agent whose `parser` is the one compiled from `options`.
    fn compiled(page: impl Into<String>, options: ParseOptions, parser: Parser) -> Agent {
        Agent {
            page: page.into(),
            parser,
            options,
            tools: Vec::new(),
            system: String::new(),
            output: None,
            max_iterations: DEFAULT_MAX_ITERATIONS,
            reasks: DEFAULT_REASKS,
            capture_content: false,
        }
    }

    /// An agent on a registered page with the tools the page names.
    pub fn for_page(registry: &Registry, page: &str) -> Result<Agent, AgentError> {
        let info = registry.page(page)?;
        let tools = info
            .page
            .tools
            .iter()
            .map(|name| {
                Tool::find(name).ok_or_else(|| AgentError::UnknownTool {
                    page: page.to_string(),
                    tool: name.to_string(),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Agent::compiled(page, info.options().clone(), info.parser().clone()).tools(tools))
    }

    /// Says the model's chat template ends the prompt with `<think>` (DeepSeek-R1,
    /// Qwen3, QwQ), so its answers start inside their reasoning
    /// ([`ParseOptions::reasoning_opened_by_prompt`]); for a server that leaves the
    /// reasoning in the text.
    pub fn reasoning_opened_by_prompt(mut self) -> Agent {
        self.options.reasoning_opened_by_prompt = true;
        self.parser = self.parser.with_reasoning_opened_by_prompt();
        self
    }

    /// Sets the tools the model may call.
    pub fn tools(mut self, tools: impl IntoIterator<Item = &'static Tool>) -> Agent {
        self.tools = tools.into_iter().collect();
        self
    }

    /// Sets the system prompt sent with every call (build it with `payload-prompt`).
    pub fn system(mut self, prompt: impl Into<String>) -> Agent {
        self.system = prompt.into();
        self
    }

    /// Asks for whole-response output: every answer is one value of this schema, and
    /// clients request it natively from the provider.
    pub fn output(mut self, output: StructuredOutput) -> Agent {
        self.output = Some(output);
        self
    }

    /// Sets the limit on model calls per turn (at least 1).
    pub fn max_iterations(mut self, max: usize) -> Agent {
        self.max_iterations = max.max(1);
        self
    }

    /// Sets how many times a rejected custom payload is sent back to the model with
    /// the re-prompt message naming its errors (0 turns re-asking off).
    pub fn reasks(mut self, reasks: usize) -> Agent {
        self.reasks = reasks;
        self
    }

    /// Records message contents on the turn's spans (the system prompt, the
    /// conversation, the answer, tool arguments and results), in the OpenTelemetry GenAI
    /// conventions' opt-in attributes (`gen_ai.input.messages`, ...). Off by default:
    /// contents may hold what users would not have sent to a trace backend. Keys are
    /// never recorded either way (docs/observability.md).
    pub fn capture_content(mut self, capture: bool) -> Agent {
        self.capture_content = capture;
        self
    }

    /// The page's name.
    pub fn page(&self) -> &str {
        &self.page
    }
}

#[cfg(test)]
mod error_tests {
    use super::AgentError;
    use payload_registry::UnknownPage;

    use payload_loopback::errors::assert_each_cause_printed_once;

    #[test]
    fn an_agent_error_prints_its_cause_once() {
        let unknown = AgentError::UnknownPage(UnknownPage {
            name: "nope".into(),
            known: vec![],
        });
        assert_each_cause_printed_once(&unknown);
        assert!(unknown.to_string().starts_with("unknown page 'nope'"));
        assert_each_cause_printed_once(&AgentError::UnknownTool {
            page: "home".into(),
            tool: "t".into(),
        });
    }
}
