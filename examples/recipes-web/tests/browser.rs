//! The recipe assistant in a real headless Chromium: a first visit says its answers are
//! recorded and offers the page's starters; a starter sends its message; the recipe
//! arrives as a generic card (built from the type's JSON Schema) that fills in while it
//! streams; accepting it saves it in the cookbook. With the page left open across a
//! restart of the server (a new in-memory database), Accept on the newest card saves
//! that card's recipe.
//!
//! The browser comes from `payload_browser` (without one the test says so
//! and passes, unless `PAYLOAD_REQUIRE_BROWSER` is set).

use payload_browser::*;
use payload_registry::Registry;
use recipes as _;
use serde_json::Value;
use std::time::Duration;
use tokio::net::TcpListener;

/// Serves the app as `recipes serve` does (its replay model, paced so streaming shows).
async fn serve_recipes() -> String {
    serve_app(recipes_web::app(Registry::global())).await
}

/// The recipe app with a model that answers every call with `text`.
fn saying(text: &'static str) -> payload_serve::App {
    recipes_web::app(Registry::global()).model(move |_: &payload_serve::TurnInfo| {
        Box::new(move |_: &payload_agent::ModelRequest| {
            vec![payload_agent::ModelChunk::Text(text.to_string())]
        }) as Box<dyn payload_agent::Model>
    })
}

/// Serves `app` on a free port of 127.0.0.1.
async fn serve_app(app: payload_serve::App) -> String {
    let service = app.build().expect("the app builds");
    serve(|listener| service.serve(listener)).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_generic_card_streams_in_and_is_accepted_into_the_cookbook() {
    let Some((client, _driver)) = browser().await else {
        return;
    };
    let url = serve_recipes().await;
    client.goto(&url).await.unwrap();

    // A first visit explains itself: recorded answers, and what to ask.
    let first = until(
        &client,
        "the starters and the recorded note",
        "const s = [...document.querySelectorAll('#starters:not([hidden]) .chip')].map(b => b.textContent);
         const note = document.getElementById('chat-recorded');
         return {starters: s, recorded: !note.hidden && note.textContent};",
        |v| v["starters"].as_array().is_some_and(|s| !s.is_empty()),
    )
    .await;
    assert_eq!(
        first["starters"][0],
        "I have eggs and a tin of tomatoes: what can I cook?"
    );
    assert!(
        first["recorded"]
            .as_str()
            .unwrap()
            .contains("recorded answers"),
        "{first}"
    );

    // Every state of the drafting card, recorded as the page changes.
    client
        .execute(
            "window.drafts = [];
             new MutationObserver(() => {
               const d = document.querySelector('.card.drafting.generic-card[data-type=recipe_proposal]');
               if (d) window.drafts.push({
                 members: d.querySelectorAll('dd').length,
                 items: d.querySelectorAll('.generic-list > li').length,
               });
             }).observe(document.getElementById('messages'), {childList: true, subtree: true});",
            vec![],
        )
        .await
        .unwrap();
    click(&client, "#starters .chip").await;
    let card = until(
        &client,
        "the proposed recipe",
        "const c = document.querySelector('.card.generic-card[data-type=recipe_proposal]');
         if (!c || c.dataset.state !== 'proposed') return null;
         return {
           title: c.querySelector('.card-head .title').textContent,
           terms: [...c.querySelectorAll('dt')].map(t => [t.textContent, t.title]),
           labels: [...c.querySelectorAll('.label')].map(l => l.textContent),
           nested: c.querySelectorAll('.generic-list .generic-object').length,
           accept: !!c.querySelector('button.accept'),
           dismiss: !!c.querySelector('button.dismiss'),
           members: c.querySelectorAll('dd').length,
           starters: !document.getElementById('starters').hidden,
         };",
        |v| !v.is_null(),
    )
    .await;
    assert_eq!(card["title"], "Recipe proposal");
    let terms: Vec<(&str, &str)> = card["terms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t[0].as_str().unwrap(), t[1].as_str().unwrap()))
        .collect();
    assert!(
        terms.contains(&("Title", "The recipe's name.")),
        "{terms:?}"
    );
    assert!(
        terms.contains(&("Ingredients", "What goes in, in the order it is used.")),
        "{terms:?}"
    );
    assert!(terms.iter().any(|(t, _)| *t == "Prep time"), "{terms:?}");
    let labels: Vec<&str> = card["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert!(
        labels.contains(&"piece") && labels.contains(&"gram"),
        "{labels:?}"
    );
    assert!(card["nested"].as_u64().unwrap() >= 5, "{card}");
    assert_eq!(
        card["accept"], true,
        "the app decides recipes: Accept is offered"
    );
    assert_eq!(card["dismiss"], true);
    assert_eq!(card["starters"], false, "starters are for an empty chat");

    // It filled in while it streamed: several drafts, growing, all smaller than the end.
    let drafts = client
        .execute("return window.drafts", vec![])
        .await
        .unwrap();
    let drafts: Vec<(u64, u64)> = drafts
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["members"].as_u64().unwrap(), d["items"].as_u64().unwrap()))
        .collect();
    let distinct: std::collections::BTreeSet<_> = drafts.iter().collect();
    assert!(
        distinct.len() >= 3,
        "the card filled in while it streamed: {drafts:?}"
    );
    assert!(
        drafts.windows(2).all(|w| w[0].0 <= w[1].0),
        "what was shown stays shown: {drafts:?}"
    );
    assert!(
        drafts[0].0 < card["members"].as_u64().unwrap(),
        "{drafts:?}"
    );

    // The cookbook lets the save button go with the recipe it saves (its combination
    // rule): the button beside the card saves it, as the card's Accept does.
    click(&client, "button.action[data-action=save_recipe]").await;
    let saved = until(
        &client,
        "the recipe in the cookbook",
        "const c = document.querySelector('.card[data-type=recipe_proposal]');
         const saved = [...document.querySelectorAll('#main a[data-recipe-id]')].map(a => a.querySelector('strong').textContent);
         return {state: c.dataset.state, saved};",
        |v| v["state"] == "accepted" && v["saved"].as_array().is_some_and(|s| !s.is_empty()),
    )
    .await;
    assert_eq!(saved["saved"], Value::from(vec!["Weeknight shakshuka"]));
    assert_eq!(
        count(&client, ".card[data-type=recipe_proposal] button.accept").await,
        0
    );
}

/// A recipe whose every string is markup: the generic card shows it as text.
const HOSTILE: &str = r#"Try this.

RECIPE_PROPOSAL: {"title": "<img src=x onerror=\"window.ran = 1\">", "servings": 1, "prep_time": 5,
 "ingredients": [{"name": "<script>window.ran = 2</script>", "quantity": 1, "unit": "piece", "note": "<b>bold</b>"}],
 "steps": [{"text": "<iframe src=\"/\"></iframe>"}], "tags": ["<a href=\"javascript:window.ran=3\">x</a>"]}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_generic_card_shows_markup_from_the_model_as_text() {
    let Some((client, _driver)) = browser().await else {
        return;
    };
    let url = serve_app(saying(HOSTILE)).await;
    open(&client, &url, &["#starters .chip"]).await;
    click(&client, "#starters .chip").await;
    let text = until(
        &client,
        "the hostile recipe's card",
        "const c = document.querySelector('.card.generic-card[data-state=proposed]');
         return c ? c.querySelector('.card-body').textContent : null;",
        |v| !v.is_null(),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(200)).await; // an onerror would have fired
    let shown = [
        "<img src=x onerror=\"window.ran = 1\">",
        "<script>window.ran = 2</script>",
        "<b>bold</b>",
        "<iframe src=\"/\"></iframe>",
        "javascript:window.ran=3",
    ];
    assert_markup_stayed_text(&client, text.as_str().unwrap(), &shown).await;
}

/// A recipe titled after the newest user message: each card says which message
/// proposed it.
fn titled_after_the_message(
    request: &payload_agent::ModelRequest,
) -> Vec<payload_agent::ModelChunk> {
    let title = request
        .messages
        .iter()
        .rev()
        .find_map(|m| match m {
            payload_agent::ModelMessage::User { text } => {
                Some(text.rsplit("\n\n").next().unwrap_or_default().to_string())
            }
            _ => None,
        })
        .unwrap_or_default();
    let recipe = serde_json::json!({
        "title": title, "servings": 1, "prep_time": 5,
        "ingredients": [{"name": "egg", "quantity": 1, "unit": "piece", "note": "fresh"}],
        "steps": [{"text": "Cook it."}], "tags": ["quick"],
    });
    vec![payload_agent::ModelChunk::Text(format!(
        "Here it is.\n\nRECIPE_PROPOSAL: {recipe}"
    ))]
}

/// The recipe app with [`titled_after_the_message`] as its model.
fn titled_app() -> payload_serve::App {
    recipes_web::app(Registry::global()).model(|_: &payload_serve::TurnInfo| {
        Box::new(titled_after_the_message) as Box<dyn payload_agent::Model>
    })
}

/// A server on `listener` in a runtime of its own, on its own thread: dropping the
/// runtime (send on the channel) stops it whole, its open connections included, as a
/// process that stops does.
fn serve_until_stopped(listener: std::net::TcpListener) -> std::sync::mpsc::Sender<()> {
    let (stop, stopped) = std::sync::mpsc::channel::<()>();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime.block_on(async {
            listener.set_nonblocking(true).unwrap();
            let listener = TcpListener::from_std(listener).unwrap();
            let service = titled_app().build().expect("the app builds");
            tokio::spawn(service.serve(listener));
        });
        let _ = stopped.recv();
        drop(runtime);
    });
    stop
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accept_on_the_newest_card_after_a_restart_saves_that_cards_recipe() {
    let Some((client, _driver)) = browser().await else {
        return;
    };
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let stop = serve_until_stopped(listener);
    open(
        &client,
        &format!("http://{address}/"),
        &["#chat-input", "#starters .chip"],
    )
    .await;
    send(&client, "Omelette").await;
    answered(&client, 1).await;

    // The server restarts with the page still open: its in-memory database is new, and
    // the page sends the conversation it shows as history.
    stop.send(()).unwrap();
    let listener = loop {
        match TcpListener::bind(address).await {
            Ok(listener) => break listener,
            Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    };
    tokio::spawn(titled_app().build().unwrap().serve(listener));
    send(&client, "Frittata").await;
    answered(&client, 2).await;
    send(&client, "Shakshuka").await;
    answered(&client, 3).await;

    // Accept on the newest card, the one in view.
    let states = client
        .execute(
            "const cards = [...document.querySelectorAll('.card[data-type=recipe_proposal]')];
             cards[cards.length - 1].querySelector('button.accept').click();
             return cards.map(c => c.dataset.state);",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(states.as_array().unwrap().len(), 3, "{states}");
    let saved = until(
        &client,
        "the recipe in the cookbook",
        "const cards = [...document.querySelectorAll('.card[data-type=recipe_proposal]')];
         const last = cards[cards.length - 1];
         const saved = [...document.querySelectorAll('#main a[data-recipe-id]')].map(a => a.querySelector('strong').textContent);
         const error = last.querySelector('.error');
         return {state: last.dataset.state, saved, error: error && error.textContent};",
        |v| {
            (v["state"] == "accepted" && v["saved"].as_array().is_some_and(|s| !s.is_empty()))
                || !v["error"].is_null()
        },
    )
    .await;
    assert_eq!(saved["state"], "accepted", "{saved}");
    assert_eq!(saved["saved"], Value::from(vec!["Shakshuka"]), "{saved}");
}

/// A recipe with members its type does not have (`__proto__` among them), an alias
/// (`qty`) and no tags: decoding drops the first, renames the second and fills in the
/// third.
const UNDECLARED: &str = r#"Here you are.

RECIPE_PROPOSAL: {"__proto__": {"polluted": "from the model"}, "title": "Toast", "servings": 1, "prep_time": 2,
 "ingredients": [{"name": "bread", "qty": 2, "unit": "piece", "secret": "not saved"}],
 "steps": [{"text": "Toast the bread."}]}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_generic_card_shows_what_accepting_saves() {
    let Some((client, _driver)) = browser().await else {
        return;
    };
    let url = serve_app(saying(UNDECLARED)).await;
    open(&client, &url, &["#starters .chip"]).await;
    click(&client, "#starters .chip").await;
    let card = until(
        &client,
        "the recipe's card",
        "const c = document.querySelector('.card.generic-card[data-state=proposed]');
         if (!c) return null;
         const keys = (node) => [...node.children].filter(e => e.tagName === 'DT').map(e => e.dataset.key);
         const top = c.querySelector('.card-body .generic-object');
         const ingredient = top.querySelector('.generic-list .generic-object');
         return {top: keys(top), ingredient: keys(ingredient), text: c.textContent,
                 polluted: ({}).polluted === undefined};",
        |v| !v.is_null(),
    )
    .await;
    let text = card["text"].as_str().unwrap();
    // What the type has is shown, under its own names, the default included…
    assert_eq!(
        card["top"],
        serde_json::json!([
            "title",
            "servings",
            "prep_time",
            "ingredients",
            "steps",
            "tags"
        ]),
        "{card}"
    );
    assert_eq!(
        card["ingredient"],
        serde_json::json!(["name", "quantity", "unit"]),
        "{card}"
    );
    // …and nothing it does not have.
    assert!(!text.contains("from the model"), "{text}");
    assert!(!text.contains("not saved"), "{text}");
    assert_eq!(card["polluted"], true);
}

/// A model that writes `UNDECLARED` up to its steps, then stalls: the page shows the
/// draft for as long as the test looks.
struct Stalls;

impl payload_agent::Model for Stalls {
    fn stream(&mut self, _: &payload_agent::ModelRequest) -> payload_agent::ModelStream {
        use payload_agent::ModelChunk::Text;
        let cut = UNDECLARED.find("\"steps\"").unwrap();
        paced(vec![
            (Duration::ZERO, Text(UNDECLARED[..cut].to_string())),
            (Duration::from_secs(60), Text(UNDECLARED[cut..].to_string())),
        ])
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_generic_draft_shows_only_the_members_its_type_declares() {
    let Some((client, _driver)) = browser().await else {
        return;
    };
    let app = recipes_web::app(Registry::global())
        .model(|_: &payload_serve::TurnInfo| Box::new(Stalls) as Box<dyn payload_agent::Model>);
    let url = serve_app(app).await;
    open(&client, &url, &["#starters .chip"]).await;
    click(&client, "#starters .chip").await;
    let draft = until(
        &client,
        "the draft with its ingredients",
        "const d = document.querySelector('.card.drafting.generic-card[data-type=recipe_proposal]');
         const top = d && d.querySelector('.card-body .generic-object');
         const ingredient = top && top.querySelector('.generic-list .generic-object');
         if (!ingredient || !ingredient.querySelector('dt[data-key=unit]')) return null;
         const keys = (node) => [...node.children].filter(e => e.tagName === 'DT').map(e => e.dataset.key);
         return {top: keys(top), ingredient: keys(ingredient), text: d.textContent};",
        |v| !v.is_null(),
    )
    .await;
    assert_eq!(
        draft["top"],
        serde_json::json!(["title", "servings", "prep_time", "ingredients"]),
        "{draft}"
    );
    assert_eq!(
        draft["ingredient"],
        serde_json::json!(["name", "unit"]),
        "{draft}"
    );
    let text = draft["text"].as_str().unwrap();
    assert!(!text.contains("from the model"), "{text}");
    assert!(!text.contains("not saved"), "{text}");
}

/// Whether every leaf of the card `card` (a value, a label, an empty mark, a member's
/// name, a value shown as JSON) is visible: it has a box of non-zero size, every box
/// of it lies inside the card's, and inside every ancestor up to the card that clips
/// its overflow; a block's text is not cut (it scrolls no wider than it is). Returns
/// the leaves' texts and any leaf that is not, with why; the card must also lie inside
/// the tray.
const VISIBLE: &str = r#"
const visible = (card) => {
  const inside = (r, box) => r.left >= box.left - 0.5 && r.right <= box.right + 0.5
    && r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5;
  const cardBox = card.getBoundingClientRect();
  const tray = document.getElementById('messages').getBoundingClientRect();
  const hidden = [];
  if (cardBox.left < tray.left - 0.5 || cardBox.right > tray.right + 0.5) hidden.push(['card', 'outside the tray']);
  const leaves = [...card.querySelectorAll('.card-body .value, .card-body .label, .card-body .empty, .card-body dt, .card-body code.json')];
  leaves.forEach((leaf) => {
    const text = leaf.textContent;
    const boxes = [...leaf.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
    if (!boxes.length) return hidden.push([text, 'no box']);
    if (!boxes.every((r) => inside(r, cardBox))) return hidden.push([text, 'outside its card']);
    for (let up = leaf.parentElement; up && up !== card.parentElement; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (style.overflowX !== 'visible' || style.overflowY !== 'visible') {
        const box = up.getBoundingClientRect();
        if (!boxes.every((r) => inside(r, box))) return hidden.push([text, 'clipped by ' + up.className]);
      }
    }
    if (getComputedStyle(leaf).display !== 'inline' && leaf.scrollWidth > leaf.clientWidth + 1) {
      hidden.push([text, 'cut: ' + leaf.scrollWidth + ' > ' + leaf.clientWidth]);
    }
  });
  return {texts: leaves.map((l) => l.textContent), hidden};
};
"#;

/// Every scalar of `value` as the generic card writes it (a boolean as yes or no).
fn leaves(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(members) => members.values().for_each(|v| leaves(v, out)),
        Value::Array(items) => items.iter().for_each(|v| leaves(v, out)),
        Value::Bool(b) => out.push(if *b { "yes" } else { "no" }.to_string()),
        Value::Null => {}
        Value::String(s) => out.push(s.clone()),
        Value::Number(n) => out.push(n.to_string()),
    }
}

/// A model that writes `text` in pieces of `size` bytes, `pause` apart, so the page
/// shows it streaming.
struct Paced {
    text: String,
    size: usize,
    pause: Duration,
}

impl payload_agent::Model for Paced {
    fn stream(&mut self, _: &payload_agent::ModelRequest) -> payload_agent::ModelStream {
        let mut pieces = Vec::new();
        let mut rest = self.text.as_str();
        while !rest.is_empty() {
            let mut cut = self.size.min(rest.len());
            while !rest.is_char_boundary(cut) {
                cut += 1;
            }
            pieces.push(rest[..cut].to_string());
            rest = &rest[cut..];
        }
        paced(
            pieces
                .into_iter()
                .map(|piece| (self.pause, payload_agent::ModelChunk::Text(piece)))
                .collect(),
        )
    }
}

/// A trip plan nested as deep as an itinerary goes (days → activities → a place →
/// its notes; a cost with its currency as a label), with long member names and a long
/// unbroken value, made at run time from its schema.
fn trip_plan() -> &'static payload_core::PayloadType {
    let schema = serde_json::json!({
        "title": "TripPlan",
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "days": {"type": "array", "items": {
                "type": "object",
                "properties": {
                    "day": {"type": "integer"},
                    "theme_of_the_day_in_a_few_words": {"type": "string"},
                    "activities": {"type": "array", "items": {
                        "type": "object",
                        "properties": {
                            "time": {"type": "string"},
                            "title": {"type": "string"},
                            "booking_reference_number_for_the_venue": {"type": "string"},
                            "place": {"type": "object", "properties": {
                                "name": {"type": "string"},
                                "address": {"type": "string"},
                                "notes": {"type": "array", "items": {"type": "string"}},
                                "accessible": {"type": "boolean"}
                            }, "required": ["name"], "additionalProperties": false},
                            "cost": {"type": "object", "properties": {
                                "amount": {"type": "number"},
                                "currency": {"enum": ["EUR", "USD"]}
                            }, "required": ["amount", "currency"], "additionalProperties": false}
                        },
                        "required": ["time", "title"],
                        "additionalProperties": false
                    }}
                },
                "required": ["day", "activities"],
                "additionalProperties": false
            }}
        },
        "required": ["title", "days"],
        "additionalProperties": false
    });
    payload_core::PayloadType::from_schema(
        &schema,
        payload_core::runtime::RuntimeOptions {
            name: Some("trip_plan".into()),
            marker: Some("TRIP_PLAN".into()),
            description: Some("A trip, day by day.".into()),
            ..Default::default()
        },
    )
    .expect("a payload type")
}

/// Two days of a trip, every level of `trip_plan` filled in.
fn trip() -> Value {
    let activity = |time: &str, title: &str, place: &str| {
        serde_json::json!({
            "time": time, "title": title,
            "booking_reference_number_for_the_venue": format!("REF-{}", title.len() * 7919),
            "place": {"name": place, "address": format!("{place} street 12, 1000 Lisbon"),
                      "notes": ["book ahead", "https://tickets.example.org/a-very-long-unbroken-address-that-would-overflow-a-narrow-column"],
                      "accessible": true},
            "cost": {"amount": 12.5, "currency": "EUR"}
        })
    };
    serde_json::json!({
        "title": "A long weekend in Lisbon",
        "days": [
            {"day": 1, "theme_of_the_day_in_a_few_words": "Old town on foot",
             "activities": [activity("09:00", "Castle walk", "Castelo"), activity("13:00", "Lunch", "Time Out Market")]},
            {"day": 2, "theme_of_the_day_in_a_few_words": "Belém by the river",
             "activities": [activity("10:00", "Monastery", "Jerónimos")]}
        ]
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_nested_payload_shows_every_leaf_value_inside_its_card_in_the_tray() {
    let Some((client, _driver)) = browser().await else {
        return;
    };
    let plan = trip_plan();
    let payloads: &'static [payload_core::PayloadType] = Box::leak(Box::new([*plan]));
    let registry: &'static Registry = Box::leak(Box::new(Registry::from_parts(
        vec![payload_registry::PayloadEntry::new(*plan, &[])],
        vec![payload_registry::Page::new("trip").payloads(payloads)],
        Vec::new(),
    )));
    let text = format!(
        "Here is the plan.\n\nTRIP_PLAN: {}\n\nEnjoy the trip!",
        trip()
    );
    let app = payload_serve::App::new(registry)
        .title("Trips")
        .pages(&["trip"])
        .model(move |_: &payload_serve::TurnInfo| {
            let text = text.clone();
            Box::new(move |_: &payload_agent::ModelRequest| {
                vec![payload_agent::ModelChunk::Text(text.clone())]
            }) as Box<dyn payload_agent::Model>
        });
    let url = serve_app(app).await;
    open(&client, &url, &["#chat-input"]).await;
    send(&client, "Plan my weekend").await;
    answered(&client, 1).await;
    let tray = client
        .execute(
            "return document.getElementById('chat').getBoundingClientRect().width",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(tray.as_f64(), Some(400.0), "the tray is 400 px wide");
    let shown = client
        .execute(
            &format!(
                "{VISIBLE} return visible(document.querySelector('.card.generic-card[data-type=trip_plan]'));"
            ),
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(shown["hidden"], serde_json::json!([]), "{shown}");
    let texts: Vec<&str> = shown["texts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    let mut expected = Vec::new();
    leaves(&trip(), &mut expected);
    for value in &expected {
        assert!(
            texts.contains(&value.as_str()),
            "{value:?} is a leaf of the card: {texts:?}"
        );
    }
    for label in [
        "Booking reference number for the venue",
        "Theme of the day in a few words",
        "Activities",
        "Notes",
        "Currency",
    ] {
        assert!(texts.contains(&label), "{label:?} in {texts:?}");
    }
}

/// Two recipes as alternatives, each introduced by its own sentence.
fn two_recipes() -> (Value, Value, String) {
    let recipe = |title: &str, minutes: u32| {
        serde_json::json!({
            "title": title, "servings": 2, "prep_time": minutes,
            "ingredients": [
                {"name": "eggs", "quantity": 4, "unit": "piece", "note": "at room temperature"},
                {"name": "chopped tomatoes", "quantity": 400, "unit": "gram"}
            ],
            "steps": [{"text": "Cook the tomatoes down.", "minutes": 10},
                      {"text": "Add the eggs and cover.", "minutes": 6}],
            "tags": ["vegetarian"]
        })
    };
    let (first, second) = (recipe("Shakshuka", 25), recipe("Tomato frittata", 20));
    let text = format!(
        "Two ideas with what you have.\n\nThe classic first:\n\nRECIPE_PROPOSAL: {first}\n\n\
         Or something firmer to slice:\n\nRECIPE_PROPOSAL: {second}\n\nPick the one you like \
         and I will save it."
    );
    (first, second, text)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_recipes_of_one_answer_stand_at_their_places_with_every_value_visible() {
    let Some((client, _driver)) = browser().await else {
        return;
    };
    let (first, second, text) = two_recipes();
    let app = recipes_web::app(Registry::global()).model(move |_: &payload_serve::TurnInfo| {
        Box::new(Paced {
            text: text.clone(),
            size: 24,
            pause: Duration::from_millis(8),
        }) as Box<dyn payload_agent::Model>
    });
    let url = serve_app(app).await;
    open(&client, &url, &["#starters .chip"]).await;
    // The answer's pieces in order, each time the page changes while it streams.
    client
        .execute(
            "window.orders = [];
             new MutationObserver(() => {
               const m = document.querySelector('.message.assistant');
               if (!m || m.dataset.state !== 'streaming') return;
               window.orders.push([...m.children].filter(c => c.matches('.text, .slot'))
                 .map(c => c.matches('.text') ? 'text:' + c.textContent.trim().length
                      : c.querySelector('.card.drafting') ? 'draft' : 'slot'));
             }).observe(document.getElementById('messages'), {childList: true, subtree: true, characterData: true});",
            vec![],
        )
        .await
        .unwrap();
    click(&client, "#starters .chip").await;
    answered(&client, 1).await;
    let order = client
        .execute(
            "const m = document.querySelector('.message.assistant');
             return [...m.children].filter(c => c.matches('.text, .slot')).map(c => c.matches('.text')
               ? {text: c.textContent}
               : {card: c.querySelector('.card').dataset.type, index: c.querySelector('.card').dataset.index,
                  title: c.querySelector('dd[data-key=title]').textContent,
                  state: c.querySelector('.card').dataset.state});",
            vec![],
        )
        .await
        .unwrap();
    let order = order.as_array().unwrap();
    assert_eq!(order.len(), 5, "text, card, text, card, text: {order:?}");
    assert!(
        order[0]["text"]
            .as_str()
            .unwrap()
            .contains("The classic first:"),
        "{order:?}"
    );
    assert_eq!(order[1]["card"], "recipe_proposal");
    assert_eq!(order[1]["index"], "0");
    assert_eq!(order[1]["title"], "Shakshuka");
    assert!(
        order[2]["text"]
            .as_str()
            .unwrap()
            .contains("Or something firmer to slice:"),
        "{order:?}"
    );
    assert_eq!(order[3]["index"], "1");
    assert_eq!(order[3]["title"], "Tomato frittata");
    assert!(
        order[4]["text"]
            .as_str()
            .unwrap()
            .contains("Pick the one you like"),
        "{order:?}"
    );
    assert!(order[1]["state"] == "proposed" && order[3]["state"] == "proposed");
    // While it streamed, a card was drafted at its place with text already after it,
    // and the first card stood before the second's text arrived.
    let orders = client
        .execute("return window.orders", vec![])
        .await
        .unwrap();
    let orders: Vec<Vec<String>> = serde_json::from_value(orders).unwrap();
    assert!(
        orders.iter().any(|o| o.len() >= 3
            && o[1] != "text:0"
            && o[2].starts_with("text:")
            && o[2] != "text:0"
            && o.len() < 5),
        "a card stood between streaming texts before the answer was whole: {orders:?}"
    );
    // Every value of both recipes is visible inside its card.
    for (i, recipe) in [(0, &first), (1, &second)] {
        let shown = client
            .execute(
                &format!(
                    "{VISIBLE} return visible(document.querySelector('.card[data-type=recipe_proposal][data-index=\"{i}\"]'));"
                ),
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(
            shown["hidden"],
            serde_json::json!([]),
            "recipe {i}: {shown}"
        );
        let texts: Vec<&str> = shown["texts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect();
        let mut expected = Vec::new();
        leaves(recipe, &mut expected);
        for value in &expected {
            assert!(
                texts.contains(&value.as_str()),
                "recipe {i}: {value:?} in {texts:?}"
            );
        }
    }
    // Each card is its own proposal: Accept on the first saves the first recipe alone.
    click(
        &client,
        ".card[data-type=recipe_proposal][data-index=\"0\"] button.accept",
    )
    .await;
    let saved = until(
        &client,
        "the first recipe in the cookbook",
        "const saved = [...document.querySelectorAll('#main a[data-recipe-id]')].map(a => a.querySelector('strong').textContent);
         const cards = [...document.querySelectorAll('.card[data-type=recipe_proposal]')].map(c => c.dataset.state);
         return {saved, cards};",
        |v| v["saved"].as_array().is_some_and(|s| !s.is_empty()),
    )
    .await;
    assert_eq!(saved["saved"], Value::from(vec!["Shakshuka"]), "{saved}");
    assert_eq!(saved["cards"], serde_json::json!(["accepted", "proposed"]));
}

/// The page's side of the stream's contract, driven step by step: `/api/chat` answered
/// in the page by batches of Server-Sent Events the test releases one at a time (each
/// event naming its `part`, `complete` carrying `parts`), every other request going to
/// the server. The first card is drafted at its place, the text after it streams in
/// after it, the second card lands between the texts, and a decision on the second
/// card names its index.
const STEPPED_CHAT: &str = r#"
const real = window.fetch.bind(window);
window.decisions = [];
const batches = arguments[0];
// A batch goes out per release, whichever comes first: the release or the read.
let release = null;
let credits = 0;
window.releaseBatch = () => {
  if (release) { const go = release; release = null; go(); } else credits += 1;
};
window.fetch = (url, options) => {
  if (String(url).startsWith('/api/payloads/')) window.decisions.push(String(url));
  if (String(url) !== '/api/chat') return real(url, options);
  const encoder = new TextEncoder();
  let next = 0;
  const body = new ReadableStream({
    pull(controller) {
      const released = credits > 0
        ? (credits -= 1, Promise.resolve())
        : new Promise((resolve) => { release = resolve; });
      return released.then(() => {
        if (next >= batches.length) return controller.close();
        const text = batches[next++].map(([name, data]) => 'event: ' + name + '\ndata: ' + JSON.stringify(data) + '\n\n').join('');
        controller.enqueue(encoder.encode(text));
      });
    },
  });
  return Promise.resolve(new Response(body, {status: 200, headers: {
    'content-type': 'text/event-stream', 'x-conversation-id': 'stepped', 'x-turn': '0'}}));
};
"#;

/// The answer's pieces in order: `text:<its text>` or `card:<state>:<index>:<title>`.
const PIECES: &str = "const m = document.querySelector('.message.assistant');
    if (!m) return null;
    return {state: m.dataset.state, pieces: [...m.children].filter(c => c.matches('.text, .slot')).map(c => {
      if (c.matches('.text')) return 'text:' + c.textContent.trim();
      const card = c.querySelector('.card');
      const title = card.querySelector('dd[data-key=title]');
      return 'card:' + card.dataset.state + ':' + (card.dataset.index || '') + ':' + (title ? title.textContent : '');
    })};";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_puts_each_part_where_the_stream_names_it() {
    let Some((client, _driver)) = browser().await else {
        return;
    };
    let url = serve_recipes().await;
    open(&client, &url, &["#starters .chip"]).await;
    let recipe = |title: &str| {
        serde_json::json!({"title": title, "servings": 2, "prep_time": 20,
            "ingredients": [{"name": "eggs", "quantity": 4, "unit": "piece"}],
            "steps": [{"text": "Cook."}], "tags": []})
    };
    let (first, second) = (recipe("Shakshuka"), recipe("Frittata"));
    let texts = ["Two ideas.\n\n", "Or firmer:\n\n", "\n\nPick one."];
    let part = |p: usize| serde_json::json!({"text": texts[p / 2], "span": [0, 0]});
    let parts = serde_json::json!([
        part(0),
        {"type": "recipe_proposal", "data": first, "span": [0, 0]},
        part(2),
        {"type": "recipe_proposal", "data": second, "span": [0, 0]},
        part(4),
    ]);
    let complete = serde_json::json!({
        "message": texts.concat(), "custom_payload": {"type": "recipe_proposal", "data": first},
        "parts": parts, "rejected": [], "warnings": [],
        "suggested_values": null, "suggested_actions": null,
    });
    let event = |name: &str, data: Value| serde_json::json!([name, data]);
    let batches = serde_json::json!([
        [
            event(
                "text_delta",
                serde_json::json!({"text": texts[0], "part": 0})
            ),
            event(
                "payload_start",
                serde_json::json!({"type": "recipe_proposal", "marker": "RECIPE_PROPOSAL", "part": 1})
            ),
            event(
                "payload_progress",
                serde_json::json!({"type": "recipe_proposal", "partial": {"title": "Shaksh"}, "part": 1})
            ),
        ],
        [
            event(
                "payload_progress",
                serde_json::json!({"type": "recipe_proposal", "partial": {"title": "Shakshuka"}, "part": 1})
            ),
            event(
                "text_delta",
                serde_json::json!({"text": "Or fir", "part": 2})
            ),
        ],
        [
            event(
                "text_delta",
                serde_json::json!({"text": "mer:\n\n", "part": 2})
            ),
            event(
                "payload_start",
                serde_json::json!({"type": "recipe_proposal", "marker": "RECIPE_PROPOSAL", "part": 3})
            ),
            event(
                "payload_progress",
                serde_json::json!({"type": "recipe_proposal", "partial": {"title": "Frittata"}, "part": 3})
            ),
            event(
                "text_delta",
                serde_json::json!({"text": texts[2], "part": 4})
            ),
        ],
        [event("complete", complete)],
    ]);
    client.execute(STEPPED_CHAT, vec![batches]).await.unwrap();
    click(&client, "#starters .chip").await;
    let step = |expected: Value| {
        let client = &client;
        async move {
            client
                .execute("window.releaseBatch()", vec![])
                .await
                .unwrap();
            until(client, &format!("{expected}"), PIECES, |v| {
                v["pieces"] == expected
            })
            .await
        }
    };
    let shown = step(serde_json::json!([
        "text:Two ideas.",
        "card:drafting::Shaksh"
    ]))
    .await;
    assert_eq!(shown["state"], "streaming");
    let shown = step(serde_json::json!([
        "text:Two ideas.",
        "card:drafting::Shakshuka",
        "text:Or fir"
    ]))
    .await;
    assert_eq!(shown["state"], "streaming", "text streams after the card");
    step(serde_json::json!([
        "text:Two ideas.",
        "card:drafting::Shakshuka",
        "text:Or firmer:",
        "card:drafting::Frittata",
        "text:Pick one."
    ]))
    .await;
    let shown = step(serde_json::json!([
        "text:Two ideas.",
        "card:proposed:0:Shakshuka",
        "text:Or firmer:",
        "card:proposed:1:Frittata",
        "text:Pick one."
    ]))
    .await;
    assert_eq!(shown["state"], "complete");
    // Each card is its own proposal: the second's decision names index 1.
    click(
        &client,
        ".card[data-type=recipe_proposal][data-index=\"1\"] button.dismiss",
    )
    .await;
    let decisions = until(
        &client,
        "the decision request",
        "return window.decisions",
        |v| v.as_array().is_some_and(|d| !d.is_empty()),
    )
    .await;
    assert_eq!(
        decisions,
        serde_json::json!(["/api/payloads/stepped/0/dismiss?index=1"])
    );
}
