//! Pages: where a chat runs, what the model may emit there, and which actions it may
//! suggest.

use payload_core::{PayloadCount, PayloadType, suggestions::ActionSpec, suggestions::Combination};
use serde_json::Value;

/// Builds the CURRENT CONTEXT section of a page's prompt from what the app knows about
/// the user's state (the frontend's context object, loaded records, ...).
pub type ContextBuilder = fn(&Value) -> String;

/// A page of the app that hosts a chat. Register one with [`crate::register_page!`].
#[derive(Debug, Clone, Copy)]
pub struct Page {
    /// Identifier sent by the frontend as `current_page` (e.g. `table_view`).
    pub name: &'static str,
    /// What the page is, for generated docs.
    pub description: &'static str,
    /// Page-specific persona and workflow guidance (prompt section 2).
    pub instructions: &'static str,
    /// Custom payload types the page offers (types can also name pages themselves).
    pub payloads: &'static [PayloadType],
    /// Client actions the model may suggest on this page, besides the global ones.
    pub actions: &'static [ActionSpec],
    /// Builds the CURRENT CONTEXT prompt section.
    pub context: Option<ContextBuilder>,
    /// Whether SUGGESTED_VALUES / SUGGESTED_ACTIONS are offered (default true).
    pub suggestions: bool,
    /// The names of the registered tools the model may call on this page (tools are
    /// registered globally; each page chooses; none by default).
    pub tools: &'static [&'static str],
    /// Messages a user might start with on this page: a chat with no messages yet
    /// offers them as chips, so a first visit shows what the page is for (none by
    /// default).
    pub starters: &'static [&'static str],
    /// Which suggestion blocks may go beside a custom payload in one response
    /// ([`Combination::FREE`] by default): stated in the prompt's FORMAT RULES, applied
    /// by the page's parser (a `combination` warning) and written into its grammars.
    pub combination: Combination,
    /// How many custom payloads one response may hold, in all and per type
    /// ([`PayloadCount::ONE`] by default): stated in the prompt's FORMAT RULES in one
    /// line when it is more than one, applied by the page's parser (a block past it is
    /// `extra_payload`) and written into its grammars.
    pub payload_count: PayloadCount,
}

impl Page {
    /// A page named `name` offering nothing but suggestions yet.
    pub const fn new(name: &'static str) -> Page {
        Page {
            name,
            description: "",
            instructions: "",
            payloads: &[],
            actions: &[],
            context: None,
            suggestions: true,
            tools: &[],
            starters: &[],
            combination: Combination::FREE,
            payload_count: PayloadCount::ONE,
        }
    }

    /// Sets the description used in generated docs.
    pub const fn description(mut self, description: &'static str) -> Page {
        self.description = description;
        self
    }

    /// Sets the page instructions (prompt section 2).
    pub const fn instructions(mut self, instructions: &'static str) -> Page {
        self.instructions = instructions;
        self
    }

    /// Sets the payload types offered (write `&[MyType::TYPE, ...]`).
    pub const fn payloads(mut self, payloads: &'static [PayloadType]) -> Page {
        self.payloads = payloads;
        self
    }

    /// Sets the page's own client actions.
    pub const fn actions(mut self, actions: &'static [ActionSpec]) -> Page {
        self.actions = actions;
        self
    }

    /// Sets the context builder.
    pub const fn context(mut self, builder: ContextBuilder) -> Page {
        self.context = Some(builder);
        self
    }

    /// Names the registered tools the model may call on this page.
    pub const fn tools(mut self, tools: &'static [&'static str]) -> Page {
        self.tools = tools;
        self
    }

    /// Sets the messages a user might start with on this page (shown as chips in an
    /// empty chat).
    pub const fn starters(mut self, starters: &'static [&'static str]) -> Page {
        self.starters = starters;
        self
    }

    /// Sets which suggestion blocks may go beside a custom payload
    /// (`Combination::PAYLOAD_ALONE.allow_actions()`: a button beside the payload it acts
    /// on, no chips).
    pub const fn combination(mut self, combination: Combination) -> Page {
        self.combination = combination;
        self
    }

    /// Sets how many custom payloads one response may hold
    /// (`PayloadCount::at_most(3)`: up to three alternatives to pick from).
    pub const fn payload_count(mut self, count: PayloadCount) -> Page {
        self.payload_count = count;
        self
    }

    /// Turns SUGGESTED_VALUES / SUGGESTED_ACTIONS off for this page.
    pub const fn without_suggestions(mut self) -> Page {
        self.suggestions = false;
        self
    }
}

inventory::collect!(Page);

/// A client action offered on every page (such as `close_chat`). Register one with
/// [`crate::register_action!`].
#[derive(Debug, Clone, Copy)]
pub struct GlobalAction(pub ActionSpec);

inventory::collect!(GlobalAction);
