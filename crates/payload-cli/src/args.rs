//! The command line of `payload` (docs/spec.md §6), as clap reads it.

use clap::{Parser, Subcommand};

use payload_core::limits::DEFAULT_MAX_INPUT_BYTES;
use payload_core::schema::Dialect;
use payload_instructions::Verbosity;
use std::path::PathBuf;
use std::time::Duration;

/// `payload stream`'s chunk size when none is given (a flag's default is the command
/// line's, so it lives here, below the commands that read it).
pub const DEFAULT_CHUNK: usize = 7;

/// `payload bench`'s number of parses when none is given.
pub const DEFAULT_ITERATIONS: u32 = 1000;

/// Command-line arguments of the `payload` command.
#[derive(Debug, Parser)]
#[command(
    name = "payload",
    version,
    about = "Parse, validate and document LLM payloads"
)]
pub struct Cli {
    /// Refuse inputs larger than this many bytes. A `u64`, so that any number a shell
    /// passes is read (and clamped to the address space by [`crate::limits`]); the
    /// default is the library's own, `payload_core::limits::DEFAULT_MAX_INPUT_BYTES`.
    #[arg(long, global = true, default_value_t = DEFAULT_MAX_INPUT_BYTES as u64)]
    pub max_input_bytes: u64,
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// The model APIs `payload chat` speaks. The key is read from `OPENAI_API_KEY`,
/// `ANTHROPIC_API_KEY` or `GEMINI_API_KEY`; without one no key is sent (local servers
/// need none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Provider {
    /// OpenAI's chat completions API, and the servers that speak it.
    Openai,
    /// OpenAI's Responses API.
    OpenaiResponses,
    /// Anthropic's messages API.
    Anthropic,
    /// Google's Gemini API.
    Gemini,
}

/// How `payload chat` asks for the answer (payload-agent's `OutputMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// The provider's best mode for the model (native, else the output tool, else
    /// prompted); marker for a page.
    Auto,
    /// The provider's structured output (needs `--type`).
    Native,
    /// An output tool the model must call (needs `--type`).
    Tool,
    /// Only the instructions, and JSON mode where there is one (needs `--type`).
    Prompted,
    /// Text with the page's marker blocks.
    Marker,
}

/// How long a model request may take (`payload chat`, `payload serve`), in seconds;
/// each unset one keeps the client's default (payload-providers' `ClientConfig`).
#[derive(Debug, Clone, Copy, Default, PartialEq, clap::Args)]
pub struct ModelTimeouts {
    /// Seconds to wait from sending a request to the first piece of the answer (the
    /// response headers included; default 120). A slow server, a local one reading a
    /// long prompt, is waited for this long and never sent the request again.
    #[arg(long, value_name = "SECS", value_parser = seconds, requires = "provider")]
    pub first_token_timeout: Option<Duration>,
    /// Seconds the answer may go without content once it has begun (default 60);
    /// keep-alive events without content do not count.
    #[arg(long, value_name = "SECS", value_parser = seconds, requires = "provider")]
    pub idle_timeout: Option<Duration>,
    /// Seconds one model request may take in all, retries included (default 300).
    #[arg(long, value_name = "SECS", value_parser = seconds, requires = "provider")]
    pub deadline: Option<Duration>,
}

/// The model server `payload chat` and `payload eval` talk to, and their client's
/// settings.
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct ClientArgs {
    /// Which API the server speaks.
    #[arg(long, value_enum)]
    pub provider: Provider,
    /// The API's base URL (default: the provider's own; e.g.
    /// `http://localhost:11434/v1` for a local OpenAI-compatible server).
    #[arg(long)]
    pub base_url: Option<String>,
    /// The model's name.
    #[arg(long)]
    pub model: String,
    /// The answer's token limit.
    #[arg(long)]
    pub max_tokens: Option<u32>,
    /// The sampling temperature (default: the server's); 0 makes a local server's
    /// answers repeatable, as an evaluation in a test needs.
    #[arg(long)]
    pub temperature: Option<f32>,
    /// The time limits of the model's requests.
    #[command(flatten)]
    pub timeouts: ModelTimeouts,
}

/// The grammar a request to a model server carries (`payload chat`, `payload eval`).
#[derive(Debug, Clone, Default, PartialEq, Eq, clap::Args)]
pub struct ConstrainArgs {
    /// Ask the server to enforce a grammar (OpenAI-compatible servers that take one:
    /// lark for vLLM, structural-tag for vLLM and SGLang, gbnf for llama.cpp; lark for
    /// the Responses API, as a custom tool).
    #[arg(long)]
    pub constrain: Option<String>,
    /// With `--constrain`: whether a page's grammar requires, allows or refuses a block.
    #[command(flatten)]
    pub choice: GrammarChoice,
    /// With `--constrain`: bounds on the values the grammar holds where their schemas
    /// leave them open.
    #[command(flatten)]
    pub hints: LengthHints,
}

/// How a page's grammar treats blocks (`payload chat`, `payload grammar`, `payload
/// eval`), like a provider's `tool_choice`.
#[derive(Debug, Clone, Default, PartialEq, Eq, clap::Args)]
pub struct GrammarChoice {
    /// auto (free text, blocks allowed), required (a short lead, then exactly one block
    /// of the expected types, then free text) or none (free text without markers).
    #[arg(long, default_value = "auto", value_parser = choice)]
    pub choice: payload_grammar::Choice,
    /// With `--choice required`: a type the block may be (repeatable; default: the
    /// page's custom payload types).
    #[arg(long = "expect", value_name = "TYPE")]
    pub expect: Vec<String>,
    /// A lazy grammar (GBNF): rooted at the marker, sent with llama.cpp's
    /// `grammar_lazy` and `grammar_triggers`, so the text stays free until a marker.
    #[arg(long)]
    pub lazy: bool,
}

impl GrammarChoice {
    /// The options of the page's grammar, with `hints` on its blocks' values.
    pub fn options(&self, hints: &LengthHints) -> payload_grammar::PageOptions {
        payload_grammar::PageOptions {
            choice: self.choice,
            expected: self.expect.clone(),
            lazy: self.lazy,
            hints: hints.hints(),
        }
    }
}

fn choice(text: &str) -> Result<payload_grammar::Choice, String> {
    text.parse()
}

/// Bounds on whole-response values that their schema leaves open (`payload grammar
/// --type`, `payload eval`): a hint the grammar carries, narrower than the schema, so
/// a constrained value cannot pad itself out to the token limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::Args)]
pub struct LengthHints {
    /// At most this many characters in a string without a maxLength.
    #[arg(long, value_name = "N")]
    pub max_length: Option<u64>,
    /// At most this many items in a list without a maxItems.
    #[arg(long, value_name = "N")]
    pub max_items: Option<u64>,
}

impl LengthHints {
    /// The hints for the grammar.
    pub fn hints(&self) -> payload_grammar::Hints {
        payload_grammar::Hints {
            max_length: self.max_length,
            max_items: self.max_items,
        }
    }
}

/// The longest time a flag may ask for: a day (a longer wait is a mistake).
const MAX_SECONDS: f64 = 86_400.0;

/// A number of seconds (fractions allowed), more than 0 and at most a day.
fn seconds(text: &str) -> Result<Duration, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a number of seconds"))?;
    if !(value > 0.0 && value <= MAX_SECONDS) {
        return Err(format!(
            "'{text}' is out of range: give more than 0 and at most {MAX_SECONDS} seconds"
        ));
    }
    Ok(Duration::from_secs_f64(value))
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Parse a response in marker mode and print the ParsedResponse.
    Parse(ParseArgs),
    /// Read a whole response as one value of a type (docs/spec.md §4); exits 1 when
    /// `success` is false.
    Extract(ExtractArgs),
    /// Replay a response in chunks through the streaming parser and print SSE.
    Stream(StreamArgs),
    /// Run one agent turn on a page against a model server and print its events as SSE
    /// (ending with `complete`); exits 1 when the turn reported an error.
    Chat(ChatArgs),
    /// Run a file of scripted user turns against a model and report, per turn, per page
    /// or type and overall: payloads accepted, rejected (by kind), near-miss markers,
    /// re-asks and whether they recovered, truncated answers, tokens and latency (JSON,
    /// or Markdown tables); exits 1 when a turn failed.
    Eval(EvalArgs),
    /// Serve this build's app in a browser (on the chat architecture's contract): its
    /// pages, the chat streamed over SSE, payload cards to accept or dismiss,
    /// conversations kept in SQLite. Without `--provider` the app's own model answers
    /// (its recorded answers, offline). The help names the app and its pages when the
    /// build has one ([`crate::Serve::describe`]).
    Serve(ServeArgs),
    /// Print a grammar for constrained decoding: a page's marker-mode responses
    /// (`--page`) or a whole response of one type (`--type`). What the target cannot
    /// express is listed on stderr (or in the JSON with `--json`).
    Grammar(GrammarArgs),
    /// Print a payload type's JSON Schema.
    Schema(SchemaArgs),
    /// List the registered pages.
    Pages,
    /// List the registered payload types.
    Types,
    /// Print the LLM instructions for a payload type.
    Instructions(InstructionsArgs),
    /// Print the assembled system prompt of a page.
    Prompt(PromptArgs),
    /// Print the generated prompt documentation (Markdown) for every page and type.
    Docs,
    /// Parse FILE N times in process and print {"bytes","iterations","seconds","mb_per_s"}.
    Bench(BenchArgs),
}

/// The arguments of `payload parse`.
#[derive(Debug, clap::Args)]
pub struct ParseArgs {
    /// The page the response was given on.
    #[arg(long)]
    pub page: String,
    /// The model's chat template ends the prompt with `<think>` (DeepSeek-R1, Qwen3,
    /// QwQ) and the server leaves the reasoning in the text: the response is read as
    /// if it began with `<think>` (as `payload chat --reasoning-opened-by-prompt`).
    #[arg(long)]
    pub reasoning_opened_by_prompt: bool,
    /// The response (default: standard input).
    pub file: Option<PathBuf>,
}

/// The arguments of `payload extract`.
#[derive(Debug, clap::Args)]
pub struct ExtractArgs {
    /// The registered type's name.
    #[arg(
        long = "type",
        required_unless_present = "schema",
        conflicts_with = "schema"
    )]
    pub type_name: Option<String>,
    /// A JSON Schema file (2020-12 or draft-07) to read the value as, instead of a
    /// registered type.
    #[arg(long)]
    pub schema: Option<PathBuf>,
    /// With `--schema`: an example value (JSON file) for the type.
    #[arg(long, requires = "schema")]
    pub example: Option<PathBuf>,
    /// json, xml, delimited, tagged, markdown, or auto (detect).
    #[arg(long, default_value = "auto")]
    pub format: String,
    /// The response (default: standard input).
    pub file: Option<PathBuf>,
}

/// The arguments of `payload stream`.
#[derive(Debug, clap::Args)]
pub struct StreamArgs {
    /// The page the response was given on.
    #[arg(long)]
    pub page: String,
    /// Chunk size in bytes (cut at char boundaries).
    #[arg(long, default_value_t = DEFAULT_CHUNK)]
    pub chunk: usize,
    /// The model's chat template ends the prompt with `<think>` (DeepSeek-R1, Qwen3,
    /// QwQ) and the server leaves the reasoning in the text: the response is read as
    /// if it began with `<think>` (as `payload chat --reasoning-opened-by-prompt`).
    #[arg(long)]
    pub reasoning_opened_by_prompt: bool,
    /// The response (default: standard input).
    pub file: Option<PathBuf>,
}

/// The arguments of `payload chat`.
#[derive(Debug, clap::Args)]
pub struct ChatArgs {
    /// The page the chat is on.
    #[arg(long)]
    pub page: String,
    /// The model server and its client's settings.
    #[command(flatten)]
    pub client: ClientArgs,
    /// The user's message.
    #[arg(long)]
    pub message: String,
    /// The grammar the request carries.
    #[command(flatten)]
    pub grammar: ConstrainArgs,
    /// Ask for one value of this registered type (whole-response mode) instead of
    /// a turn on the page; prints the extraction as JSON.
    #[arg(long = "type")]
    pub type_name: Option<String>,
    /// How the answer is asked for (default: auto).
    #[arg(long, value_enum, default_value = "auto")]
    pub mode: Mode,
    /// Let the model think for up to this many tokens (Anthropic extended thinking,
    /// Gemini thinking), its reasoning streamed as reasoning.
    #[arg(long)]
    pub thinking_budget: Option<u32>,
    /// The model's chat template ends the prompt with `<think>` (DeepSeek-R1, Qwen3,
    /// QwQ) and the server leaves the reasoning in the text: each answer is read as
    /// if it began with `<think>` (a turn on the page).
    #[arg(long)]
    pub reasoning_opened_by_prompt: bool,
    /// The app's context JSON: the system prompt's CURRENT CONTEXT section and the
    /// context the page's tools see (as `payload prompt --context`).
    #[arg(long)]
    pub context: Option<PathBuf>,
    /// The conversation's payloads, for the PAYLOAD MANIFEST section (as `payload
    /// prompt --history`).
    #[arg(long)]
    pub history: Option<PathBuf>,
}

/// The arguments of `payload eval`.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// The turn file (JSON: `{"description", "turns": [{"page" | "type",
    /// "message", "expect", "choice", "context", "history"}]}`).
    pub file: PathBuf,
    /// The model server and its client's settings.
    #[command(flatten)]
    pub client: ClientArgs,
    /// The grammar each request carries: its page's (with the turn's choice, which
    /// `--choice` gives to turns that name none, and its expected types) or its
    /// type's.
    #[command(flatten)]
    pub grammar: ConstrainArgs,
    /// Print Markdown tables instead of JSON.
    #[arg(long)]
    pub markdown: bool,
}

/// The arguments of `payload serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// The port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Where the chat is kept: a SQLite file's path (created when missing) or
    /// `sqlite:PATH`, or `postgres://USER@HOST:PORT/NAME` where the app offers
    /// PostgreSQL; SQLite in memory when absent. `--db` is the same.
    #[arg(long, alias = "db", value_name = "URL")]
    pub database: Option<String>,
    /// Talk to a real model through this API instead of replaying.
    #[arg(long, value_enum, requires = "model")]
    pub provider: Option<Provider>,
    /// The API's base URL (default: the provider's own).
    #[arg(long, requires = "provider")]
    pub base_url: Option<String>,
    /// The model's name.
    #[arg(long, requires = "provider")]
    pub model: Option<String>,
    /// The answer's token limit.
    #[arg(long, requires = "provider")]
    pub max_tokens: Option<u32>,
    /// The time limits of the model's requests.
    #[command(flatten)]
    pub timeouts: ModelTimeouts,
    /// The model's chat template ends the prompt with `<think>` (DeepSeek-R1, Qwen3,
    /// QwQ) and the server leaves the reasoning in the text: each answer is read as
    /// if it began with `<think>`, so its draft never reaches the page.
    #[arg(long, requires = "provider")]
    pub reasoning_opened_by_prompt: bool,
    /// A host name the server also answers for (repeatable): the public name a
    /// proxy in front of it forwards (`name`, any port, or `name:port`). Requests
    /// naming any other host are refused, against DNS rebinding.
    #[arg(long = "allow-host", value_name = "NAME")]
    pub allow_hosts: Vec<String>,
}

/// The arguments of `payload grammar`.
#[derive(Debug, clap::Args)]
pub struct GrammarArgs {
    /// The page whose responses the grammar describes.
    #[arg(
        long,
        required_unless_present = "type_name",
        conflicts_with = "type_name"
    )]
    pub page: Option<String>,
    /// The type a whole response is one value of.
    #[arg(long = "type")]
    pub type_name: Option<String>,
    /// structural-tag (xgrammar), lark (llguidance) or gbnf (llama.cpp).
    #[arg(long)]
    pub target: String,
    /// With `--type`: the whole response's format (json).
    #[arg(long, default_value = "json")]
    pub format: String,
    /// With `--page`: whether the grammar requires, allows or refuses a block.
    #[command(flatten)]
    pub choice: GrammarChoice,
    /// Bounds the schemas leave open.
    #[command(flatten)]
    pub hints: LengthHints,
    /// Print `{"target", "text", "unsupported"}` as JSON instead of the grammar.
    #[arg(long)]
    pub json: bool,
}

/// The arguments of `payload schema`.
#[derive(Debug, clap::Args)]
pub struct SchemaArgs {
    /// The type's name.
    pub name: String,
    /// 2020-12, draft-07, openai-strict (OpenAI's Structured Outputs subset; a
    /// type that has none is an error that says why), anthropic-strict or gemini
    /// (what those providers take natively: what they do not enforce left out, a
    /// type they cannot take at all an error that says why).
    #[arg(long, default_value = "2020-12")]
    pub dialect: Dialect,
}

/// The arguments of `payload instructions`.
#[derive(Debug, clap::Args)]
pub struct InstructionsArgs {
    /// The registered type's name.
    #[arg(required_unless_present = "schema", conflicts_with = "schema")]
    pub name: Option<String>,
    /// A JSON Schema file (2020-12 or draft-07) to teach, instead of a registered type.
    #[arg(long)]
    pub schema: Option<PathBuf>,
    /// With `--schema`: an example value (JSON file), shown in detailed instructions.
    #[arg(long, requires = "schema")]
    pub example: Option<PathBuf>,
    /// `marker` (inside a conversational reply, the default), or the format of a
    /// response that is the value: json, xml, delimited, tagged or markdown.
    #[arg(long, default_value = "marker")]
    pub format: String,
    /// concise (the marker line, the shape and the rules) or detailed (also the
    /// constraints in words, common mistakes and the example).
    #[arg(long, default_value = "detailed", value_parser = verbosity_parser())]
    pub verbosity: Verbosity,
}

/// The arguments of `payload prompt`.
#[derive(Debug, clap::Args)]
pub struct PromptArgs {
    /// The page.
    #[arg(long)]
    pub page: String,
    /// The app's context JSON, for the CURRENT CONTEXT section.
    #[arg(long)]
    pub context: Option<PathBuf>,
    /// The conversation's payloads, for the PAYLOAD MANIFEST section: a JSON array of
    /// `{"turn", "payload": {"type", "data"}, "status"}`.
    #[arg(long)]
    pub history: Option<PathBuf>,
}

/// The arguments of `payload bench`.
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// The page the response was given on.
    #[arg(long)]
    pub page: String,
    /// How many times to parse it.
    #[arg(long, default_value_t = DEFAULT_ITERATIONS)]
    pub iterations: u32,
    /// The response.
    pub file: PathBuf,
}

/// `--verbosity`: the core's [`Verbosity`] by its name, the names listed in the help.
fn verbosity_parser() -> impl clap::builder::TypedValueParser<Value = Verbosity> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(Verbosity::ALL.map(Verbosity::as_str))
        .try_map(|name| name.parse::<Verbosity>())
}
