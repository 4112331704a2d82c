//! The sections of a system prompt: table.that's eight standard ones, in order, and the
//! ones an app adds; with the default global preamble.

use payload_core::PayloadKind;

/// The global preamble's fixed part, used unless the app gives its own: the assistant's
/// role and how to reply, in terms that hold for any app. The builder adds the rules
/// that depend on what the prompt holds, so that no rule names a
/// section the prompt does not contain.
pub const DEFAULT_PREAMBLE: &str = "\
You are the assistant built into this application. You help the user get their work done \
through conversation: find out what they want, answer their questions, and propose changes \
that the application can apply for them.

How to respond:
- Write a short, friendly reply in plain text (markdown is fine). Be concrete; ask one short \
question when a request is unclear instead of guessing.";

/// What a prompt holds, for the preamble's rules that depend on it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Holds {
    /// STRUCTURED RESPONSES (the page offers payload types).
    pub payloads: bool,
    /// Among them, proposals (the user reviews and applies them).
    pub proposals: bool,
    /// Among them, commands (the app runs them at once).
    pub commands: bool,
    /// Among them, displays (the app only shows them).
    pub displays: bool,
    /// TOOLS.
    pub tools: bool,
    /// CLIENT ACTIONS.
    pub actions: bool,
    /// CURRENT CONTEXT.
    pub context: bool,
    /// PAYLOAD MANIFEST.
    pub manifest: bool,
    /// The page lets a response hold several payloads: STRUCTURED RESPONSES says how
    /// many in its first line, so the preamble does not repeat the seed's "at most one".
    pub several: bool,
}

/// The default preamble's rules about the sections the prompt holds, one bullet each,
/// each only when its section is there.
pub fn preamble_rules(holds: Holds) -> String {
    let mut rules: Vec<String> = Vec::new();
    if holds.payloads {
        rules.extend(payload_rules(holds));
        if !holds.several {
            rules.push("Give at most one structured payload per response.".to_string());
        }
    }
    let listed: Vec<&str> = [
        (holds.payloads, "payloads"),
        (holds.tools, "tools"),
        (holds.actions, "client actions"),
    ]
    .into_iter()
    .filter_map(|(held, name)| held.then_some(name))
    .collect();
    if !listed.is_empty() {
        rules.push(format!(
            "Use only the {} this prompt lists; never invent others.",
            join_names(&listed)
        ));
    }
    if holds.context {
        rules.push("Take names and ids from the CURRENT CONTEXT; never guess an id.".to_string());
    }
    if holds.manifest {
        rules.push(
            "The PAYLOAD MANIFEST lists what you already proposed in this conversation and \
             what the user did with it: build on it rather than repeating it."
                .to_string(),
        );
    }
    rules.iter().map(|rule| format!("- {rule}\n")).collect()
}

/// How a proposal is handled, in the words of table.that's preamble.
const REVIEWED: &str = "which they review and then apply or dismiss. Nothing changes until they \
    apply it: say in your reply what you proposed and why, and never claim it has already been \
    done.";

/// The rules of the payloads, worded for the kinds the page offers
/// (examples/payload/docs/prompts.md, "Payload kinds"): a proposal is reviewed and applied by the user,
/// so the reply must not claim it done; a command is run at once, so the reply says
/// what it did; a display only shows something. A page of proposals alone gets
/// table.that's one rule.
fn payload_rules(holds: Holds) -> Vec<String> {
    if !holds.commands && !holds.displays {
        return vec![format!(
            "To propose a change, add one of the structured payloads described under \
             STRUCTURED RESPONSES to your reply, written exactly as specified there. The \
             application removes it from your message and shows it to the user as an \
             interactive proposal, {REVIEWED}"
        )];
    }
    let mut rules = vec![format!(
        "When the user's request calls for it, add one of the structured payloads described \
         under STRUCTURED RESPONSES to your reply, written exactly as specified there; the \
         application removes it from your message and handles it by its kind{}.",
        if holds.proposals {
            " (a payload is a proposal unless its entry there names another kind)"
        } else {
            ", which its entry there names"
        }
    )];
    for (held, kind) in [
        (holds.proposals, PayloadKind::Proposal),
        (holds.commands, PayloadKind::Command),
        (holds.displays, PayloadKind::Display),
    ] {
        if held {
            rules.push(kind_rule(kind));
        }
    }
    rules
}

/// The preamble's rule for payloads of `kind` on a page that mixes kinds (and the
/// generated docs' statement of it).
pub(crate) fn kind_rule(kind: PayloadKind) -> String {
    match kind {
        PayloadKind::Proposal => {
            format!("A proposal is shown to the user as an interactive proposal, {REVIEWED}")
        }
        PayloadKind::Command => "A command is carried out by the application as soon as your \
             reply arrives, with no review. Send one only when the user asks for what it does, \
             and say in your reply what it did (\"I've started the timer\"), not what you would \
             do."
        .to_string(),
        PayloadKind::Display => "A display is shown to the user beside your message and \
             changes nothing. Point to it in your reply rather than repeating what it shows."
            .to_string(),
    }
}

/// `a`, `a and b`, `a, b and c`.
fn join_names(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// One of the eight sections of table.that, or a section the app adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SectionKind {
    /// 1: identity, role, style and proposal mechanics.
    Preamble,
    /// 2: page-specific persona and workflow guidance.
    Page,
    /// 3: domain-specific context the app adds per conversation.
    Stream,
    /// 4: the user's current state, from the page's context builder.
    Context,
    /// 5: summaries of the payloads in the conversation's history.
    Manifest,
    /// 6: tools, STRUCTURED RESPONSES and CLIENT ACTIONS.
    Capabilities,
    /// 7: the help system's contents.
    Help,
    /// 8: the SUGGESTED_VALUES and SUGGESTED_ACTIONS formats.
    FormatRules,
    /// A section the app adds ([`crate::PromptBuilder::section`]).
    Custom,
}

impl SectionKind {
    /// The eight standard sections, in prompt order.
    pub const STANDARD: [SectionKind; 8] = [
        SectionKind::Preamble,
        SectionKind::Page,
        SectionKind::Stream,
        SectionKind::Context,
        SectionKind::Manifest,
        SectionKind::Capabilities,
        SectionKind::Help,
        SectionKind::FormatRules,
    ];

    /// The section's header in the prompt (`None`: the preamble opens the prompt and
    /// has none; custom sections carry their own).
    pub const fn title(self) -> Option<&'static str> {
        match self {
            SectionKind::Preamble | SectionKind::Custom => None,
            SectionKind::Page => Some("PAGE INSTRUCTIONS"),
            SectionKind::Stream => Some("STREAM INSTRUCTIONS"),
            SectionKind::Context => Some("CURRENT CONTEXT"),
            SectionKind::Manifest => Some("PAYLOAD MANIFEST"),
            SectionKind::Capabilities => Some("CAPABILITIES"),
            SectionKind::Help => Some("HELP"),
            SectionKind::FormatRules => Some("FORMAT RULES"),
        }
    }

    /// The section's name as table.that's section table writes it.
    pub const fn name(self) -> &'static str {
        match self {
            SectionKind::Preamble => "Global preamble",
            SectionKind::Page => "Page instructions",
            SectionKind::Stream => "Stream instructions",
            SectionKind::Context => "Current context",
            SectionKind::Manifest => "Payload manifest",
            SectionKind::Capabilities => "Capabilities",
            SectionKind::Help => "Help",
            SectionKind::FormatRules => "Format rules",
            SectionKind::Custom => "Custom section",
        }
    }

    /// What the section holds and where it comes from, for generated docs.
    pub const fn contents(self) -> &'static str {
        match self {
            SectionKind::Preamble => {
                "Identity, role, style and proposal mechanics: the default preamble, or the app's own"
            }
            SectionKind::Page => {
                "Page-specific persona and workflow guidance: `Page::instructions`"
            }
            SectionKind::Stream => {
                "Domain-specific context for this conversation: `PromptBuilder::stream_instructions` (empty by default)"
            }
            SectionKind::Context => {
                "The user's current state: the page's context builder applied to the app's context JSON"
            }
            SectionKind::Manifest => {
                "One line per payload from the conversation history: turn, type, status and the type's summary"
            }
            SectionKind::Capabilities => {
                "Tools, then STRUCTURED RESPONSES (the instructions of each payload type the page offers), then CLIENT ACTIONS (page and global actions)"
            }
            SectionKind::Help => "Help system contents: `PromptBuilder::help` (empty by default)",
            SectionKind::FormatRules => {
                "The SUGGESTED_VALUES and SUGGESTED_ACTIONS formats, on pages with suggestions"
            }
            SectionKind::Custom => "Whatever the app adds",
        }
    }
}

/// Where an added section goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// Before everything.
    Start,
    /// Right before a standard section (whether or not that one is empty).
    Before(SectionKind),
    /// Right after a standard section (whether or not that one is empty).
    After(SectionKind),
    /// After everything.
    End,
}

/// One section of an assembled prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// Which section it is.
    pub kind: SectionKind,
    /// Its header, if it has one.
    pub title: Option<String>,
    /// Its text, without the header; never empty in [`crate::PromptBuilder::sections`].
    pub text: String,
}

impl Section {
    /// The section as it appears in the prompt: `## TITLE`, then the text.
    pub fn render(&self) -> String {
        match &self.title {
            Some(title) => format!("## {title}\n{}", self.text),
            None => self.text.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each kind gets its own rule, and only a proposal is "never done yet".
    #[test]
    fn the_payload_rules_follow_the_kinds_offered() {
        let payloads = Holds {
            payloads: true,
            ..Holds::default()
        };
        let displays = preamble_rules(Holds {
            displays: true,
            ..payloads
        });
        assert!(displays.contains("- A display is shown to the user beside your message"));
        assert!(displays.contains("handles it by its kind, which its entry there names."));
        assert!(!displays.contains("never claim") && !displays.contains("A command"));
        let proposals = preamble_rules(Holds {
            proposals: true,
            ..payloads
        });
        assert!(proposals.starts_with("- To propose a change, add one of the structured"));
        assert!(proposals.contains("never claim it has already been done."));
        let all = preamble_rules(Holds {
            proposals: true,
            commands: true,
            displays: true,
            ..payloads
        });
        for rule in ["- A proposal is", "- A command is", "- A display is"] {
            assert!(all.contains(rule), "{rule}: {all}");
        }
    }
}
