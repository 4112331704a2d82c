//! Reasoning is not the answer (docs/spec.md §9.1): the one rule that tells a model's reasoning
//! from its answer, for every mode (marker, stream, whole-response) and the agent.
//!
//! **The rule.** A reasoning section opens with one of the openers of [`SECTIONS`] (in
//! any ASCII case) at the start of the response or of a line, after optional horizontal
//! whitespace (invisible characters count as space, docs/spec.md §9.3), and closes at the
//! first closer of the same kind anywhere after it. The openers are the ways models in
//! use write their reasoning into the text when no server takes it out: `<think>`,
//! `<thinking>` and `<reasoning>` tags (Qwen, DeepSeek, Claude-style prompts), Mistral's
//! `[THINK]`, Kimi's `◁think▷`, Seed's `<seed:think>`, and gpt-oss's harmony analysis
//! channel (`<|channel|>analysis<|message|>` to `<|end|>`, whose closer takes the
//! final channel's header with it), and Ollama's command line's rendering
//! (`Thinking...` to `...done thinking.`, only as the response's first line:
//! [`Section::leading`]). Its text is reasoning: it is taken out of the answer
//! and returned on its own, so it is never scanned for markers, never supplies a value
//! and never steers format detection.
//!
//! - gpt-oss's final channel is a section of the answer ([`Section::answer`]): its
//!   header and its end (`<|return|>`, `<|end|>`) are notation, taken out, and its text
//!   is answer text. It opens where a reasoning section may, or right after the analysis
//!   channel's end that holds its header.
//! - A label like `**Reasoning:**` is answer text: it has no closer, so nothing would
//!   say where the reasoning ends, and a model writes it when asked to show its
//!   reasoning.
//!
//! - Sections do not nest: the first matching closing tag closes the section, and an
//!   opening tag inside a section is reasoning text.
//! - A closing tag with no section open is answer text, as is an opening tag that is not
//!   at a line's start.
//! - A section still open when the text ends is reasoning to the end; the caller warns
//!   (`unclosed_reasoning`).
//! - Several sections are all reasoning: each is trimmed, the empty ones are dropped
//!   (`<think>\n\n</think>` is what a reasoning model writes with thinking turned off),
//!   and the rest are joined with a blank line.
//! - The whitespace before an opening tag and the text after a closing tag stay in the
//!   answer (the message builder trims and folds it as it does any prose).
//! - [`Scope::Leading`] (whole-response mode) only reads sections before the answer's
//!   first visible character: there the answer is one value, and a `<reasoning>` element
//!   inside an XML answer is a member of it, not the model's reasoning.
//!
//! **Streaming.** [`Splitter`] reads the text chunk by chunk and decides each byte as
//! soon as no later text can change it: it holds back only what may still become an
//! opener or closer (shorter than the longest one), so the answer and the reasoning are the same
//! however the text is chunked, and the work is linear in the text.

// Whitespace before an opening tag: line breaks (a line start stays one), horizontal
// space, and the invisible characters that count as space (docs/spec.md §9.3).
use crate::space::is_space;

/// One kind of section: what opens it and what closes it, and what it holds.
#[derive(Debug)]
pub(crate) struct Section {
    /// What opens it (matched in any ASCII case).
    pub(crate) open: &'static str,
    /// What closes it, the first that matches; where one closer starts another, the
    /// longer comes first.
    pub(crate) close: &'static [&'static str],
    /// What it holds is the answer, not reasoning: its opener and closer are a
    /// format's notation around the answer (gpt-oss's final channel), taken out, and
    /// what they enclose is read as answer text. Such a section also opens right after
    /// a reasoning section's closer that ends with its opener (harmony writes the final
    /// channel's header right after the analysis channel's end).
    pub(crate) answer: bool,
    /// It opens only before the response's first visible answer character (a
    /// program's rendering of the reasoning at the top of its output, whose opener is
    /// a plain word that prose may start a line with elsewhere).
    pub(crate) leading: bool,
}

impl Section {
    /// A reasoning section that opens where a tag may.
    const fn reasoning(open: &'static str, close: &'static [&'static str]) -> Section {
        Section {
            open,
            close,
            answer: false,
            leading: false,
        }
    }
}

/// The closers of gpt-oss's analysis channel: its end, with the final channel's header
/// when that follows (so the header never reaches the answer, and the final channel is
/// open after it).
const HARMONY_END: &[&str] = &[
    "<|end|><|start|>assistant<|channel|>final<|message|>",
    "<|end|>",
];

/// How gpt-oss's final channel ends: `<|return|>` where the generation stops, `<|end|>`
/// in a conversation written out.
const HARMONY_FINAL_END: &[&str] = &["<|return|>", "<|end|>"];

/// The closers of Ollama's rendering of a model's thinking.
const OLLAMA_DONE: &[&str] = &["...done thinking."];

/// Every kind of reasoning section, in the order they are tried (an opener that starts
/// another comes after it). The first byte of each opener and closer is not a letter, so
/// a search for it needs no case folding, and all of a section's closers share it.
pub(crate) const SECTIONS: [Section; 12] = [
    Section::reasoning("<think>", &["</think>"]),
    Section::reasoning("<thinking>", &["</thinking>"]),
    Section::reasoning("<reasoning>", &["</reasoning>"]),
    // Mistral's reasoning models (Magistral).
    Section::reasoning("[THINK]", &["[/THINK]"]),
    // Kimi's thinking models.
    Section::reasoning("\u{25C1}think\u{25B7}", &["\u{25C1}/think\u{25B7}"]),
    // ByteDance's Seed models.
    Section::reasoning("<seed:think>", &["</seed:think>"]),
    // gpt-oss (harmony), with and without the message's start.
    Section::reasoning(
        "<|start|>assistant<|channel|>analysis<|message|>",
        HARMONY_END,
    ),
    Section::reasoning("<|channel|>analysis<|message|>", HARMONY_END),
    // gpt-oss's final channel, its header written with no analysis before it (a
    // server that took the analysis out, or reasoning turned low): the answer, its
    // header and end token taken out.
    Section {
        open: "<|start|>assistant<|channel|>final<|message|>",
        close: HARMONY_FINAL_END,
        answer: true,
        leading: false,
    },
    Section {
        open: "<|channel|>final<|message|>",
        close: HARMONY_FINAL_END,
        answer: true,
        leading: false,
    },
    // Ollama's command line (`ollama run`) prints a model's thinking between a line
    // `Thinking...` and `...done thinking.`: reasoning when it is the output's first
    // line, its line break part of the opener (a line that goes on is prose).
    Section {
        open: "Thinking...\n",
        close: OLLAMA_DONE,
        answer: false,
        leading: true,
    },
    Section {
        open: "Thinking...\r\n",
        close: OLLAMA_DONE,
        answer: false,
        leading: true,
    },
];

/// The bytes the openers of [`SECTIONS`] that are not [`Section::leading`] start with (a
/// test holds the two together): a whole text with none of them, and no leading opener
/// at its start, holds no section.
pub(crate) const OPENER_FIRST_BYTES: [u8; 3] = [b'<', b'[', 0xE2];

/// Whether a [`Section::leading`] opener may start the text's first visible line.
fn may_open_leading(text: &str) -> bool {
    let first = text.trim_start_matches(is_space).as_bytes().first();
    first.is_some_and(|&b| leading_may_start(b))
}

/// Whether a [`Section::leading`] opener may start with byte `b` (any ASCII case).
fn leading_may_start(b: u8) -> bool {
    SECTIONS
        .iter()
        .any(|section| section.leading && section.open.as_bytes()[0].eq_ignore_ascii_case(&b))
}

/// Whether an opener of [`SECTIONS`] may start somewhere in `text`: one of its first
/// bytes followed by the opener's second byte in either case (a Markdown link's or a
/// JSON array's `[` is not `[THINK]`).
fn may_hold_opener(text: &str) -> bool {
    let bytes = text.as_bytes();
    let [a, b, c] = OPENER_FIRST_BYTES;
    memchr::memchr3_iter(a, b, c, bytes).any(|at| {
        SECTIONS.iter().any(|section| {
            let open = section.open.as_bytes();
            open[0] == bytes[at]
                && bytes
                    .get(at + 1)
                    .is_some_and(|next| next.eq_ignore_ascii_case(&open[1]))
        })
    })
}

/// Whether an opener may start with byte `b`; `leading` while a
/// [`Section::leading`] one may still open.
fn may_open(b: u8, leading: bool) -> bool {
    OPENER_FIRST_BYTES.contains(&b) || (leading && leading_may_start(b))
}

/// Where sections may open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// At the start of the text or of any line (marker mode, the stream, the agent).
    Anywhere,
    /// Only before the answer's first visible character (whole-response mode).
    Leading,
}

/// Whether `text` holds anything but space.
fn visible(text: &str) -> bool {
    text.chars().any(|c| !is_space(c))
}

/// A piece of the text, in order, as the splitter decides it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part<'a> {
    /// Answer text, and the offset in the whole text where it starts.
    Answer(&'a str, usize),
    /// A reasoning section has opened, at this offset of the whole text (its opener's
    /// start; where the text starts for a section the prompt opened).
    Opened(usize),
    /// Reasoning text (tags excluded).
    Reasoning(&'a str),
    /// A section has closed: the answer resumes at this offset of the whole text (the
    /// closer's end), whether or not answer text follows yet.
    Closed(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Reading answer text; `line_start` while only horizontal space has been read since
    /// the start of the text or the last line break.
    Answer { line_start: bool },
    /// Inside a section of kind `SECTIONS[section]`.
    Reasoning { section: usize },
    /// At the start of a text whose prompt opened a `<think>` section (a chat template
    /// that ends the prompt with `<think>`): the section is open, and an opener written
    /// anyway as the first visible text is that section's own.
    Prompted,
}

/// Cuts a text into answer and reasoning, chunk by chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Splitter {
    scope: Scope,
    mode: Mode,
    /// Text that may still become an opener or a closer, not decided yet (shorter than
    /// the longest of them).
    held: String,
    /// A visible answer character has been read (ends [`Scope::Leading`]).
    answered: bool,
}

impl Splitter {
    /// A splitter for a text that starts now; `prompted` when the prompt opened a
    /// `<think>` section the text starts inside ([`Mode::Prompted`]).
    pub(crate) fn new(scope: Scope, prompted: bool) -> Self {
        Splitter {
            scope,
            mode: if prompted {
                Mode::Prompted
            } else {
                Mode::Answer { line_start: true }
            },
            held: String::new(),
            answered: false,
        }
    }

    /// Reads `chunk`, which starts at offset `at` of the whole text, handing every
    /// piece it decides to `out`, in order.
    pub(crate) fn push(&mut self, chunk: &str, at: usize, out: &mut impl FnMut(Part<'_>)) {
        if self.held.is_empty() {
            let used = self.feed(chunk, at, false, out);
            self.held.push_str(&chunk[used..]);
        } else {
            let base = at - self.held.len();
            let mut text = std::mem::take(&mut self.held);
            text.push_str(chunk);
            let used = self.feed(&text, base, false, out);
            text.drain(..used);
            self.held = text;
        }
    }

    /// Whether [`Splitter::push`] would hand out all of `chunk` as one piece of answer
    /// and change nothing: nothing is held, the chunk continues a line that has begun
    /// with answer text (so no section can open in it) and holds no line break. A stream
    /// feeding many small chunks then takes the chunk as answer itself.
    pub(crate) fn passes_whole(&self, chunk: &str) -> bool {
        !chunk.is_empty()
            && self.passes_line_free()
            // A chunk is often one token: a plain search, not `memchr`'s vector set-up.
            && !chunk.as_bytes().contains(&b'\n')
    }

    /// Whether [`Splitter::passes_whole`] holds for every chunk without a line break:
    /// the part of it that is the splitter's state, which only [`Splitter::push`]
    /// changes.
    pub(crate) fn passes_line_free(&self) -> bool {
        self.held.is_empty() && self.answered && self.mode == (Mode::Answer { line_start: false })
    }

    /// The text has ended, `len` bytes long: hands out what was held. Returns the
    /// opener of the section still open, if one is (it is reasoning to the end).
    pub(crate) fn finish(
        &mut self,
        len: usize,
        out: &mut impl FnMut(Part<'_>),
    ) -> Option<&'static str> {
        let text = std::mem::take(&mut self.held);
        self.feed(&text, len - text.len(), true, out);
        match self.mode {
            // The answer's own section may end with the text.
            Mode::Reasoning { section } if SECTIONS[section].answer => None,
            Mode::Reasoning { section } => Some(SECTIONS[section].open),
            // Nothing but space was written: no section, no answer.
            Mode::Answer { .. } | Mode::Prompted => None,
        }
    }

    /// Decides as much of `text`, which starts at offset `base` of the whole text, as
    /// it can; returns how many bytes it used.
    fn feed(
        &mut self,
        text: &str,
        base: usize,
        eof: bool,
        out: &mut impl FnMut(Part<'_>),
    ) -> usize {
        let bytes = text.as_bytes();
        let mut pos = 0;
        // Where the piece being handed out started.
        let mut from = 0;
        while pos < text.len() {
            match self.mode {
                Mode::Answer { line_start: false } => match memchr::memchr(b'\n', &bytes[pos..]) {
                    Some(n) => {
                        if !self.answered {
                            self.answered = visible(&text[pos..pos + n]);
                        }
                        pos += n + 1;
                        self.mode = Mode::Answer { line_start: true };
                    }
                    None => {
                        if !self.answered {
                            self.answered = visible(&text[pos..]);
                        }
                        pos = text.len();
                    }
                },
                Mode::Answer { line_start: true } | Mode::Prompted => {
                    let prompted = self.mode == Mode::Prompted;
                    let c = text[pos..].chars().next().unwrap_or('\n');
                    if is_space(c) {
                        // Space before an opener stays in the answer.
                        pos += c.len_utf8();
                        continue;
                    }
                    let closed_scope = self.scope == Scope::Leading && self.answered;
                    let leading = !self.answered;
                    let tag = if !may_open(bytes[pos], leading) || closed_scope {
                        Tag::No
                    } else {
                        opener(&bytes[pos..], leading, eof)
                    };
                    let (section, len) = match tag {
                        Tag::Maybe => break,
                        Tag::Is { section, len } => (section, len),
                        // No opener written: the `<think>` section the prompt opened.
                        Tag::No if prompted => (0, 0),
                        Tag::No => {
                            self.mode = Mode::Answer { line_start: false };
                            continue;
                        }
                    };
                    if from < pos {
                        out(Part::Answer(&text[from..pos], base + from));
                    }
                    if !SECTIONS[section].answer {
                        out(Part::Opened(base + pos));
                    }
                    pos += len;
                    from = pos;
                    self.mode = Mode::Reasoning { section };
                }
                Mode::Reasoning { section } => {
                    let first = SECTIONS[section].close[0].as_bytes()[0];
                    let Some(n) = memchr::memchr(first, &bytes[pos..]) else {
                        pos = text.len();
                        break;
                    };
                    let at = pos + n;
                    match closer(&bytes[at..], section, eof) {
                        Tag::Maybe => {
                            pos = at;
                            break;
                        }
                        Tag::No => pos = at + 1,
                        Tag::Is { len, .. } => {
                            if from < at {
                                self.inside(section, &text[from..at], base + from, out);
                            }
                            pos = at + len;
                            from = pos;
                            self.mode = match continued(&text[at..pos]) {
                                Some(section) => Mode::Reasoning { section },
                                None => Mode::Answer { line_start: false },
                            };
                            out(Part::Closed(base + pos));
                        }
                    }
                }
            }
        }
        if from < pos {
            match self.mode {
                Mode::Answer { .. } | Mode::Prompted => {
                    out(Part::Answer(&text[from..pos], base + from))
                }
                Mode::Reasoning { section } => {
                    self.inside(section, &text[from..pos], base + from, out)
                }
            }
        }
        pos
    }

    /// Hands out `piece`, text inside a section of kind `SECTIONS[section]`: reasoning,
    /// or answer text when the section holds the answer.
    fn inside(&mut self, section: usize, piece: &str, at: usize, out: &mut impl FnMut(Part<'_>)) {
        if SECTIONS[section].answer {
            if !self.answered {
                self.answered = visible(piece);
            }
            out(Part::Answer(piece, at));
        } else {
            out(Part::Reasoning(piece));
        }
    }
}

/// The section a closer opens as it closes its own: a [`Section::answer`] one whose
/// opener ends the closer (harmony's analysis end followed by the final header).
fn continued(closer: &str) -> Option<usize> {
    SECTIONS.iter().position(|section| {
        section.answer
            && closer.len() > section.open.len()
            && closer.as_bytes()[closer.len() - section.open.len()..]
                .eq_ignore_ascii_case(section.open.as_bytes())
    })
}

/// Whether the bytes at a possible opener or closer are one.
enum Tag {
    /// They are: the section's kind (index in [`SECTIONS`]) and the delimiter's length.
    Is { section: usize, len: usize },
    /// They are not.
    No,
    /// The text ends before it can tell.
    Maybe,
}

/// Whether `bytes` start an opener; `leading` while a [`Section::leading`] one may
/// still open.
fn opener(bytes: &[u8], leading: bool, eof: bool) -> Tag {
    let mut maybe = false;
    for (section, kind) in SECTIONS.iter().enumerate() {
        if kind.leading && !leading {
            continue;
        }
        match starts_with(bytes, kind.open) {
            Tag::Is { len, .. } => return Tag::Is { section, len },
            Tag::Maybe => maybe = true,
            Tag::No => {}
        }
    }
    if maybe && !eof { Tag::Maybe } else { Tag::No }
}

/// Whether `bytes` start a closer of `SECTIONS[section]`. A longer closer that the
/// text so far may still complete is waited for before a shorter one is taken.
fn closer(bytes: &[u8], section: usize, eof: bool) -> Tag {
    for close in SECTIONS[section].close {
        match starts_with(bytes, close) {
            Tag::Is { len, .. } => return Tag::Is { section, len },
            Tag::Maybe if !eof => return Tag::Maybe,
            Tag::Maybe | Tag::No => {}
        }
    }
    Tag::No
}

/// Whether `bytes` start with `delimiter` (ASCII case-insensitive).
fn starts_with(bytes: &[u8], delimiter: &str) -> Tag {
    let delimiter = delimiter.as_bytes();
    let len = delimiter.len().min(bytes.len());
    if !bytes[..len].eq_ignore_ascii_case(&delimiter[..len]) {
        Tag::No
    } else if len < delimiter.len() {
        Tag::Maybe
    } else {
        Tag::Is { section: 0, len }
    }
}

/// Reasoning as it arrives, joined the one way every channel joins it (docs/spec.md §9.1): each
/// section trimmed, empty ones dropped, the rest joined with a blank line. What
/// [`ReasoningText::push`] hands out is final, so the deltas add up to
/// [`ReasoningText::text`] exactly. The parsers use it for `<think>` sections; an agent
/// uses it to join a provider's reasoning channel with the reasoning found in the text.
#[derive(Debug, Default, Clone)]
pub struct ReasoningText {
    /// A section opened since the last visible text: a blank line goes before the next.
    separate: bool,
    /// Whitespace after the last visible text, held until more visible text follows.
    trailing: String,
    /// Everything handed out so far.
    all: String,
    /// Where the current section's own text starts in `all` (after the blank line that
    /// joins it to the one before), once it has any.
    section_from: Option<usize>,
}

impl ReasoningText {
    /// An empty reasoning.
    pub fn new() -> Self {
        ReasoningText::default()
    }

    /// A new section starts: its text goes after a blank line (if anything came before).
    pub fn section(&mut self) {
        self.section_from = None;
        if !self.all.is_empty() {
            self.separate = true;
            self.trailing.clear();
        }
    }

    /// More text of the current section; returns what it makes final (`None` while it
    /// is only whitespace that may yet be trimmed).
    pub fn push(&mut self, text: &str) -> Option<String> {
        let body = text.trim_end();
        if body.trim_start().is_empty() {
            if !self.all.is_empty() && !self.separate {
                self.trailing.push_str(text);
            }
            return None;
        }
        let mut out = String::new();
        if self.all.is_empty() {
            self.section_from = Some(0);
            out.push_str(body.trim_start());
        } else if self.separate {
            self.section_from = Some(self.all.len() + 2);
            out.push_str("\n\n");
            out.push_str(body.trim_start());
        } else {
            // Visible text of a section whose start went out before (or of no
            // section: an agent joining a provider's channel).
            self.section_from.get_or_insert(self.all.len());
            out.push_str(&self.trailing);
            out.push_str(body);
        }
        self.separate = false;
        self.trailing.clear();
        self.trailing.push_str(&text[body.len()..]);
        self.all.push_str(&out);
        Some(out)
    }

    /// All the reasoning handed out so far, `None` when there is none.
    pub fn text(&self) -> Option<&str> {
        (!self.all.is_empty()).then_some(self.all.as_str())
    }

    /// Where the current section's own text stands in [`ReasoningText::text`] (without
    /// the blank line that joins it to the one before); `None` while it has none.
    pub(crate) fn current_section(&self) -> Option<std::ops::Range<usize>> {
        self.section_from.map(|from| from..self.all.len())
    }
}

/// A text cut into its answer and its reasoning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Split<'a> {
    /// The text without its reasoning sections (the text itself when it has none).
    pub(crate) answer: std::borrow::Cow<'a, str>,
    /// The reasoning, `None` when there is none.
    pub(crate) reasoning: Option<String>,
    /// The opener of the section still open when the text ended.
    pub(crate) unclosed: Option<&'static str>,
    /// Where each piece of the answer stands in the text, in order (empty when the
    /// answer is the text itself).
    pub(crate) answer_ranges: Vec<std::ops::Range<usize>>,
    /// Each reasoning section with text, in order.
    pub(crate) sections: Vec<SectionAt>,
}

/// Where a reasoning section stands, for the parts of a parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SectionAt {
    /// The offset in the text where it opens.
    pub(crate) open: usize,
    /// How much of the answer came before it.
    pub(crate) answer_before: usize,
    /// Its own text in the joined reasoning.
    pub(crate) text: std::ops::Range<usize>,
    /// Where the answer resumes after it, if it closed.
    pub(crate) end: Option<usize>,
}

/// Cuts a whole text into answer and reasoning; `prompted` as for [`Splitter::new`].
pub(crate) fn split(text: &str, scope: Scope, prompted: bool) -> Split<'_> {
    // A text where no opener can start (most answers) is all answer.
    if !prompted && !may_hold_opener(text) && !may_open_leading(text) {
        return Split {
            answer: std::borrow::Cow::Borrowed(text),
            reasoning: None,
            unclosed: None,
            answer_ranges: Vec::new(),
            sections: Vec::new(),
        };
    }
    let mut splitter = Splitter::new(scope, prompted);
    let mut answer: Vec<std::ops::Range<usize>> = Vec::new();
    let base = text.as_ptr() as usize;
    let mut reasoning = ReasoningText::default();
    let mut sections: Vec<SectionAt> = Vec::new();
    // The section open and the answer before it.
    let mut opened: Option<(usize, usize)> = None;
    let mut answer_len = 0;
    let unclosed = {
        let mut out = |part: Part<'_>| match part {
            Part::Answer(piece, _) => answer_len += piece.len(),
            Part::Closed(at) => {
                if let Some(last) = sections.last_mut().filter(|last| last.end.is_none()) {
                    last.end = Some(at);
                }
            }
            Part::Opened(at) => {
                reasoning.section();
                opened = Some((at, answer_len));
            }
            Part::Reasoning(text) => {
                reasoning.push(text);
                if let (Some((open, answer_before)), Some(text)) =
                    (opened, reasoning.current_section())
                {
                    match sections.last_mut() {
                        Some(last) if last.open == open => last.text = text,
                        _ => sections.push(SectionAt {
                            open,
                            answer_before,
                            text,
                            end: None,
                        }),
                    }
                }
            }
        };
        let used = splitter.feed(text, 0, true, &mut |part| {
            if let Part::Answer(piece, _) = part {
                // The whole text is fed at once, so every piece is a slice of it: keep
                // where it is instead of copying it.
                let start = piece.as_ptr() as usize - base;
                answer.push(start..start + piece.len());
            }
            out(part);
        });
        debug_assert_eq!(used, text.len());
        splitter.finish(text.len(), &mut out)
    };
    // Nothing was taken out (no section, no notation around the answer): the text.
    let kept: usize = answer.iter().map(std::ops::Range::len).sum();
    let (answer, answer_ranges) = if kept == text.len() {
        (std::borrow::Cow::Borrowed(text), Vec::new())
    } else {
        let mut joined = String::with_capacity(text.len());
        for range in &answer {
            joined.push_str(&text[range.clone()]);
        }
        (std::borrow::Cow::Owned(joined), answer)
    };
    Split {
        answer,
        reasoning: reasoning.text().map(str::to_owned),
        unclosed,
        answer_ranges,
        sections,
    }
}

/// The warning's text for a section opened with `open` and still open at the end of
/// the text.
pub(crate) fn unclosed_message(open: &str) -> String {
    let close = SECTIONS
        .iter()
        .find(|section| section.open == open)
        .and_then(|section| section.close.last())
        .copied()
        .unwrap_or_default();
    format!(
        "the {open} section was never closed with {close}: everything after it was read as reasoning, none of it as the answer"
    )
}

#[cfg(test)]
mod tests;
