//! `#[payload(stream(not_null))]` holds back the same objects in the stream's JSON
//! preview (the `payload_progress` `partial`, what AG-UI, the AI SDK and the served page
//! show) as in the typed partial form: the derive writes the mark into the type's schema
//! as `"x-stream": {"not_null": true}`, where the preview reads it (docs/spec.md §5.7).
//! Checked at every 1-byte chunking: after each byte, the last preview shows exactly
//! what the typed partial form shows of the same text, and never an object before its
//! marked member has a value.

use payload_core::partial::{Cursor, PartialType};
use payload_core::stream::{StreamEvent, StreamParser, partial_with_open};
use payload_core::{LlmPayload, ParseOptions, Partial};
use payload_schema::dialect::Dialect;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A step shown only once the model has named it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Partial)]
struct Step {
    detail: String,
    #[payload(stream(not_null))]
    title: Option<String>,
}

/// Steps in a list inside another payload: `Step`'s schema is a definition under `$defs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(name = "recipe", marker = "RECIPE", partial)]
struct Recipe {
    name: String,
    steps: Vec<Step>,
}

/// A payload held back itself until it has a title.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(name = "note", marker = "NOTE", partial)]
struct Note {
    body: String,
    #[payload(stream(not_null))]
    title: String,
}

/// Renamed members: the marks name the members as the model writes them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(name = "memo", marker = "MEMO", partial)]
#[serde(rename_all = "camelCase")]
struct Memo {
    body_text: String,
    #[payload(stream(not_null))]
    #[serde(rename = "headline")]
    memo_title: String,
    action_items: Vec<ActionItem>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Partial)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
struct ActionItem {
    due_date: String,
    #[payload(stream(not_null))]
    item_owner: Option<String>,
}

/// One `payload_progress` preview and what the model had written when it came.
struct Seen<P> {
    /// The preview, held back by the schema.
    preview: Value,
    /// Its open point.
    open: Option<String>,
    /// The JSON written up to the end of the chunk that gave the preview.
    written: Value,
    /// The typed partial form of `written`, read as it is (held back by itself).
    typed: Option<P>,
}

/// Each `payload_progress` preview of `text` (`MARKER: {...}`) streamed in `size`-byte
/// chunks. Every preview is an early view of the final value, and the last one is that
/// value.
fn stream<T: LlmPayload + PartialType>(text: &str, size: usize) -> Vec<Seen<T::Partial>> {
    let start = text.find('{').expect("the payload's JSON");
    let mut parser = StreamParser::new(&ParseOptions::new().payload(T::TYPE));
    let mut seen = Vec::new();
    let mut take = |events: Vec<StreamEvent>, end: usize| {
        for event in events {
            if let StreamEvent::PayloadProgress { partial, open, .. } = event {
                let (written, written_open) =
                    partial_with_open(&text[start..end]).expect("the JSON so far");
                let typed = T::read_partial(&written, Cursor::root(written_open.as_deref()));
                seen.push(Seen {
                    preview: partial,
                    open,
                    written,
                    typed,
                });
            }
        }
    };
    let mut at = 0;
    while at < text.len() {
        let end = (at + size).min(text.len());
        take(parser.push(&text[at..end]), end);
        at = end;
    }
    let (events, parsed) = parser.finish();
    take(events, text.len());
    let data = parsed.custom_payload.expect("the payload").data().clone();
    for seen in &seen {
        payload_core::__internals::stream::preview_fits(&seen.preview, seen.open.as_deref(), &data)
            .unwrap();
    }
    let last = seen.last().expect("a preview");
    assert_eq!((&last.preview, &last.open), (&data, &None));
    seen
}

/// A string member of a preview.
fn string(value: &Value, name: &str) -> Option<String> {
    value.get(name).and_then(Value::as_str).map(str::to_string)
}

/// What a preview and a typed partial show of a recipe: its name and each step's title
/// and detail.
type RecipeView = (
    Option<String>,
    Option<Vec<(Option<String>, Option<String>)>>,
);

fn recipe_preview(value: &Value) -> RecipeView {
    let steps = value.get("steps").and_then(Value::as_array).map(|steps| {
        steps
            .iter()
            .map(|step| (string(step, "title"), string(step, "detail")))
            .collect()
    });
    (string(value, "name"), steps)
}

fn recipe_typed(recipe: &<Recipe as PartialType>::Partial) -> RecipeView {
    let recipe = &recipe.value;
    let steps = recipe.steps.as_ref().map(|steps| {
        steps
            .value
            .iter()
            .map(|step| {
                let title = step.value.title.clone().flatten().map(|t| t.value);
                (title, step.value.detail.clone().map(|d| d.value))
            })
            .collect()
    });
    (recipe.name.clone().map(|n| n.value), steps)
}

#[test]
fn a_step_in_a_list_shows_in_the_preview_exactly_when_its_typed_form_does() {
    let text = r#"RECIPE: {"name": "Soup", "steps": [{"detail": "ten minutes", "title": "Boil"}, {"title": null, "detail": "a pinch"}, {"detail": "while it is hot, in deep bowls", "title": "Serve"}]}"#;
    let mut held = 0;
    for size in 1..=text.len() {
        for Seen {
            preview,
            written,
            typed,
            ..
        } in stream::<Recipe>(text, size)
        {
            let (_, steps) = recipe_preview(&preview);
            let steps = steps.unwrap_or_default();
            // A step still arriving shows only with a title; a complete one shows
            // whatever it holds (the second, whose title is `null`).
            for (index, (title, _)) in steps.iter().enumerate() {
                assert!(title.is_some() || index == 1, "chunks of {size}: {preview}");
            }
            assert_eq!(
                Some(recipe_preview(&preview)),
                typed.as_ref().map(recipe_typed),
                "chunks of {size}: {preview}"
            );
            // A step begun but not shown: held back.
            let begun = written["steps"].as_array().map_or(0, Vec::len);
            held += usize::from(steps.len() < begun);
        }
    }
    assert!(held > 0, "some chunking shows a step being held back");
}

#[test]
fn a_payload_waiting_for_its_own_member_shows_nothing_until_it_has_a_value() {
    let text = r#"NOTE: {"body": "Call the plumber about the kitchen sink, then the roof", "title": "Todo"}"#;
    for size in 1..=text.len() {
        for Seen { preview, typed, .. } in stream::<Note>(text, size) {
            // Not even the body shows before the title is begun.
            assert!(
                preview.get("title").is_some(),
                "chunks of {size}: {preview}"
            );
            let typed = typed.expect("the typed form shows the same note");
            assert_eq!(
                (string(&preview, "body"), string(&preview, "title")),
                (
                    typed.value.body.map(|b| b.value),
                    typed.value.title.map(|t| t.value)
                ),
                "chunks of {size}: {preview}"
            );
        }
    }
}

/// What a preview and a typed partial show of a memo: its headline, its body and each
/// item's due date and owner.
type MemoView = (
    Option<String>,
    Option<String>,
    Vec<(Option<String>, Option<String>)>,
);

fn memo_preview(memo: &Value) -> MemoView {
    let items = memo["actionItems"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|item| (string(item, "DUE_DATE"), string(item, "ITEM_OWNER")))
        .collect();
    (string(memo, "headline"), string(memo, "bodyText"), items)
}

fn memo_typed(memo: &<Memo as PartialType>::Partial) -> MemoView {
    let memo = &memo.value;
    let items = memo
        .action_items
        .iter()
        .flat_map(|items| &items.value)
        .map(|item| {
            let owner = item.value.item_owner.clone().flatten().map(|o| o.value);
            (item.value.due_date.clone().map(|d| d.value), owner)
        })
        .collect();
    (
        memo.memo_title.clone().map(|t| t.value),
        memo.body_text.clone().map(|b| b.value),
        items,
    )
}

#[test]
fn renamed_members_are_waited_for_under_the_names_the_model_writes() {
    // The headline last: the memo shows nothing until then.
    let late = r#"MEMO: {"bodyText": "Weekly sync", "actionItems": [{"DUE_DATE": "Friday", "ITEM_OWNER": "Ana"}, {"DUE_DATE": "Monday", "ITEM_OWNER": "Bo"}], "headline": "Sync"}"#;
    // The headline first: the memo shows while its items arrive, each once it has an
    // owner.
    let early = r#"MEMO: {"headline": "Sync", "bodyText": "Weekly", "actionItems": [{"DUE_DATE": "Friday, after the long weekend", "ITEM_OWNER": "Ana"}, {"DUE_DATE": "Monday, first thing in the morning", "ITEM_OWNER": "Bo"}]}"#;
    let mut items_held = 0;
    for text in [late, early] {
        for size in 1..=text.len() {
            for Seen {
                preview,
                written,
                typed,
                ..
            } in stream::<Memo>(text, size)
            {
                let shown = memo_preview(&preview);
                assert!(shown.0.is_some(), "chunks of {size}: {preview}");
                for (_, owner) in &shown.2 {
                    assert!(owner.is_some(), "chunks of {size}: {preview}");
                }
                assert_eq!(
                    Some(&shown),
                    typed.as_ref().map(memo_typed).as_ref(),
                    "chunks of {size}: {preview}"
                );
                let begun = written["actionItems"].as_array().map_or(0, Vec::len);
                items_held += usize::from(shown.2.len() < begun);
            }
        }
    }
    assert!(
        items_held > 0,
        "some chunking shows an item being held back"
    );
}

/// A mark the user wrote on the member by hand is kept: the declared one is merged in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(name = "ticket", marker = "TICKET")]
struct Ticket {
    #[payload(stream(not_null))]
    #[schemars(extend("x-stream" = {"done": true}))]
    id: String,
    #[payload(stream(not_null))]
    subject: String,
    body: String,
}

#[test]
fn the_schema_says_each_mark_wherever_the_type_sits() {
    for dialect in [Dialect::Draft2020_12, Dialect::Draft07] {
        let schema = Recipe::TYPE.schema(dialect);
        let defs = if dialect == Dialect::Draft07 {
            "definitions"
        } else {
            "$defs"
        };
        assert_eq!(
            schema[defs]["Step"]["properties"]["title"]["x-stream"],
            json!({"not_null": true}),
            "{dialect:?}: {schema}"
        );
        assert!(
            schema[defs]["Step"]["properties"]["detail"]
                .get("x-stream")
                .is_none()
        );
    }
    // A type with no partial form marks its own members, merged with what is written.
    let schema = Ticket::TYPE.schema(Dialect::Draft2020_12);
    assert_eq!(
        schema["properties"]["id"]["x-stream"],
        json!({"done": true, "not_null": true})
    );
    assert_eq!(
        schema["properties"]["subject"]["x-stream"],
        json!({"not_null": true})
    );
    assert!(schema["properties"]["body"].get("x-stream").is_none());
    let memo = Memo::TYPE.schema(Dialect::Draft2020_12);
    assert_eq!(
        memo["properties"]["headline"]["x-stream"],
        json!({"not_null": true})
    );
    assert_eq!(
        memo["$defs"]["ActionItem"]["properties"]["ITEM_OWNER"]["x-stream"],
        json!({"not_null": true})
    );
}

/// Blocks of two kinds, one of them a step: only a step waits for its title.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Partial)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Block {
    Step(Step),
    Text { text: String },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(name = "page", marker = "PAGE", partial)]
struct Page {
    blocks: Vec<Block>,
}

/// What a preview and a typed partial show of a page: each block's kind and strings.
type BlockView = (String, Option<String>, Option<String>);

/// A block whose tag is still being written is not shown by the typed form, which
/// chooses a variant once its tag is whole.
fn page_preview(page: &Value, open: Option<&str>) -> Vec<BlockView> {
    page["blocks"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .filter(|(index, _)| open != Some(&format!("/blocks/{index}/kind")))
        .map(|(_, block)| {
            let kind = string(block, "kind").unwrap_or_default();
            if kind == "text" {
                (kind, string(block, "text"), None)
            } else {
                (kind, string(block, "title"), string(block, "detail"))
            }
        })
        .collect()
}

/// A step whose content is held back is `Step(None)` in the typed form; its JSON,
/// the step's own members beside the tag, is held back whole.
fn page_typed(page: &<Page as PartialType>::Partial) -> Vec<BlockView> {
    let blocks = page.value.blocks.iter().flat_map(|blocks| &blocks.value);
    blocks
        .filter_map(|block| match &block.value {
            BlockPartial::Text { text } => {
                Some(("text".into(), text.clone().map(|t| t.value), None))
            }
            BlockPartial::Step(step) => {
                let step = &step.as_ref()?.value;
                let title = step.title.clone().flatten().map(|t| t.value);
                Some(("step".into(), title, step.detail.clone().map(|d| d.value)))
            }
        })
        .collect()
}

#[test]
fn in_a_tagged_union_only_the_marked_variant_waits() {
    let text = r#"PAGE: {"blocks": [{"kind": "text", "text": "An introduction to the whole thing"}, {"kind": "step", "detail": "ten minutes of boiling", "title": "Boil"}, {"kind": "text", "text": "and the end of it"}]}"#;
    let (mut texts_arriving, mut steps_held) = (0, 0);
    for size in 1..=text.len() {
        for Seen {
            preview,
            open,
            written,
            typed,
        } in stream::<Page>(text, size)
        {
            let shown = page_preview(&preview, open.as_deref());
            for (kind, title, _) in &shown {
                assert!(
                    kind == "text" || title.is_some(),
                    "chunks of {size}: {preview}"
                );
            }
            let typed = typed.as_ref().map(page_typed).unwrap_or_default();
            assert_eq!(shown, typed, "chunks of {size}: {preview} of {written}");
            let begun = written["blocks"].as_array().map_or(0, Vec::len);
            let last = written["blocks"].as_array().and_then(|b| b.last()).cloned();
            let last_kind = last.as_ref().and_then(|b| string(b, "kind"));
            texts_arriving += usize::from(
                last_kind.as_deref() == Some("text")
                    && shown.len() == begun
                    && last.is_some_and(|b| b.get("text").is_some()),
            );
            steps_held += usize::from(last_kind.as_deref() == Some("step") && shown.len() < begun);
        }
    }
    assert!(
        texts_arriving > 0 && steps_held > 0,
        "{texts_arriving} {steps_held}"
    );
}

/// A type that holds itself: its marks are gathered once, and reach it wherever it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Partial)]
struct Node {
    #[payload(stream(not_null))]
    label: Option<String>,
    children: Vec<Node>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(name = "outline", marker = "OUTLINE", partial)]
struct Outline {
    #[payload(stream(not_null))]
    heading: String,
    roots: Vec<Node>,
    /// Two types named alike: schemars names the second definition apart, and each
    /// mark goes to its own type's.
    first: same_name::a::Item,
    second: same_name::b::Item,
}

mod same_name {
    pub mod a {
        /// Marked.
        #[derive(
            Debug,
            Clone,
            PartialEq,
            serde::Serialize,
            serde::Deserialize,
            schemars::JsonSchema,
            payload_core::Partial,
        )]
        pub struct Item {
            #[payload(stream(not_null))]
            pub id: Option<String>,
        }
    }
    pub mod b {
        /// Not marked.
        #[derive(
            Debug,
            Clone,
            PartialEq,
            serde::Serialize,
            serde::Deserialize,
            schemars::JsonSchema,
            payload_core::Partial,
        )]
        pub struct Item {
            pub id: Option<String>,
        }
    }
}

#[test]
fn types_that_hold_themselves_and_types_named_alike_are_marked_as_declared() {
    let schema = Outline::TYPE.schema(Dialect::Draft2020_12);
    let mark = json!({"not_null": true});
    assert_eq!(
        schema["properties"]["heading"]["x-stream"], mark,
        "{schema}"
    );
    assert_eq!(
        schema["$defs"]["Node"]["properties"]["label"]["x-stream"],
        mark
    );
    let defs = schema["$defs"].as_object().unwrap();
    let marked: Vec<&String> = defs
        .iter()
        .filter(|(name, _)| name.starts_with("Item"))
        .filter(|(_, def)| def["properties"]["id"].get("x-stream").is_some())
        .map(|(name, _)| name)
        .collect();
    assert_eq!(marked.len(), 1, "{schema}");
    // The marked one is the definition `first` refers to.
    let first = schema["properties"]["first"]["$ref"].as_str().unwrap();
    assert_eq!(first, format!("#/$defs/{}", marked[0]));
}
