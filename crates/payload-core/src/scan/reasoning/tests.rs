use super::*;

use super::split as split_text;

fn parts(text: &str) -> (String, Option<String>, Option<&'static str>) {
    let split = split(text, Scope::Anywhere, false);
    (split.answer.into_owned(), split.reasoning, split.unclosed)
}

/// The split of `text` fed in chunks of `size` bytes (at char boundaries).
fn chunked(
    text: &str,
    size: usize,
    scope: Scope,
    prompted: bool,
) -> (String, Option<String>, Option<&'static str>) {
    let mut splitter = Splitter::new(scope, prompted);
    let mut answer = String::new();
    let mut reasoning = ReasoningText::default();
    let mut deltas = String::new();
    let whole = text;
    let mut out = |part: Part<'_>| match part {
        Part::Answer(text, at) => {
            // Each piece says where it stands in the whole text.
            assert_eq!(&whole[at..at + text.len()], text);
            answer.push_str(text);
        }
        Part::Opened(at) | Part::Closed(at) if at > whole.len() => panic!("{at} is past the end"),
        Part::Opened(_) => reasoning.section(),
        Part::Closed(_) => {}
        Part::Reasoning(text) => deltas.push_str(&reasoning.push(text).unwrap_or_default()),
    };
    let mut at = 0;
    while at < text.len() {
        let mut end = (at + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        splitter.push(&text[at..end], at, &mut out);
        at = end;
    }
    let unclosed = splitter.finish(text.len(), &mut out);

    let all = reasoning.text().map(str::to_owned);
    assert_eq!(all.clone().unwrap_or_default(), deltas);
    (answer, all, unclosed)
}

#[test]
fn a_leading_section_is_reasoning_and_leaves_the_answer() {
    let (answer, reasoning, unclosed) =
        parts("<think>\nDraft: {\"a\": 1}\n</think>\n\nThe answer.");
    assert_eq!(answer, "\n\nThe answer.");
    assert_eq!(reasoning.as_deref(), Some("Draft: {\"a\": 1}"));
    assert_eq!(unclosed, None);
}

#[test]
fn tag_names_match_in_any_case_and_each_closes_its_own() {
    for (open, close) in [
        ("<THINK>", "</Think>"),
        ("<Thinking>", "</THINKING>"),
        ("<reasoning>", "</REASONING>"),
    ] {
        let (answer, reasoning, _) = parts(&format!("{open}r{close}a"));
        assert_eq!((answer.as_str(), reasoning.as_deref()), ("a", Some("r")));
    }
    // Another name's closing tag does not close the section.
    let (answer, reasoning, unclosed) = parts("<think>r</thinking>a");
    assert_eq!(answer, "");
    assert_eq!(reasoning.as_deref(), Some("r</thinking>a"));
    assert_eq!(unclosed, Some("<think>"));
}

#[test]
fn other_models_sections_are_reasoning_too() {
    for (open, close) in [
        ("[THINK]", "[/THINK]"),
        ("\u{25C1}think\u{25B7}", "\u{25C1}/think\u{25B7}"),
        ("<seed:think>", "</seed:think>"),
        ("<|channel|>analysis<|message|>", "<|end|>"),
    ] {
        let text = format!("{open}Draft: SCHEMA_PROPOSAL: {{}}{close}\nThe answer.");
        let (answer, reasoning, unclosed) = parts(&text);
        assert_eq!(answer, "\nThe answer.", "{open}");
        assert_eq!(reasoning.as_deref(), Some("Draft: SCHEMA_PROPOSAL: {}"));
        assert_eq!(unclosed, None);
        // Each closes only its own kind.
        let (answer, _, unclosed) = parts(&format!("{open}x</think>y"));
        assert_eq!((answer.as_str(), unclosed), ("", Some(open)), "{open}");
    }
    // gpt-oss's raw harmony text: the analysis channel is reasoning, and the final
    // channel's header goes with it.
    let harmony = "<|start|>assistant<|channel|>analysis<|message|>Plan it.<|end|><|start|>assistant<|channel|>final<|message|>Done.";
    assert_eq!(
        parts(harmony),
        ("Done.".to_string(), Some("Plan it.".to_string()), None)
    );
    assert_eq!(
        unclosed_message("[THINK]"),
        "the [THINK] section was never closed with [/THINK]: everything after it was read as reasoning, none of it as the answer"
    );
}

#[test]
fn every_opener_and_closer_can_be_searched_by_its_first_byte() {
    for section in &SECTIONS {
        let first = section.close[0].as_bytes()[0];
        // A leading opener is tried only at the text's start, by `leading_may_start`.
        assert!(section.leading || !section.open.as_bytes()[0].is_ascii_alphabetic());
        assert!(section.close.iter().all(|c| c.as_bytes()[0] == first));
        assert!(!first.is_ascii_alphabetic());
        // A longer closer that starts with another comes first.
        for (i, a) in section.close.iter().enumerate() {
            for b in &section.close[i + 1..] {
                assert!(!b.starts_with(a), "{a} before {b}");
            }
        }
    }
    // An opener that starts with another comes first.
    for (i, a) in SECTIONS.iter().enumerate() {
        for b in &SECTIONS[i + 1..] {
            assert!(
                !b.open.starts_with(a.open) || a.open == b.open,
                "{} before {}",
                a.open,
                b.open
            );
        }
    }
}

#[test]
fn an_opening_tag_counts_only_at_a_line_start() {
    let (answer, reasoning, _) = parts("Say <think>x</think> here.");
    assert_eq!(answer, "Say <think>x</think> here.");
    assert_eq!(reasoning, None);
    let (answer, reasoning, _) = parts("Intro.\n \t<think>x</think>\nOutro.");
    assert_eq!(answer, "Intro.\n \t\nOutro.");
    assert_eq!(reasoning.as_deref(), Some("x"));
    // Not a tag: attributes, other names, a quote before it.
    for text in [
        "<think id=1>x</think>",
        "<thinker>x</thinker>",
        "> <think>x</think>",
    ] {
        assert_eq!(parts(text), (text.to_string(), None, None), "{text}");
    }
}

#[test]
fn an_unclosed_section_is_reasoning_to_the_end() {
    let (answer, reasoning, unclosed) = parts("<thinking>\nStill going: SCHEMA_PROPOSAL: {}");
    assert_eq!(answer, "");
    assert_eq!(
        reasoning.as_deref(),
        Some("Still going: SCHEMA_PROPOSAL: {}")
    );
    assert_eq!(unclosed, Some("<thinking>"));
    // A closing tag cut off at the end is reasoning text.
    assert_eq!(parts("<think>x</thi").1.as_deref(), Some("x</thi"));
}

#[test]
fn a_stray_closing_tag_is_plain_text() {
    let text = "Answer.</think>\nMore.\n</think>";
    assert_eq!(parts(text), (text.to_string(), None, None));
}

#[test]
fn sections_do_not_nest() {
    let (answer, reasoning, _) = parts("<think>a\n<think>b</think>c</think>\nd");
    assert_eq!(reasoning.as_deref(), Some("a\n<think>b"));
    assert_eq!(answer, "c</think>\nd");
}

#[test]
fn several_sections_are_joined_with_a_blank_line_and_empty_ones_dropped() {
    let (answer, reasoning, _) = parts(
        "<think>\n\n</think>\nOne.\n<think>\n first \n</think>\nTwo.\n<THINK> second</THINK>",
    );
    assert_eq!(answer, "\nOne.\n\nTwo.\n");
    assert_eq!(reasoning.as_deref(), Some("first\n\nsecond"));
    // A section with nothing in it leaves no reasoning at all.
    assert_eq!(parts("<think>\n\n</think>\n\nHi").1, None);
}

#[test]
fn crlf_lines_are_lines() {
    let (answer, reasoning, _) = parts("Intro\r\n<think>\r\nplan\r\n</think>\r\nAnswer\r\n");
    assert_eq!(answer, "Intro\r\n\r\nAnswer\r\n");
    assert_eq!(reasoning.as_deref(), Some("plan"));
}

#[test]
fn invisible_characters_count_as_space_before_a_tag() {
    let (answer, reasoning, _) = parts("\u{feff}<think>x</think>\n\u{200b} <THINK>y</THINK>");
    assert_eq!(answer, "\u{feff}\n\u{200b} ");
    assert_eq!(reasoning.as_deref(), Some("x\n\ny"));
}

#[test]
fn the_leading_scope_reads_sections_only_before_the_answer() {
    let text = "\n<think>plan</think>\n<response>\n<reasoning>because</reasoning>\n</response>";
    let split = split(text, Scope::Leading, false);
    assert_eq!(
        split.answer,
        "\n\n<response>\n<reasoning>because</reasoning>\n</response>"
    );
    assert_eq!(split.reasoning.as_deref(), Some("plan"));
    // Invisible characters are not an answer yet.
    let split = split_text("\u{200b}\n<think>plan</think>\n{}", Scope::Leading, false);
    assert_eq!(split.reasoning.as_deref(), Some("plan"));
    let split = split_text("{}\n<think>plan</think>", Scope::Leading, false);
    assert_eq!(split.reasoning, None);
}

#[test]
fn every_chunking_gives_the_same_split() {
    let texts = [
        "<think>\nplan </THINK>\nSCHEMA: {}\n  <Thinking>more\n\n</thinking>tail\n<reasoning>open",
        "a</think>\n<thin\n<think>x</thin</think>y\n<reasoning>é\u{00a0}ü</reasoning>",
        "\u{feff}<think>x</think>",
        "<",
        "\n<think",
        "[THINK]a[/THIN[/THINK]\n\u{25C1}think\u{25B7}b\u{25C1}/think\u{25B7}",
        "<|channel|>analysis<|message|>p<|end|><|start|>assistant<|channel|>fin",
        "<|channel|>analysis<|message|>p<|end|><|start|>assistant<|channel|>final<|message|>a\n<seed:think>s",
    ];
    for text in texts {
        for (scope, prompted) in [
            (Scope::Anywhere, false),
            (Scope::Leading, false),
            (Scope::Anywhere, true),
            (Scope::Leading, true),
        ] {
            let whole = split(text, scope, prompted);
            let whole = (whole.answer.into_owned(), whole.reasoning, whole.unclosed);
            for size in 1..=text.len() {
                assert_eq!(
                    chunked(text, size, scope, prompted),
                    whole,
                    "{text:?} in chunks of {size}, prompted: {prompted}"
                );
            }
        }
    }
}

#[test]
fn the_splitter_holds_back_only_a_possible_tag() {
    let mut splitter = Splitter::new(Scope::Anywhere, false);
    let mut seen = Vec::new();
    let mut out = |part: Part<'_>| seen.push(format!("{part:?}"));
    splitter.push("Hello\n  <thin", 0, &mut out);
    splitter.push("k", 13, &mut out);

    assert_eq!(seen, ["Answer(\"Hello\\n  \", 0)"]);
    assert_eq!(splitter.held, "<think");
    // Once it cannot be a tag, it is answer text at once.
    let mut seen = Vec::new();
    splitter.push("s", 14, &mut |part| seen.push(format!("{part:?}")));
    assert_eq!(seen, ["Answer(\"<thinks\", 8)"]);
}

/// Text around openers and closers: line starts, spaces, partial and whole ones of
/// every kind of section, in any case.
fn tagged_text() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let piece = prop::sample::select(vec![
        "answer",
        " ",
        "\n",
        "\r\n",
        "\t",
        "\u{feff}",
        "é",
        "<",
        "<think>",
        "</think>",
        "<THINKING>",
        "</thinking>",
        "<reasoning>",
        "</Reasoning>",
        "<thi",
        "</thi",
        "x</think",
        "[THINK]",
        "[/think]",
        "\u{25C1}think\u{25B7}",
        "\u{25C1}/think\u{25B7}",
        "<seed:think>",
        "</seed:think>",
        "<|channel|>analysis<|message|>",
        "<|end|>",
        "<|",
        "<|start|>assistant<|channel|>final<|message|>",
        "<|channel|>FINAL<|message|>",
        "<|end|><|start|>assistant<|channel|>final<|message|>",
        "<|return|>",
        "<|ret",
        "Thinking...\n",
        "thinking...\r\n",
        "Thinking...",
        "...done thinking.",
        "...done",
    ]);
    prop::collection::vec(piece, 0..16).prop_map(|pieces| pieces.concat())
}

proptest::proptest! {
    /// Any chunking splits a text as the whole text splits, whether or not the prompt
    /// opened a section.
    #[test]
    fn any_chunking_gives_the_same_split(
        text in tagged_text(),
        size in 1usize..8,
        leading in proptest::prelude::any::<bool>(),
        prompted in proptest::prelude::any::<bool>(),
    ) {
        let scope = if leading { Scope::Leading } else { Scope::Anywhere };
        let whole = split(&text, scope, prompted);
        let whole = (whole.answer.into_owned(), whole.reasoning, whole.unclosed);
        proptest::prop_assert_eq!(chunked(&text, size, scope, prompted), whole);
    }

    /// `passes_whole` says what `push` does: whenever it holds, pushing the chunk hands
    /// it out as one answer piece and leaves the splitter as it was.
    #[test]
    fn a_chunk_that_passes_whole_is_what_push_hands_out(
        text in tagged_text(),
        sizes in proptest::collection::vec(1usize..6, 1..4),
        leading in proptest::prelude::any::<bool>(),
        prompted in proptest::prelude::any::<bool>(),
    ) {
        let scope = if leading { Scope::Leading } else { Scope::Anywhere };
        let mut splitter = Splitter::new(scope, prompted);
        let (mut at, mut turn) = (0, 0);
        while at < text.len() {
            let mut end = (at + sizes[turn % sizes.len()]).min(text.len());
            turn += 1;
            while !text.is_char_boundary(end) {
                end += 1;
            }
            let chunk = &text[at..end];
            let before = splitter.clone();
            let mut parts = Vec::new();
            splitter.push(chunk, at, &mut |part| parts.push(format!("{part:?}")));
            if before.passes_whole(chunk) {
                proptest::prop_assert_eq!(&parts, &vec![format!("{:?}", Part::Answer(chunk, at))]);
                proptest::prop_assert_eq!(&splitter, &before, "{:?} changed the splitter", chunk);
            }
            at = end;
        }
    }
}

#[test]
fn the_opener_bytes_are_the_first_bytes_of_every_opener() {
    let mut firsts: Vec<u8> = SECTIONS
        .iter()
        .filter(|s| !s.leading)
        .map(|s| s.open.as_bytes()[0])
        .collect();
    firsts.sort_unstable();
    firsts.dedup();
    let mut listed = OPENER_FIRST_BYTES.to_vec();
    listed.sort_unstable();
    assert_eq!(firsts, listed);
}

/// A prompt that ends with `<think>` (DeepSeek-R1's, Qwen3's templates): the response
/// starts inside the section, and a `<think>` it writes anyway is that section's own.
#[test]
fn a_section_the_prompt_opened_ends_at_its_closer() {
    let prompted = |text: &str| {
        let split = split(text, Scope::Anywhere, true);
        (split.answer.into_owned(), split.reasoning, split.unclosed)
    };
    let draft = "Draft: SCHEMA: {\"a\": 1}\n</think>\n\nSCHEMA: {\"a\": 2}";
    let (answer, reasoning, unclosed) = prompted(draft);
    assert_eq!(answer, "\n\nSCHEMA: {\"a\": 2}");
    assert_eq!(reasoning.as_deref(), Some("Draft: SCHEMA: {\"a\": 1}"));
    assert_eq!(unclosed, None);
    // Without the option the same text is all answer: a closer with no section open.
    assert_eq!(parts(draft).0, draft);

    let written = prompted(&format!("\n<think>{draft}"));
    assert_eq!((written.0.trim(), &written.1), (answer.trim(), &reasoning));
    assert_eq!(prompted("\n <THINK>\nplan</think>ok").0, "\n ok");
    // Never closed: reasoning to the end, as a section opened in the text.
    assert_eq!(
        prompted("still thinking"),
        (
            String::new(),
            Some("still thinking".to_string()),
            Some("<think>")
        )
    );
    // A blank answer has no section and nothing to warn about.
    assert_eq!(prompted(" \n"), (" \n".to_string(), None, None));
    // Another kind written first is that kind's section.
    assert_eq!(prompted("[THINK]p[/THINK]a").0, "a");
}

/// gpt-oss's final channel: its header and end token are notation, taken out; what
/// they enclose is the answer, with no reasoning and nothing to warn about. After the
/// analysis channel, whose end takes the header, the end token goes too.
#[test]
fn the_harmony_final_channel_is_the_answer_without_its_notation() {
    for (text, answer, reasoning) in [
        (
            "<|start|>assistant<|channel|>final<|message|>Done.<|return|>",
            "Done.",
            None,
        ),
        ("<|channel|>final<|message|>Done.", "Done.", None),
        (
            "<|channel|>analysis<|message|>Plan.<|end|><|start|>assistant<|channel|>final<|message|>Done.<|return|>",
            "Done.",
            Some("Plan."),
        ),
        // After the end token, text is answer again, and a closer-less mention of the
        // token elsewhere stays.
        (
            "<|channel|>final<|message|>A<|end|>\nB <|return|>",
            "A\nB <|return|>",
            None,
        ),
    ] {
        assert_eq!(
            parts(text),
            (answer.to_string(), reasoning.map(str::to_string), None),
            "{text:?}"
        );
        for size in 1..8 {
            let got = chunked(text, size, Scope::Anywhere, false);
            assert_eq!(got.0, answer, "{text:?} in chunks of {size}");
        }
        // In whole-response mode the final channel's text is the answer too.
        assert_eq!(
            split(text, Scope::Leading, false).answer,
            answer,
            "{text:?}"
        );
    }
    // Written mid-line, the header is text.
    let mentioned = "Its header is <|channel|>final<|message|> then text.";
    assert_eq!(parts(mentioned).0, mentioned);
}

/// Ollama's command line prints the thinking between `Thinking...` and `...done
/// thinking.`: reasoning as the output's first line only; a line that goes on after
/// `Thinking...`, or one further down, is prose.
#[test]
fn ollamas_rendering_is_reasoning_only_at_the_start() {
    let ollama = "Thinking...\nThe user wants SCHEMA: {}.\n...done thinking.\n\nHere it is.";
    assert_eq!(
        parts(ollama),
        (
            "\n\nHere it is.".to_string(),
            Some("The user wants SCHEMA: {}.".to_string()),
            None
        )
    );
    let crlf = "  Thinking...\r\nPlan.\r\n...done thinking.\r\nOK";
    assert_eq!(parts(crlf).0, "  \r\nOK");
    for prose in [
        "Thinking... about it, yes.\n...done thinking.",
        "Sure.\nThinking...\nit over\n...done thinking.",
        "...done thinking.",
    ] {
        assert_eq!(parts(prose), (prose.to_string(), None, None), "{prose:?}");
    }
    // After a reasoning section, with no answer yet, it still opens.
    let after = "<think>a</think>\nThinking...\nb\n...done thinking.\nc";
    assert_eq!(parts(after).1.as_deref(), Some("a\n\nb"));
    for size in 1..8 {
        assert_eq!(
            chunked(ollama, size, Scope::Anywhere, false),
            parts(ollama),
            "{size}"
        );
    }
}
