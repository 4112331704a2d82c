//! The A2UI agent on answers as a model writes them: several `<a2ui-json>` blocks among
//! the prose, read one-shot and streamed at every chunking, under A2UI's surface rules.

use a2ui::{
    A2uiAgent, A2uiStream, AnswerPart, Delivery, Message, Protocol, StreamPart, SurfaceError,
    Surfaces,
};
use payload_core::LlmPayload;
use serde_json::{Value, json};

/// An answer with two blocks: a surface with a tree whose last child comes in the
/// second block, and the data for it; a fenced block, and prose around both.
const ANSWER: &str = r#"Here are two options for tonight.
<a2ui-json>
[{"version": "v0.9", "createSurface": {"surfaceId": "pick", "catalogId": "basic"}},
 {"version": "v0.9", "updateComponents": {"surfaceId": "pick", "components": [
   {"id": "root", "component": "Column", "children": ["title", "list"]},
   {"id": "title", "component": "Text", "text": "Tonight"},
   {"id": "orphan", "component": "Text", "text": "never shown"}]}}]
</a2ui-json>
The list follows:
<a2ui-json>
```json
[{"version": "v0.9", "updateComponents": {"surfaceId": "pick", "components": [
   {"id": "list", "component": "List", "children": {"componentId": "row", "path": "/places"}},
   {"id": "row", "component": "Text", "text": {"path": "name"}}]}},
 {"version": "v0.9", "updateDataModel": {"surfaceId": "pick", "path": "/places", "value": [{"name": "Bistro"}]}}]
```
</a2ui-json>
Pick one and I'll book it."#;

fn message(value: Value) -> Message {
    Protocol::V09.read(value).expect("a v0.9 message")
}

/// `surfaces` once surface `s` is created.
fn with_surface_s(mut surfaces: Surfaces) -> Surfaces {
    let create = json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": "c"}});
    surfaces.ready(&message(create)).unwrap();
    surfaces
}

#[test]
fn an_answer_is_its_text_and_blocks_in_order() {
    let answer = A2uiAgent::new(4).parse(ANSWER);
    assert!(answer.parsed.rejected.is_empty(), "{:#?}", answer.parsed);
    let shape: Vec<&str> = answer
        .parts
        .iter()
        .map(|p| match p {
            AnswerPart::Text(_) => "text",
            AnswerPart::Ui(_) => "ui",
        })
        .collect();
    assert_eq!(shape, ["text", "ui", "text", "ui", "text"]);
    assert_eq!(
        answer.parts[4],
        AnswerPart::Text("Pick one and I'll book it.".into())
    );
    assert_eq!(answer.parsed.payloads().count(), 2);
}

#[test]
fn one_block_per_answer_refuses_the_second_as_extra() {
    let answer = A2uiAgent::new(1).parse(ANSWER);
    assert_eq!(answer.parsed.payloads().count(), 1);
    assert_eq!(answer.parsed.rejected.len(), 1, "{:#?}", answer.parsed);
}

#[test]
fn a_surface_is_sent_once_its_tree_from_the_root_is_whole_without_orphans() {
    let answer = A2uiAgent::new(4).parse(ANSWER);
    let sent = answer.ready(&mut Surfaces::default()).unwrap();
    let kinds: Vec<&str> = sent
        .iter()
        .map(|m| {
            if m.starts_surface().is_some() {
                "create"
            } else if m.components().is_some() {
                "components"
            } else {
                "data"
            }
        })
        .collect();
    // The first block's tree lacks "list": it waits, and goes once the second block
    // brings it, with every reachable component and without the orphan.
    assert_eq!(kinds, ["create", "components", "data"]);
    let components = sent[1].components().unwrap().unwrap();
    let ids: Vec<&str> = components.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["list", "root", "row", "title"]);
}

#[test]
fn a_missing_child_is_a_placeholder_in_the_preview() {
    let mut surfaces = with_surface_s(Surfaces::default());
    let sent = surfaces
        .ready(&message(
            json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
            {"id": "root", "component": "Card", "child": "body"}]}}),
        ))
        .unwrap();
    assert!(
        sent.is_empty(),
        "a tree with a missing child waits: {sent:?}"
    );
    let preview = serde_json::to_value(surfaces.get("s").unwrap().preview()).unwrap();
    assert_eq!(
        preview,
        json!([
            {"id": "root", "component": "Card", "child": "loading_body"},
            {"id": "loading_body", "component": "Row", "children": []}
        ])
    );
    let sent = surfaces
        .ready(&message(
            json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
            {"id": "body", "component": "Text", "text": "hi"}]}}),
        ))
        .unwrap();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].components().unwrap().unwrap().len(), 2);
}

#[test]
fn components_that_contain_themselves_are_refused() {
    let mut surfaces = Surfaces::default();
    let cycle = message(
        json!({"version": "v0.9", "updateComponents": {"surfaceId": "s", "components": [
        {"id": "root", "component": "Card", "child": "a"},
        {"id": "a", "component": "Column", "children": ["b"]},
        {"id": "b", "component": "Card", "child": "a"}]}}),
    );
    match surfaces.apply(&cycle) {
        Err(SurfaceError::Circular { cycle }) => assert_eq!(cycle, ["a", "b", "a"]),
        other => panic!("{other:?}"),
    }
    let own = message(
        json!({"version": "v0.9", "updateComponents": {"surfaceId": "t", "components": [
        {"id": "root", "component": "Card", "child": "root"}]}}),
    );
    assert!(matches!(
        Surfaces::default().apply(&own),
        Err(SurfaceError::SelfReference { .. })
    ));
    // In an answer, such a block is rejected with the reason; the prose stays.
    let text = "Here.\n<a2ui-json>[{\"version\": \"v0.9\", \"updateComponents\": {\"surfaceId\": \"s\", \"components\": [{\"id\": \"root\", \"component\": \"Card\", \"child\": \"root\"}]}}]</a2ui-json>";
    let answer = A2uiAgent::new(2).parse(text);
    assert_eq!(answer.parsed.message, "Here.");
    let errors = &answer.parsed.rejected[0].errors;
    assert!(
        errors
            .iter()
            .any(|e| e.message().contains("Self-reference detected")),
        "{errors:?}"
    );
}

/// Streams `text` cut at `cuts` (byte offsets, any order; moved to char boundaries):
/// every part, and the final parse.
fn stream_cut(
    agent: &A2uiAgent,
    surfaces: Surfaces,
    text: &str,
    cuts: &[usize],
) -> (Vec<StreamPart>, payload_core::ParsedResponse) {
    let mut cuts: Vec<usize> = cuts
        .iter()
        .map(|&at| {
            let mut at = at.min(text.len());
            while !text.is_char_boundary(at) {
                at += 1;
            }
            at
        })
        .chain([text.len()])
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut stream = A2uiStream::new(agent, surfaces);
    let mut parts = Vec::new();
    let mut from = 0;
    for at in cuts {
        parts.extend(stream.push(&text[from..at]).unwrap());
        from = at;
    }
    let (last, parsed) = stream.finish().unwrap();
    parts.extend(last);
    (parts, parsed)
}

/// Cut points every `size` bytes.
fn every(size: usize, text: &str) -> Vec<usize> {
    (1..)
        .map(|i| i * size)
        .take_while(|&at| at < text.len())
        .collect()
}

fn sent(parts: &[StreamPart]) -> Vec<Message> {
    parts
        .iter()
        .filter_map(|p| match p {
            StreamPart::Ui(messages) => Some(messages.clone()),
            StreamPart::Text(_) => None,
            StreamPart::Refused(errors) => panic!("refused: {errors:?}"),
        })
        .flatten()
        .collect()
}

/// What an A2UI client holds after `messages`: per surface, the components reachable
/// from the root (a component sent again replaces the one with its id, placeholders
/// included) and the data model (a value replaces what is at its path).
fn client_state(messages: &[Message]) -> Vec<(String, Vec<Value>, Value)> {
    use std::collections::BTreeMap;
    let mut components: BTreeMap<String, BTreeMap<String, a2ui::Component>> = BTreeMap::new();
    let mut roots: BTreeMap<String, String> = BTreeMap::new();
    let mut data: BTreeMap<String, Value> = BTreeMap::new();
    for m in messages {
        let surface_id = m.surface_id().expect("a surface").to_string();
        if let Some(root) = m.starts_surface() {
            roots.insert(surface_id.clone(), root.to_string());
        }
        if let Some(update) = m.components() {
            let surface = components.entry(surface_id.clone()).or_default();
            for c in update.expect("components") {
                surface.insert(c.id.clone(), c);
            }
        }
        // The data a message sets, at its path: v0.9's value, v0.8's entries.
        let set = match m {
            Message::V09(m) => m
                .update_data_model
                .as_ref()
                .map(|u| (u.path.clone(), u.value.clone().unwrap_or(Value::Null))),
            Message::V08(m) => m
                .data_model_update
                .as_ref()
                .map(|u| (u.path.clone(), serde_json::to_value(&u.contents).unwrap())),
        };
        if let Some((path, value)) = set {
            let model = data.entry(surface_id.clone()).or_insert(json!({}));
            match path.as_deref() {
                None | Some("/") => *model = value,
                Some(path) => model[path.trim_start_matches('/')] = value,
            }
        }
        if m.deletes_surface() {
            components.remove(&surface_id);
            data.remove(&surface_id);
        }
    }
    let surfaces: std::collections::BTreeSet<String> =
        components.keys().chain(data.keys()).cloned().collect();
    surfaces
        .into_iter()
        .map(|id| {
            let map = components.get(&id).cloned().unwrap_or_default();
            let root = roots
                .get(&id)
                .cloned()
                .unwrap_or_else(|| "root".to_string());
            let mut reached: BTreeMap<String, Value> = BTreeMap::new();
            let mut stack = vec![root];
            while let Some(at) = stack.pop() {
                if let Some(c) = map.get(&at)
                    && !reached.contains_key(&at)
                {
                    stack.extend(c.children().into_iter().map(str::to_string));
                    reached.insert(at, serde_json::to_value(c).unwrap());
                }
            }
            let model = data.get(&id).cloned().unwrap_or(Value::Null);
            (id, reached.into_values().collect(), model)
        })
        .collect()
}

#[test]
fn the_stream_sends_what_the_whole_answer_sends_at_every_chunking() {
    let agent = A2uiAgent::new(4);
    let whole = agent.parse(ANSWER);
    let expected = whole.ready(&mut Surfaces::default()).unwrap();
    for size in [1, 2, 3, 5, 8, 13, 64, ANSWER.len()] {
        let (parts, parsed) = stream_cut(&agent, Surfaces::default(), ANSWER, &every(size, ANSWER));
        assert_eq!(sent(&parts), expected, "chunks of {size}");
        let text: String = parts
            .iter()
            .filter_map(|p| match p {
                StreamPart::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(text, whole.parsed.message, "chunks of {size}");
        assert_eq!(parsed, whole.parsed, "chunks of {size}");
    }
}

/// An answer that a progressive client sees grow: text written in pieces, a children
/// list, data with several members, a surface whose root comes last.
const GROWING: &str = r#"Your order:
<a2ui-json>[
 {"version": "v0.9", "createSurface": {"surfaceId": "order", "catalogId": "basic"}},
 {"version": "v0.9", "updateDataModel": {"surfaceId": "order", "value": {"title": "Two pizzas", "items": {"a": {"name": "Margherita", "image": "https://x.test/m.png"}, "b": {"name": "Diavola"}}, "total": 23.5}}},
 {"version": "v0.9", "updateComponents": {"surfaceId": "order", "components": [
   {"id": "root", "component": "Column", "children": ["head", "list", "pay"]},
   {"id": "head", "component": "Text", "text": "A long heading that arrives in many pieces"},
   {"id": "list", "component": "List", "children": {"componentId": "row", "path": "/items"}},
   {"id": "row", "component": "Text", "text": {"path": "name"}},
   {"id": "pay", "component": "Button", "child": "pay_label", "action": {"event": {"name": "pay"}}},
   {"id": "pay_label", "component": "Text", "text": "Pay"}]}},
 {"version": "v0.9", "createSurface": {"surfaceId": "late", "catalogId": "basic"}},
 {"version": "v0.9", "updateComponents": {"surfaceId": "late", "components": [
   {"id": "note", "component": "Text", "text": "Delivered by 8"},
   {"id": "root", "component": "Card", "child": "note"}]}}
]</a2ui-json>
Anything else?"#;

/// The progressive stream's guarantee, whatever the chunking: what a client holds once
/// the answer has ended is what the whole answer's messages leave it holding, and
/// nothing it was sent on the way contradicts the final answer (each component sent is
/// the final one or an earlier view of it: its id and type final, its text a start of
/// the final text).
fn holds_the_whole_answer(text: &str, cuts: &[usize]) {
    let protocol = if text.contains("beginRendering") {
        Protocol::V08
    } else {
        Protocol::V09
    };
    let agent = A2uiAgent::with_protocol(protocol, 4);
    let whole = agent.parse(text);
    let expected = whole.ready(&mut Surfaces::default()).unwrap();
    let progressive = Surfaces::default().with_delivery(Delivery::Progressive);
    let (parts, parsed) = stream_cut(&agent, progressive, text, cuts);
    assert_eq!(parsed, whole.parsed);
    let sent = sent(&parts);
    assert_eq!(
        client_state(&sent),
        client_state(&expected),
        "cuts {cuts:?}"
    );
    let by_surface = |messages: &[Message]| -> Vec<(String, a2ui::Component)> {
        messages
            .iter()
            .filter_map(|m| m.as_v09()?.update_components.as_ref())
            .flat_map(|u| {
                u.components
                    .iter()
                    .map(|c| (u.surface_id.clone(), c.clone()))
            })
            .collect()
    };
    let finals = by_surface(&expected);
    for (surface, c) in by_surface(&sent) {
        if c.id.starts_with("loading_") {
            continue;
        }
        let (_, last) = finals
            .iter()
            .rfind(|(s, f)| *s == surface && f.id == c.id)
            .expect("a final component");
        assert_eq!(c.component, last.component, "{c:?}");
        if let (Some(Value::String(shown)), Some(Value::String(end))) =
            (c.properties.get("text"), last.properties.get("text"))
        {
            assert!(
                end.starts_with(shown.as_str()),
                "{shown:?} is not a start of {end:?}"
            );
        }
    }
}

#[test]
fn the_progressive_stream_draws_the_surface_as_it_grows() {
    let agent = A2uiAgent::new(4);
    let progressive = Surfaces::default().with_delivery(Delivery::Progressive);
    let (parts, _) = stream_cut(&agent, progressive, GROWING, &every(1, GROWING));
    let sent = sent(&parts);
    // The heading's text was shown in part before it was whole.
    let headings: Vec<&str> = sent
        .iter()
        .filter_map(|m| m.as_v09()?.update_components.as_ref())
        .flat_map(|u| &u.components)
        .filter(|c| c.id == "head")
        .filter_map(|c| c.properties.get("text").and_then(Value::as_str))
        .collect();
    assert!(headings.len() > 10, "{headings:?}");
    assert!(
        headings.windows(2).all(|w| w[1].starts_with(w[0])),
        "{headings:?}"
    );
    // A child not yet written was a placeholder; the cut URL was never sent.
    assert!(
        sent.iter()
            .any(|m| serde_json::to_string(m).unwrap().contains("loading_"))
    );
    assert!(!sent.iter().any(|m| {
        serde_json::to_string(m)
            .unwrap()
            .contains("\"https://x.test/m\"")
    }));
    for size in [1, 2, 3, 7, 16, 64, GROWING.len()] {
        holds_the_whole_answer(GROWING, &every(size, GROWING));
        holds_the_whole_answer(ANSWER, &every(size, ANSWER));
    }
}

/// The same kind of answer in A2UI v0.8: a surface whose root `beginRendering` names,
/// components nested by type, data as entries.
const GROWING_V08: &str = r#"Your order:
<a2ui-json>[
 {"beginRendering": {"surfaceId": "order", "root": "page"}},
 {"dataModelUpdate": {"surfaceId": "order", "contents": [{"key": "title", "valueString": "Two pizzas"}, {"key": "items", "valueMap": [{"key": "a", "valueString": "Margherita"}, {"key": "imageUrl", "valueString": "https://x.test/m.png"}]}, {"key": "total", "valueNumber": 23.5}]}},
 {"surfaceUpdate": {"surfaceId": "order", "components": [
   {"id": "page", "component": {"Column": {"children": {"explicitList": ["head", "list", "pay"]}}}},
   {"id": "head", "component": {"Text": {"text": {"literalString": "A long heading that arrives in many pieces"}}}},
   {"id": "list", "component": {"List": {"children": {"template": {"componentId": "row", "dataBinding": "/items"}}}}},
   {"id": "row", "component": {"Text": {"text": {"path": "/name"}}}},
   {"id": "pay", "weight": 1, "component": {"Button": {"child": "pay_label", "action": {"name": "pay"}}}},
   {"id": "pay_label", "component": {"Text": {"text": {"literalString": "Pay"}}}}]}}
]</a2ui-json>
Anything else?"#;

#[test]
fn a_v08_answer_is_read_and_streamed_under_the_same_rules() {
    let agent = A2uiAgent::with_protocol(Protocol::V08, 2);
    let answer = agent.parse(GROWING_V08);
    assert!(answer.parsed.rejected.is_empty(), "{:#?}", answer.parsed);
    let sent = answer.ready(&mut Surfaces::default()).unwrap();
    let ids: Vec<String> = sent[2]
        .components()
        .unwrap()
        .unwrap()
        .into_iter()
        .map(|c| c.id)
        .collect();
    assert_eq!(ids, ["head", "list", "page", "pay", "pay_label", "row"]);
    // Sent back in v0.8's shape, the weight where v0.8 keeps it, as written.
    let written = serde_json::to_value(&sent[2]).unwrap();
    assert_eq!(
        written["surfaceUpdate"]["components"][3]["weight"],
        json!(1)
    );
    assert_eq!(
        written["surfaceUpdate"]["components"][2]["component"]["Column"]["children"],
        json!({"explicitList": ["head", "list", "pay"]})
    );
    // A v0.9 page refuses the v0.8 block, with the reason.
    let v09 = A2uiAgent::new(2).parse(GROWING_V08);
    assert_eq!(v09.parsed.payloads().count(), 0);
    assert_eq!(v09.parsed.rejected.len(), 1, "{:#?}", v09.parsed);
    for size in [1, 2, 5, 16, GROWING_V08.len()] {
        let (parts, _) = stream_cut(
            &agent,
            Surfaces::default(),
            GROWING_V08,
            &every(size, GROWING_V08),
        );
        assert_eq!(self::sent(&parts), sent, "chunks of {size}");
        holds_the_whole_answer(GROWING_V08, &every(size, GROWING_V08));
    }
}

#[test]
fn a_catalog_refuses_what_the_client_cannot_draw_and_holds_back_placeholders() {
    let catalog = a2ui::Catalog::new([
        (
            "Text".to_string(),
            json!({"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}}),
        ),
        ("Card".to_string(), json!({"type": "object"})),
    ])
    .unwrap();
    let mut surfaces = with_surface_s(
        Surfaces::default()
            .with_catalog(catalog)
            .with_delivery(Delivery::Progressive),
    );
    // The placeholder for the missing child is a `Row`, which this catalog lacks: the
    // tree waits.
    let sent = surfaces
        .ready(&message(
            json!({"version": "v0.9", "updateComponents": {"surfaceId": "s",
            "components": [{"id": "root", "component": "Card", "child": "body"}]}}),
        ))
        .unwrap();
    assert!(sent.is_empty(), "{sent:?}");
    let sent = surfaces
        .ready(&message(
            json!({"version": "v0.9", "updateComponents": {"surfaceId": "s",
            "components": [{"id": "body", "component": "Text", "text": "hi"}]}}),
        ))
        .unwrap();
    assert_eq!(sent.len(), 1, "{sent:?}");
    // A component its type's schema refuses, or a type the catalog lacks, is an error.
    for bad in [
        json!({"id": "body", "component": "Text"}),
        json!({"id": "body", "component": "Slider"}),
    ] {
        let error = surfaces
            .ready(&message(
                json!({"version": "v0.9", "updateComponents": {"surfaceId": "s",
                "components": [bad]}}),
            ))
            .unwrap_err();
        assert!(
            error.to_string().starts_with("Validation failed"),
            "{error}"
        );
    }
}

/// An answer damaged the way model text is (`edits`: a byte range cut out, or a
/// character put in), streamed progressively at `cuts`: the stream never panics, its
/// final parse is the one-shot parse, and when neither refused anything, a client ends
/// with what the whole answer sends in the same delivery.
fn damaged_answers_hold(text: &str, edits: &[(usize, usize, char)], cuts: &[usize]) {
    let mut text = text.to_string();
    for &(at, len, put) in edits {
        let mut at = at % (text.len() + 1);
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        if len == 0 {
            text.insert(at, put);
        } else {
            let mut end = (at + len).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            text.replace_range(at..end, "");
        }
    }
    let protocol = if text.contains("beginRendering") {
        Protocol::V08
    } else {
        Protocol::V09
    };
    let agent = A2uiAgent::with_protocol(protocol, 4);
    let whole = agent.parse(&text);
    let progressive = Surfaces::default().with_delivery(Delivery::Progressive);
    let mut stream = A2uiStream::new(&agent, progressive);
    let mut bounds: Vec<usize> = cuts.iter().map(|&c| c % (text.len() + 1)).collect();
    bounds.push(text.len());
    bounds.sort_unstable();
    let (mut from, mut parts, mut failed) = (0, Vec::new(), false);
    for to in bounds {
        let mut to = to.max(from);
        while !text.is_char_boundary(to) {
            to += 1;
        }
        match stream.push(&text[from..to]) {
            Ok(more) => parts.extend(more),
            Err(_) => failed = true,
        }
        from = to;
    }
    let parsed = match stream.finish() {
        Ok((more, parsed)) => {
            parts.extend(more);
            parsed
        }
        Err(_) => return,
    };
    assert_eq!(parsed, whole.parsed, "{text:?}");
    let refused = parts.iter().any(|p| matches!(p, StreamPart::Refused(_)));
    // The same delivery read whole: a tree that never becomes whole (a child named
    // wrong) is sent with its placeholders by both.
    let expected = whole.ready(&mut Surfaces::default().with_delivery(Delivery::Progressive));
    if failed || refused || !whole.parsed.rejected.is_empty() || expected.is_err() {
        return;
    }
    let sent: Vec<Message> = parts
        .into_iter()
        .filter_map(|p| match p {
            StreamPart::Ui(m) => Some(m),
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(
        client_state(&sent),
        client_state(&expected.unwrap()),
        "{text:?}"
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]

    #[test]
    fn a_damaged_answer_never_panics_and_ends_as_the_whole_one(
        v08 in proptest::bool::ANY,
        edits in proptest::collection::vec(
            (0usize..2000, 0usize..6, proptest::sample::select(vec!['{', '}', '[', ']', '"', ',', ':', 'x', ' ', '\n', '<'])),
            1..4,
        ),
        cuts in proptest::collection::vec(0usize..2000, 0..24),
    ) {
        damaged_answers_hold(if v08 { GROWING_V08 } else { GROWING }, &edits, &cuts);
    }

    #[test]
    fn a_progressive_client_ends_with_the_whole_answer_at_any_chunking(
        cuts in proptest::collection::vec(0usize..GROWING.len(), 0..40),
        other in proptest::collection::vec(0usize..ANSWER.len(), 0..40),
        v08 in proptest::collection::vec(0usize..GROWING_V08.len(), 0..40),
    ) {
        holds_the_whole_answer(GROWING, &cuts);
        holds_the_whole_answer(ANSWER, &other);
        holds_the_whole_answer(GROWING_V08, &v08);
    }
}

#[test]
fn the_types_example_reads_back_from_its_tags() {
    let example = <a2ui::A2uiMessages as LlmPayload>::TYPE
        .example()
        .expect("an example");
    let text = format!("Booked.\n<a2ui-json>\n{example}\n</a2ui-json>");
    let answer = A2uiAgent::new(1).parse(&text);
    assert!(answer.parsed.rejected.is_empty(), "{:#?}", answer.parsed);
    assert!(matches!(answer.parts[1], AnswerPart::Ui(ref m) if m.len() == 2));
}

#[test]
fn the_instructions_teach_the_tags_and_their_example_is_read_back() {
    let agent = A2uiAgent::new(2);
    let instructions = agent.instructions();
    assert!(instructions.starts_with("<a2ui-json>\n"), "{instructions}");
    assert!(!instructions.contains("A2UI:"), "{instructions}");
    let example = instructions.split("Example:\n").nth(1).expect("an example");
    let answer = agent.parse(&format!("Here you go.\n{example}\nAnything else?"));
    assert!(answer.parsed.rejected.is_empty(), "{:#?}", answer.parsed);
    assert_eq!(answer.parts.len(), 3, "{:#?}", answer.parts);
    let sent = answer.ready(&mut Surfaces::default()).unwrap();
    assert_eq!(sent.len(), 2, "the example's surface is whole: {sent:?}");
}

#[test]
fn an_answer_after_reasoning_keeps_every_block() {
    let text = format!("<think>They want options.</think>\n{ANSWER}");
    let answer = A2uiAgent::new(4).parse(&text);
    let blocks = answer
        .parts
        .iter()
        .filter(|p| matches!(p, AnswerPart::Ui(_)))
        .count();
    assert_eq!(blocks, 2, "{:#?}", answer.parts);
}
