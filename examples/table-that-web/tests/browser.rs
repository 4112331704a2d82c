//! The page in a real headless Chromium, driven over WebDriver: text streams in, a
//! schema proposal accepted becomes a table, rows are unticked before applying, chips
//! send their value, action buttons act, and hostile model text stays text.
//!
//! The browser comes from `payload_browser` (without one the tests say so and
//! pass, unless `PAYLOAD_REQUIRE_BROWSER` is set). `PAYLOAD_SCREENSHOT=FILE` saves the
//! finished conversation.

mod common;

use common::*;
use payload_browser::*;
use payload_serve::{ModelSource, TurnInfo};
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The replay model, slowed so streaming can be seen.
fn slow_replay() -> ModelSource {
    replay_with_delay(Duration::from_millis(8))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_recorded_conversation_in_a_browser() {
    let Some((client, _driver)) = browser().await else {
        return;
    };
    let server = start(slow_replay()).await;
    open(&client, &server.url, &["main .empty"]).await;

    // The text streams in: seen part-written before the answer completes.
    send(&client, "I'm job hunting").await;
    let partial = until(
        &client,
        "streamed text",
        "const m = document.querySelector('.message.assistant'); \
         return m && m.dataset.state === 'streaming' ? m.querySelector('.text').textContent : ''",
        |v| v.as_str().is_some_and(|t| t.len() > 5),
    )
    .await;
    answered(&client, 1).await;
    let whole: String = client
        .execute(
            "return document.querySelector('.message.assistant .text').textContent",
            vec![],
        )
        .await
        .unwrap()
        .as_str()
        .unwrap()
        .to_string();
    assert!(whole.len() > partial.as_str().unwrap().len());
    assert!(
        whole.contains("interview stages"),
        "Markdown bold rendered as text: {whole}"
    );
    assert_eq!(count(&client, ".message.assistant strong").await, 1);
    assert_eq!(count(&client, ".message.assistant ol li").await, 3);

    // A chip sends its value.
    assert_eq!(count(&client, ".chips .chip").await, 3);
    click(&client, ".chips .chip:nth-child(2)").await;
    answered(&client, 2).await;
    let users = client
        .execute(
            "return Array.from(document.querySelectorAll('.message.user')).map(m => m.textContent)",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(users[1], "I want to track each interview stage");

    // The schema proposal's card, accepted: the table exists and is shown.
    assert_eq!(
        count(&client, ".card[data-type=schema_proposal] tr.add").await,
        4
    );
    click(&client, ".card[data-type=schema_proposal] .accept").await;
    until(
        &client,
        "the new table",
        "return document.querySelectorAll('table.grid tr[data-row-id]').length",
        |v| v == 2,
    )
    .await;
    let headers = client
        .execute(
            "return Array.from(document.querySelectorAll('table.grid th')).map(h => h.textContent)",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        headers,
        json!(["#", "Company", "Role", "Stage", "Applied on"])
    );
    assert_eq!(
        client
            .execute("return location.hash", vec![])
            .await
            .unwrap(),
        "#/tables/1"
    );

    // Row changes: untick Umbrella and the delete, apply the other three.
    send(&client, "Add a few examples").await;
    answered(&client, 3).await;
    let boxes = ".card[data-type=data_proposal] input[type=checkbox]";
    assert_eq!(count(&client, boxes).await, 5);
    click(
        &client,
        ".card[data-type=data_proposal] tr:nth-child(3) input",
    )
    .await;
    click(
        &client,
        ".card[data-type=data_proposal] tr:nth-child(6) input",
    )
    .await;
    let label = client
        .find(Locator::Css(".card[data-type=data_proposal] .accept"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(label, "Apply 3 changes");
    click(&client, ".card[data-type=data_proposal] .accept").await;
    until(
        &client,
        "four rows",
        "return document.querySelectorAll('table.grid tr[data-row-id]').length",
        |v| v == 4,
    )
    .await;
    until(
        &client,
        "the card's state",
        "return document.querySelector('.card[data-type=data_proposal]').dataset.state",
        |v| v == "accepted",
    )
    .await;

    // A column change, shown as a diff against the current columns, then applied.
    send(&client, "Add a salary column").await;
    answered(&client, 4).await;
    let diff = client
        .find(Locator::Css(".message:last-child .card tr.modify"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(diff.contains("type: text → select"), "{diff}");
    click(&client, ".message:last-child .card .accept").await;
    until(&client, "the salary column", "return Array.from(document.querySelectorAll('table.grid th')).map(h => h.textContent).includes('Salary range')", |v| v == true).await;

    // Action buttons: only the page's; open_filters opens them, close_chat closes the tray.
    send(&client, "How am I doing?").await;
    answered(&client, 5).await;
    let actions = client
        .execute("return Array.from(document.querySelectorAll('.message:last-child .actions button')).map(b => b.dataset.action)", vec![])
        .await
        .unwrap();
    assert_eq!(actions, json!(["open_filters", "close_chat"]));
    let note = client
        .find(Locator::Css(".message:last-child .note.dropped"))
        .await
        .unwrap();
    assert_eq!(note.text().await.unwrap(), "2 suggestions were left out.");
    assert!(
        note.attr("title")
            .await
            .unwrap()
            .unwrap()
            .contains("send_email")
    );
    click(
        &client,
        ".message:last-child .actions button[data-action=open_filters]",
    )
    .await;
    until(
        &client,
        "the filters",
        "return !document.getElementById('filters').hidden",
        |v| v == true,
    )
    .await;
    if let Some(path) = std::env::var_os("PAYLOAD_SCREENSHOT") {
        std::fs::write(path, client.screenshot().await.unwrap()).unwrap();
    }
    // The filter panel filters: Role is a dropdown and Stage tabs, as the columns say.
    assert_eq!(
        count(&client, "#filters select[data-column=col_role] option").await,
        5
    );
    click(&client, "#filters button:nth-of-type(5)").await; // Stage: All, Applied, Phone screen, Onsite, Offer
    until(&client, "filtered rows", "return Array.from(document.querySelectorAll('table.grid tr[data-row-id]')).map(r => r.dataset.rowId)", |v| v == &json!(["4"])).await;
    click(&client, ".toolbar .export-csv").await;
    until(
        &client,
        "the download note",
        "return document.getElementById('toast').textContent",
        |v| v == "Downloading Job Applications as CSV",
    )
    .await;
    click(
        &client,
        ".message:last-child .actions button[data-action=close_chat]",
    )
    .await;
    until(
        &client,
        "the tray closed",
        "return document.getElementById('chat').hidden",
        |v| v == true,
    )
    .await;

    // Reloaded, the conversation comes back with each card's decision.
    client.refresh().await.unwrap();
    until(
        &client,
        "the restored conversation",
        "return document.querySelectorAll('.message.assistant[data-state=complete]').length",
        |v| v == 5,
    )
    .await;
    let states = client
        .execute(
            "return Array.from(document.querySelectorAll('.card')).map(c => c.dataset.state)",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(states, json!(["accepted", "accepted", "accepted"]));
    assert_eq!(count(&client, ".card .accept:not([disabled])").await, 0);
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_model_text_is_shown_as_text() {
    const HOSTILE: &str = "<script>window.ran = 1</script>\n\n<img src=x onerror=\"window.ran = 2\"> \
        [click](javascript:window.ran=3) **bold <b>not bold</b>**\n\n```\n<iframe src=\"/\"></iframe>\n```";
    let Some((client, _driver)) = browser().await else {
        return;
    };
    let server = start(saying(HOSTILE)).await;
    open(&client, &server.url, &["#chat-input"]).await;
    send(&client, "say something nasty").await;
    answered(&client, 1).await;
    tokio::time::sleep(Duration::from_millis(200)).await; // an onerror would have fired
    let text = client
        .execute(
            "return document.querySelector('.message.assistant .text').textContent",
            vec![],
        )
        .await
        .unwrap();
    let shown = [
        "<script>window.ran = 1</script>",
        "<img src=x onerror=",
        "[click](javascript:",
        "<b>not bold</b>",
        "<iframe",
    ];
    assert_markup_stayed_text(&client, text.as_str().unwrap(), &shown).await;
    client.close().await.unwrap();
}

/// A page on another origin (another port of 127.0.0.1) whose form posts itself, as
/// soon as it loads, to `target` as `text/plain` carrying JSON: what any site the
/// user visits could serve.
async fn foreign_site(target: String) -> String {
    let page = format!(
        "<!doctype html><title>cute cats</title>\
         <form id=f method=POST enctype=text/plain action=\"{target}\">\
         <input type=hidden name='{{\"rows\": null, \"x\": \"' value='\"}}'></form>\
         <script>document.getElementById('f').submit()</script>"
    );
    let app = axum::Router::new().route(
        "/",
        axum::routing::get(move || {
            let page = page.clone();
            async move { axum::response::Html(page) }
        }),
    );
    let url = serve(|listener| async move { axum::serve(listener, app).await }).await;
    format!("{url}/")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_form_on_another_site_cannot_accept_a_proposal() {
    let Some((client, _driver)) = browser().await else {
        return;
    };
    let server = start(saying_owned(create_proposal("Planted", 2))).await;
    let http = reqwest::Client::new();
    let (id, turn, _) = chat(&http, &server, message("go", "tables_list", None, None)).await;
    // The attacker is even given the conversation's id: the origin alone must stop it.
    let target = format!("{}/api/payloads/{id}/{turn}/accept", server.url);
    let site = foreign_site(target.clone()).await;
    client.goto(&site).await.unwrap();
    // The form was posted: the browser left the foreign page for the answer.
    let deadline = Instant::now() + Duration::from_secs(20);
    while client.current_url().await.unwrap().as_str() != target {
        assert!(Instant::now() < deadline, "the form was never posted");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let answer = client.source().await.unwrap();
    assert!(!answer.contains("accepted"), "{answer}");
    let tables = get(&http, &server, "/api/tables").await;
    assert_eq!(
        tables["tables"],
        json!([]),
        "the foreign form created a table"
    );
    let stored = get(&http, &server, &format!("/api/conversations/{id}")).await;
    assert_eq!(stored["payloads"][0]["status"], "proposed");
    client.close().await.unwrap();
}

/// A reasoning model: two pieces on its reasoning channel, a pause (while the page shows
/// the reasoning streaming), then an answer whose text holds a `<think>` section too.
struct Thinker;

impl payload_agent::Model for Thinker {
    fn stream(&mut self, _: &payload_agent::ModelRequest) -> payload_agent::ModelStream {
        use payload_agent::ModelChunk;
        let (now, later) = (Duration::ZERO, Duration::from_millis(1500));
        paced(vec![
            (now, ModelChunk::Reasoning("Let me think <img src=x onerror=\"window.ran = 4\">".into())),
            (now, ModelChunk::Reasoning(" about the columns.".into())),
            (later, ModelChunk::Text("<think>\nSUGGESTED_VALUES: [{\"label\": \"Draft\", \"value\": \"d\"}]\n</think>\n\n".into())),
            (now, ModelChunk::Text("Here is **the answer**.".into())),
        ])
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reasoning_is_a_collapsed_thinking_section_filled_as_it_streams() {
    let Some((client, _driver)) = browser().await else {
        return;
    };
    let server = start(Arc::new(|_: &TurnInfo| -> Box<dyn payload_agent::Model> {
        Box::new(Thinker)
    }))
    .await;
    open(&client, &server.url, &["#chat-input"]).await;
    send(&client, "think first").await;
    // While the answer streams, the reasoning is there, collapsed, above the text.
    let streaming = until(
        &client,
        "the reasoning while streaming",
        "const m = document.querySelector('.message.assistant');
         const d = m && m.querySelector('details.thinking');
         return d ? [m.dataset.state, d.open, d.textContent,
                     d.nextElementSibling && d.nextElementSibling.className] : null",
        |v| {
            v[2].as_str()
                .is_some_and(|t| t.contains("about the columns."))
        },
    )
    .await;
    assert_eq!(streaming[0], "streaming");
    assert_eq!(streaming[1], false, "the thinking section starts collapsed");
    assert_eq!(
        streaming[3], "text",
        "the thinking section is above the answer"
    );
    answered(&client, 1).await;
    let done = client
        .execute(
            "const m = document.querySelector('.message.assistant');
             return [m.querySelector('details.thinking .thinking-text').textContent,
                     m.querySelector('.text').textContent,
                     m.querySelectorAll('details.thinking').length,
                     m.querySelectorAll('.chip').length]",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        done[0],
        "Let me think <img src=x onerror=\"window.ran = 4\"> about the columns.\n\nSUGGESTED_VALUES: [{\"label\": \"Draft\", \"value\": \"d\"}]"
    );
    assert_eq!(done[1], "Here is the answer.");
    assert_eq!(done[2], 1);
    assert_eq!(done[3], 0, "a block in the reasoning is never a chip");
    assert_eq!(count(&client, "#messages img").await, 0);
    click(&client, "details.thinking summary").await;
    let open = client
        .execute(
            "return document.querySelector('details.thinking').open",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(open, true);
    assert_nothing_ran(&client).await;
    client.close().await.unwrap();
}

/// A refusal and a content filter's stop are the answer's outcome on the page: the
/// bubble says so (in the model's words, as text, or a sentence for the filter),
/// never stays empty, and says so again when the stored conversation is restored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_or_a_filters_stop_is_shown_never_an_empty_bubble() {
    const WORDS: &str = "I can't help with <img src=x onerror=\"window.ran = 5\"> that.";
    let Some((client, _driver)) = browser().await else {
        return;
    };
    let server = start(Arc::new(
        |turn: &TurnInfo| -> Box<dyn payload_agent::Model> {
            let first = turn.turn == 0;
            Box::new(move |_: &payload_agent::ModelRequest| {
                if first {
                    vec![payload_agent::ModelChunk::Finish(
                        payload_agent::FinishReason::ContentFilter,
                    )]
                } else {
                    vec![payload_agent::ModelChunk::Refusal(WORDS.into())]
                }
            })
        },
    ))
    .await;
    open(&client, &server.url, &["#chat-input"]).await;
    let shown = "return [...document.querySelectorAll('.message.assistant')].map((m) => {
        const r = m.querySelector('.refusal');
        return [m.dataset.state, r ? r.dataset.reason : null, r ? r.textContent : null,
                m.textContent.trim().length > 0];
    })";
    send(&client, "something the filter stops").await;
    answered(&client, 1).await;
    send(&client, "something the model refuses").await;
    answered(&client, 2).await;
    let expected = json!([
        [
            "complete",
            "content_filter",
            "The provider's content filter stopped the answer.",
            true
        ],
        ["complete", "refusal", WORDS, true],
    ]);
    let live = client.execute(shown, vec![]).await.unwrap();
    assert_eq!(live, expected);
    assert_eq!(count(&client, "#messages img").await, 0);

    // The stored conversation shows the outcomes again, once each.
    client.refresh().await.unwrap();
    let restored = until(&client, "the restored conversation", shown, |v| {
        v.as_array().is_some_and(|a| a.len() == 2)
    })
    .await;
    assert_eq!(restored, expected);
    assert_eq!(count(&client, ".message.assistant .refusal").await, 2);
    assert_nothing_ran(&client).await;
    client.close().await.unwrap();
}
