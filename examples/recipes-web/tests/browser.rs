//! The recipe assistant in a real headless Chromium: a first visit says its answers are
//! recorded and offers the page's starters; a starter sends its message; the recipe
//! arrives as a generic card (built from the type's JSON Schema) that fills in while it
//! streams; accepting it saves it in the cookbook. With the page left open across a
//! restart of the server (a new in-memory database), Accept on the newest card saves
//! that card's recipe.
//!
//! The browser comes from table.that's harness (without one the test says so and
//! passes, unless `PAYLOAD_REQUIRE_BROWSER` is set).

#[path = "../../table-that-web/tests/support/browser.rs"]
mod harness;

use harness::*;
use payload_registry::Registry;
use recipes as _;
use serde_json::Value;
use tokio::net::TcpListener;

/// Serves the app as `recipes serve` does (its replay model, paced so streaming shows).
async fn serve() -> String {
    serve_app(recipes_web::app(Registry::global())).await
}

/// Serves `app` on a free port of 127.0.0.1.
async fn serve_app(app: payload_serve::App) -> String {
    let service = app.build().expect("the app builds");
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(service.serve(listener));
    url
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_generic_card_streams_in_and_is_accepted_into_the_cookbook() {
    let Some((client, _driver)) = browser().await else {
        return;
    };
    let url = serve().await;
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
    let app = recipes_web::app(Registry::global()).model(|_: &payload_serve::TurnInfo| {
        Box::new(|_: &payload_agent::ModelRequest| {
            vec![payload_agent::ModelChunk::Text(HOSTILE.to_string())]
        }) as Box<dyn payload_agent::Model>
    });
    let url = serve_app(app).await;
    client.goto(&url).await.unwrap();
    until(
        &client,
        "the page",
        "return document.querySelector('#starters .chip') !== null",
        |v| v == true,
    )
    .await;
    click(&client, "#starters .chip").await;
    let text = until(
        &client,
        "the hostile recipe's card",
        "const c = document.querySelector('.card.generic-card[data-state=proposed]');
         return c ? c.querySelector('.card-body').textContent : null;",
        |v| !v.is_null(),
    )
    .await;
    tokio::time::sleep(std::time::Duration::from_millis(200)).await; // an onerror would have fired
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
    client.goto(&format!("http://{address}/")).await.unwrap();
    until(
        &client,
        "the page",
        "return document.getElementById('chat-input') !== null && document.querySelector('#starters .chip') !== null",
        |v| v == true,
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
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(20)).await,
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
    let app = recipes_web::app(Registry::global()).model(|_: &payload_serve::TurnInfo| {
        Box::new(|_: &payload_agent::ModelRequest| {
            vec![payload_agent::ModelChunk::Text(UNDECLARED.to_string())]
        }) as Box<dyn payload_agent::Model>
    });
    let url = serve_app(app).await;
    client.goto(&url).await.unwrap();
    until(
        &client,
        "the page",
        "return document.querySelector('#starters .chip') !== null",
        |v| v == true,
    )
    .await;
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
        let cut = UNDECLARED.find("\"steps\"").unwrap();
        let chunks = vec![
            (0, UNDECLARED[..cut].to_string()),
            (60_000, UNDECLARED[cut..].to_string()),
        ];
        Box::pin(futures::stream::unfold(
            chunks.into_iter(),
            |mut chunks| async move {
                let (pause, text) = chunks.next()?;
                tokio::time::sleep(std::time::Duration::from_millis(pause)).await;
                Some((payload_agent::ModelChunk::Text(text), chunks))
            },
        ))
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
    client.goto(&url).await.unwrap();
    until(
        &client,
        "the page",
        "return document.querySelector('#starters .chip') !== null",
        |v| v == true,
    )
    .await;
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
