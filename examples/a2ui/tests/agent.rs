//! The A2UI agent on answers as a model writes them: several `<a2ui-json>` blocks among
//! the prose, read one-shot and streamed at every chunking, under A2UI's surface rules.

use a2ui::{A2uiAgent, A2uiStream, AnswerPart, ServerMessage, StreamPart, SurfaceError, Surfaces};
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

fn message(value: Value) -> ServerMessage {
    serde_json::from_value(value).expect("a v0.9 message")
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
            if m.create_surface.is_some() {
                "create"
            } else if m.update_components.is_some() {
                "components"
            } else {
                "data"
            }
        })
        .collect();
    // The first block's tree lacks "list": it waits, and goes once the second block
    // brings it, with every reachable component and without the orphan.
    assert_eq!(kinds, ["create", "components", "data"]);
    let ids: Vec<&str> = sent[1]
        .update_components
        .as_ref()
        .unwrap()
        .components
        .iter()
        .map(|c| c.id.as_str())
        .collect();
    assert_eq!(ids, ["list", "root", "row", "title"]);
}

#[test]
fn a_missing_child_is_a_placeholder_in_the_preview() {
    let mut surfaces = Surfaces::default();
    surfaces
        .ready(&message(
            json!({"version": "v0.9", "createSurface": {"surfaceId": "s", "catalogId": "c"}}),
        ))
        .unwrap();
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
    assert_eq!(
        sent[0].update_components.as_ref().unwrap().components.len(),
        2
    );
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

#[test]
fn the_stream_sends_what_the_whole_answer_sends_at_every_chunking() {
    let agent = A2uiAgent::new(4);
    let whole = agent.parse(ANSWER);
    let expected = whole.ready(&mut Surfaces::default()).unwrap();
    for size in [1, 2, 3, 5, 8, 13, 64, ANSWER.len()] {
        let mut stream = A2uiStream::new(&agent, Surfaces::default());
        let mut parts = Vec::new();
        let mut at = 0;
        while at < ANSWER.len() {
            let mut end = (at + size).min(ANSWER.len());
            while !ANSWER.is_char_boundary(end) {
                end += 1;
            }
            parts.extend(stream.push(&ANSWER[at..end]).unwrap());
            at = end;
        }
        let (last, parsed) = stream.finish().unwrap();
        parts.extend(last);
        let sent: Vec<ServerMessage> = parts
            .iter()
            .filter_map(|p| match p {
                StreamPart::Ui(messages) => Some(messages.clone()),
                StreamPart::Text(_) => None,
            })
            .flatten()
            .collect();
        assert_eq!(sent, expected, "chunks of {size}");
        let text: String = parts
            .iter()
            .filter_map(|p| match p {
                StreamPart::Text(t) => Some(t.as_str()),
                StreamPart::Ui(_) => None,
            })
            .collect();
        assert_eq!(text, whole.parsed.message, "chunks of {size}");
        assert_eq!(parsed, whole.parsed, "chunks of {size}");
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
