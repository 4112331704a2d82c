//! The recipe assistant end to end on recorded model answers: registered pages, one-shot
//! and streamed parses, the retry driver, and the prompts the pages write.

use crate::{COOKBOOK, KITCHEN, KitchenCommand, RecipeProposal, Unit};
use chrono::NaiveDate;
use payload_core::{
    ErrorKind, LlmPayload, ParsedResponse, extract_json, retry::RetryPolicy, retry::RetryRequest,
    retry::retry_as, stream::StreamEvent, stream::StreamParser,
};
use payload_registry::Registry;
use std::time::Duration;

const PROPOSAL: &str = include_str!("../responses/cookbook-proposal.md");
const TIMER: &str = include_str!("../responses/kitchen-timer.md");
const CONVERT: &str = include_str!("../responses/kitchen-convert.md");
const QTY: &str = include_str!("../responses/cookbook-qty.md");
const RETRY_WRONG_UNIT: &str = include_str!("../responses/retry-1-wrong-unit.json");
const RETRY_FIXED: &str = include_str!("../responses/retry-2-fixed.json");

fn parse(page: &str, text: &str) -> ParsedResponse {
    payload_registry::parse_response(page, text).expect("the page is registered")
}

/// The response parsed clean: no rejected block, no warning.
fn clean(page: &str, text: &str) -> ParsedResponse {
    let parsed = parse(page, text);
    assert!(parsed.rejected.is_empty(), "{:#?}", parsed.rejected);
    assert!(parsed.warnings.is_empty(), "{:#?}", parsed.warnings);
    parsed
}

#[test]
fn the_registrations_pass_the_registry_checks() {
    let registry = Registry::global();
    registry.check().expect("no registration error");
    for page in [COOKBOOK.name, KITCHEN.name] {
        let info = registry.page(page).expect("registered");
        assert!(
            info.actions.iter().any(|a| a.action == "save_recipe"),
            "{page}"
        );
    }
}

#[test]
fn a_recipe_is_read_one_shot_with_its_minutes_as_a_duration() {
    let parsed = clean("cookbook", PROPOSAL);
    let recipe: RecipeProposal = parsed.into_payload().expect("a recipe");
    assert_eq!(recipe.title, "Weeknight shakshuka");
    assert_eq!(recipe.prep_time, Duration::from_secs(25 * 60));
    assert_eq!(recipe.ingredients.len(), 5);
    assert_eq!(recipe.ingredients[4].unit, Unit::Piece);
    assert_eq!(recipe.ingredients[1].note.as_deref(), Some("finely sliced"));
    assert_eq!(recipe.steps[1].minutes, Some(10));
}

/// `#[serde(alias = "qty")]` on the required `quantity`: serde reads it, so validation
/// does too, in both modes, with no warning, and the data the app gets uses the main name.
#[test]
fn an_aliased_required_member_is_read_in_both_modes() {
    let parsed = clean("cookbook", QTY);
    let data = parsed
        .custom_payload
        .as_ref()
        .expect("a recipe")
        .data()
        .clone();
    assert_eq!(data["ingredients"][0]["quantity"], 200);
    assert!(data["ingredients"][0].get("qty").is_none());
    let recipe: RecipeProposal = parsed.into_payload().expect("a recipe");
    assert_eq!(recipe.ingredients[2].quantity, 2.0);

    let json = QTY.split_once("RECIPE_PROPOSAL: ").expect("a block").1;
    let whole = extract_json(json, &RecipeProposal::TYPE);
    assert!(whole.success, "{:#?}", whole.errors);
    assert!(whole.warnings.is_empty(), "{:#?}", whole.warnings);
    let recipe: RecipeProposal = whole.decode().expect("decodes");
    assert_eq!(recipe.ingredients[1].quantity, 300.0);
}

#[test]
fn the_message_keeps_the_prose_around_the_recipe() {
    let parsed = clean("cookbook", PROPOSAL);
    assert!(parsed.message.starts_with("With eggs"));
    assert!(parsed.message.ends_with("spicier or with feta."));
    assert!(!parsed.message.contains("RECIPE_PROPOSAL"));
}

#[test]
fn an_internally_tagged_command_is_read_by_its_tag() {
    let timer: KitchenCommand = clean("kitchen", TIMER).into_payload().expect("a command");
    assert_eq!(
        timer,
        KitchenCommand::SetTimer {
            label: "tomato sauce".to_string(),
            duration: Duration::from_secs(600),
        }
    );
    let convert: KitchenCommand = clean("kitchen", CONVERT).into_payload().expect("a command");
    assert_eq!(
        convert,
        KitchenCommand::ConvertUnits {
            quantity: 2.0,
            from: Unit::Cup,
            to: Unit::Millilitre,
        }
    );
}

#[test]
fn a_command_with_an_unknown_tag_is_rejected_naming_the_commands() {
    let text = r#"KITCHEN_COMMAND: {"command": "preheat_oven", "degrees": 200}"#;
    let parsed = parse("kitchen", text);
    assert!(parsed.custom_payload.is_none());
    assert_eq!(parsed.rejected.len(), 1);
    let message = format!("{:?}", parsed.rejected[0].errors);
    assert!(message.contains("set_timer"), "{message}");
}

#[test]
fn a_recipe_is_not_offered_on_a_page_that_does_not_list_it() {
    let parsed = parse("cookbook", TIMER);
    assert!(parsed.custom_payload.is_none());
}

/// Streams `text` in chunks of `size` bytes (on char boundaries) through the page's
/// parser.
fn stream(page: &str, text: &str, size: usize) -> (Vec<StreamEvent>, ParsedResponse) {
    let info = Registry::global().page(page).expect("registered");
    let mut parser = StreamParser::with_parser(info.parser().clone());
    let mut events = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let mut end = size.min(rest.len());
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        events.extend(parser.push(&rest[..end]));
        rest = &rest[end..];
    }
    let (last, parsed) = parser.finish();
    events.extend(last);
    (events, parsed)
}

#[test]
fn a_streamed_recipe_ends_as_the_one_shot_parse_in_every_chunking() {
    let one_shot = parse("cookbook", PROPOSAL);
    for size in [1, 3, 16, 64, PROPOSAL.len()] {
        let (events, parsed) = stream("cookbook", PROPOSAL, size);
        assert_eq!(parsed, one_shot, "chunks of {size}");
        let shown: String = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::TextDelta { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(shown, one_shot.message, "chunks of {size}");
        assert!(
            events.iter().any(|e| matches!(e,
                StreamEvent::PayloadStart { kind, .. } if kind == RecipeProposal::NAME)),
            "chunks of {size}"
        );
    }
}

#[test]
fn the_recipe_grows_while_it_streams() {
    let (events, _) = stream("cookbook", PROPOSAL, 16);
    let counts: Vec<usize> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::PayloadProgress { partial, .. } => partial
                .get("ingredients")
                .and_then(|i| i.as_array())
                .map(Vec::len),
            _ => None,
        })
        .collect();
    assert!(counts.windows(2).all(|w| w[0] <= w[1]), "{counts:?}");
    assert_eq!(counts.last(), Some(&5));
}

/// The recipe read typed while it streams: its `Duration` (read through `serde(with)`)
/// and its date are complete only, absent until whole; the ingredients grow.
#[test]
fn the_recipe_is_typed_while_it_streams() {
    let (events, _) = stream("cookbook", PROPOSAL, 8);
    let partials: Vec<_> = events
        .iter()
        .filter_map(StreamEvent::partial::<RecipeProposal>)
        .collect();
    assert!(partials.len() >= 3, "{}", partials.len());
    let mut seen_time = false;
    for partial in &partials {
        match partial.value.prep_time {
            Some(time) => {
                assert_eq!(time, Duration::from_secs(25 * 60));
                seen_time = true;
            }
            None => assert!(!seen_time, "a whole value never goes away"),
        }
    }
    let last = partials.last().expect("a partial value");
    assert!(last.complete);
    let ingredients = last.value.ingredients.as_ref().expect("ingredients");
    assert_eq!(ingredients.value.len(), 5);
    let eggs = &ingredients.value[4].value;
    assert_eq!(eggs.quantity, Some(4.0));
    assert_eq!(eggs.unit, Some(Unit::Piece));

    let (events, _) = stream("kitchen", TIMER, 5);
    let timer = events
        .iter()
        .rev()
        .find_map(StreamEvent::partial::<KitchenCommand>)
        .expect("a partial command");
    assert_eq!(
        timer.value,
        crate::KitchenCommandPartial::SetTimer {
            label: Some(payload_core::partial::Growing {
                value: "tomato sauce".to_string(),
                complete: true
            }),
            duration: Some(Duration::from_secs(600)),
        }
    );
}

#[test]
fn the_retry_driver_feeds_the_wrong_unit_back_and_takes_the_fix() {
    let answers = [RETRY_WRONG_UNIT, RETRY_FIXED];
    let mut feedback = Vec::new();
    let (recipe, outcome) =
        retry_as::<RecipeProposal, ()>(RetryPolicy::attempts(3), |request: &RetryRequest| {
            feedback.push(request.feedback.clone());
            Ok(answers[request.attempt - 1].to_string())
        });
    assert!(outcome.succeeded());
    assert_eq!(outcome.attempts.len(), 2);
    let first = &outcome.attempts[0].errors;
    assert_eq!(first.len(), 1, "{first:#?}");
    assert_eq!(first[0].path(), "/ingredients/0/unit");
    assert_eq!(first[0].kind(), ErrorKind::Validation);
    let told = feedback[1].as_deref().expect("the second attempt is told");
    assert!(
        told.contains("/ingredients/0/unit") && told.contains("gram"),
        "{told}"
    );
    let recipe = recipe.expect("typed");
    assert_eq!(recipe.best_before, NaiveDate::from_ymd_opt(2026, 11, 29));
    assert_eq!(recipe.prep_time, Duration::from_secs(300));
}

#[test]
fn the_retry_driver_gives_no_value_when_every_answer_is_wrong() {
    let (recipe, outcome) = retry_as::<RecipeProposal, ()>(RetryPolicy::attempts(2), |_| {
        Ok(RETRY_WRONG_UNIT.to_string())
    });
    assert!(recipe.is_none());
    assert!(!outcome.succeeded());
    assert_eq!(outcome.attempts.len(), 2);
}

#[test]
fn the_pages_prompts_name_their_payloads_and_the_save_action() {
    let registry = Registry::global();
    let cookbook = payload_prompt::PromptBuilder::for_page(registry, "cookbook")
        .expect("registered")
        .context(&serde_json::json!({"saved": 12}))
        .build();
    assert!(cookbook.contains("RECIPE_PROPOSAL"), "{cookbook}");
    assert!(cookbook.contains("save_recipe"), "{cookbook}");
    assert!(cookbook.contains("12 saved recipes"), "{cookbook}");
    assert!(!cookbook.contains("KITCHEN_COMMAND"), "{cookbook}");
    let kitchen = payload_prompt::PromptBuilder::for_page(registry, "kitchen")
        .expect("registered")
        .build();
    assert!(kitchen.contains("KITCHEN_COMMAND") && kitchen.contains("set_timer"));
}

#[test]
fn the_examples_are_valid_payloads() {
    for (name, value) in [
        (
            RecipeProposal::NAME,
            serde_json::to_value(crate::examples::shakshuka()).unwrap(),
        ),
        (
            KitchenCommand::NAME,
            serde_json::to_value(crate::examples::tea_timer()).unwrap(),
        ),
    ] {
        let payload = Registry::global().payload_type(name).expect("registered");
        let result = extract_json(&value.to_string(), payload);
        assert!(result.success, "{name}: {:#?}", result.errors);
    }
}

/// A type known only at run time (a shopping list whose schema an app reads from its
/// configuration) offered on the registered cookbook page, beside the derived recipe.
#[test]
fn a_runtime_type_joins_a_registered_page() {
    use payload_core::{PayloadType, runtime::RuntimeOptions};
    use payload_registry::PayloadEntry;
    let schema = serde_json::json!({
        "title": "shopping_list",
        "description": "What to buy for the recipe",
        "type": "object",
        "properties": {"items": {"type": "array", "items": {"type": "string"}}},
        "required": ["items"]
    });
    let list = PayloadType::from_schema(&schema, RuntimeOptions::default()).expect("a schema");
    let registry = Registry::linked_with(vec![PayloadEntry::new(*list, &["cookbook"])]);
    registry.check().expect("no conflict");
    let parsed = registry
        .parse_response(
            "cookbook",
            "You'll need:\n\nSHOPPING_LIST: {\"items\": [\"eggs\", \"feta\"]}",
        )
        .expect("registered");
    let payload = parsed.custom_payload.expect("the list");
    assert_eq!(payload.kind, "shopping_list");
    assert_eq!(payload.data()["items"][1], "feta");
    let recipe = registry
        .parse_response("cookbook", PROPOSAL)
        .expect("registered");
    assert!(recipe.payload::<RecipeProposal>().is_some());
}

// ---- payload kinds and the pages' combination rules ----

fn prompt(page: &str) -> String {
    payload_prompt::PromptBuilder::for_page(Registry::global(), page)
        .expect("registered")
        .build()
}

/// A recipe is a proposal the user reviews; a kitchen command is run at once: each
/// page's prompt says so, and a command is never framed as "not done yet".
#[test]
fn each_page_frames_its_payloads_by_their_kind() {
    assert_eq!(
        RecipeProposal::TYPE.kind,
        payload_core::PayloadKind::Proposal
    );
    assert_eq!(
        KitchenCommand::TYPE.kind,
        payload_core::PayloadKind::Command
    );
    let cookbook = prompt("cookbook");
    assert!(
        cookbook.contains("To propose a change, add one of the structured payloads"),
        "{cookbook}"
    );
    assert!(cookbook.contains("never claim it has already been done"));
    assert!(!cookbook.contains("A command is") && !cookbook.contains("Kind: command"));
    let kitchen = prompt("kitchen");
    assert!(
        kitchen
            .contains("A command is carried out by the application as soon as your reply arrives"),
        "{kitchen}"
    );
    assert!(kitchen.contains("say in your reply what it did"));
    // The kitchen offers recipes too: the proposal rule stays, for proposals only.
    assert!(
        kitchen.contains(
            "A proposal is shown to the user as an interactive proposal, which they review"
        )
    );
    assert!(kitchen.contains("a payload is a proposal unless its entry there names another kind"));
    let entry = &kitchen[kitchen
        .find("KITCHEN_COMMAND\nWhen to use")
        .expect("its entry")..];
    assert!(
        entry.contains("Kind: command. The application runs it as soon as your reply arrives"),
        "{entry}"
    );
    let recipe = &kitchen[kitchen
        .find("RECIPE_PROPOSAL\nWhen to use")
        .expect("its entry")..];
    assert!(!recipe[..recipe.find("Write the marker").unwrap()].contains("Kind:"));
}

/// The cookbook lets the save button go with the recipe it saves, and no chips; the
/// kitchen lets anything go together. Each prompt states its page's rule.
#[test]
fn each_page_states_its_combination_rule() {
    assert!(prompt("cookbook").ends_with(
        "A response with a payload from STRUCTURED RESPONSES may also hold SUGGESTED_ACTIONS \
         but no SUGGESTED_VALUES."
    ));
    assert!(
        prompt("kitchen")
            .ends_with("A response with a payload from STRUCTURED RESPONSES may hold them too.")
    );
}

const CHIPS: &str = r#"SUGGESTED_VALUES: [{"label": "Spicier", "value": "Make it spicier"}]"#;

/// The recorded recipe comes with its save button: both read, no warning.
#[test]
fn a_recipe_goes_with_the_button_that_saves_it() {
    let parsed = clean("cookbook", PROPOSAL);
    assert!(parsed.payload::<RecipeProposal>().is_some());
    let actions = parsed.suggested_actions.expect("the save button");
    assert_eq!(actions[0].action, "save_recipe");
}

/// Chips beside the recipe break the cookbook's rule: the chips are taken out with a
/// warning that names the rule and quotes them; the recipe, the button and the message
/// stay, in one-shot and streamed parses alike. Without the recipe the chips are kept.
#[test]
fn chips_beside_a_recipe_are_taken_out_with_a_warning_naming_the_rule() {
    for text in [
        format!("{PROPOSAL}\n\n{CHIPS}"),
        format!("Here it is.\n\n{CHIPS}\n\n{PROPOSAL}"),
    ] {
        let parsed = parse("cookbook", &text);
        assert!(parsed.rejected.is_empty(), "{:#?}", parsed.rejected);
        assert!(parsed.payload::<RecipeProposal>().is_some());
        assert!(parsed.suggested_values.is_none());
        assert_eq!(parsed.suggested_actions.as_ref().map(Vec::len), Some(1));
        assert_eq!(parsed.warnings.len(), 1, "{:#?}", parsed.warnings);
        let warning = &parsed.warnings[0];
        assert_eq!(warning.kind, payload_core::WarningKind::Combination);
        assert!(
            warning.message.contains("combination rule")
                && warning.message.contains("recipe_proposal")
                && warning.message.contains(r#""label":"Spicier""#),
            "{warning}"
        );
        assert!(!parsed.message.contains("SUGGESTED_VALUES"));
        for size in [1, 7, 64] {
            assert_eq!(
                stream("cookbook", &text, size).1,
                parsed,
                "chunks of {size}"
            );
        }
    }
    let chips_alone = clean("cookbook", &format!("What do you have?\n\n{CHIPS}"));
    assert!(chips_alone.suggested_values.is_some());
    // The kitchen's rule is free: a timer goes with chips.
    let timer = clean("kitchen", &format!("{TIMER}\n\n{CHIPS}"));
    assert!(timer.suggested_values.is_some() && timer.custom_payload.is_some());
}

// ---- aliases beside other failures ----

/// A recipe whose ingredients say `qty` (the required `quantity`'s alias) and whose
/// steps say `mins` (the optional `minutes`' alias), with one real mistake: a unit
/// that is not one of the units. The errors name the unit, and only the unit, in
/// marker mode one-shot and streamed and in whole-response mode: never a missing
/// `quantity`, never an unknown `qty` or `mins`.
#[test]
fn an_alias_is_read_when_something_else_in_the_value_fails() {
    let json = r#"{"title": "Pancakes", "servings": 4, "prep_time": 20,
        "ingredients": [{"name": "flour", "qty": 200, "unit": "grams"},
                        {"name": "milk", "qty": 300, "unit": "millilitre"}],
        "steps": [{"text": "Rest the batter.", "mins": 10}]}"#;
    let text = format!("Here you are:\n\nRECIPE_PROPOSAL: {json}\n\nEnjoy!");
    let only_the_unit = |errors: &[payload_core::PayloadError]| {
        let paths: Vec<&str> = errors.iter().map(|e| e.path()).collect();
        assert_eq!(paths, ["/ingredients/0/unit"], "{errors:#?}");
        for error in errors {
            let said = format!("{} {:?}", error.message(), error.suggestion());
            assert!(
                !said.contains("quantity") && !said.contains("qty") && !said.contains("mins"),
                "{error:#?}"
            );
        }
    };
    let parsed = parse("cookbook", &text);
    assert!(parsed.custom_payload.is_none());
    assert_eq!(parsed.rejected.len(), 1, "{:#?}", parsed.rejected);
    only_the_unit(&parsed.rejected[0].errors);
    for size in [1, 9, 64] {
        assert_eq!(
            stream("cookbook", &text, size).1,
            parsed,
            "chunks of {size}"
        );
    }
    let whole = extract_json(json, &RecipeProposal::TYPE);
    assert!(!whole.success);
    only_the_unit(&whole.errors);
    // Fixed, the same answer is read whole, through both aliases.
    let fixed = text.replace("\"grams\"", "\"gram\"");
    let recipe: RecipeProposal = clean("cookbook", &fixed).into_payload().expect("a recipe");
    assert_eq!(recipe.ingredients[1].quantity, 300.0);
    assert_eq!(recipe.steps[0].minutes, Some(10));
}

/// One description per definition: the kitchen page offers two types that use `Unit`
/// three times; its values and meanings are written once, at the first use (labelled),
/// and `Unit` is named at the two others. The cookbook, with one use, writes it out.
#[test]
fn the_unit_is_described_once_per_page() {
    let kitchen = prompt("kitchen");
    assert_eq!(kitchen.matches("// Kilograms.").count(), 1, "{kitchen}");
    assert!(kitchen.contains("\"from\":  // Unit: The unit it is in."));
    assert!(kitchen.contains("\"to\": Unit  // The unit wanted."));
    assert!(kitchen.contains("\"unit\": Unit,  // The unit of `quantity`."));
    let cookbook = prompt("cookbook");
    assert_eq!(cookbook.matches("// Kilograms.").count(), 1);
    assert!(!cookbook.contains(": Unit"), "{cookbook}");
}

/// The cookbook lets an answer offer up to three recipes: its prompt says so in the
/// one sentence that opens STRUCTURED RESPONSES, the type's common mistakes give the
/// same number, the preamble drops the seed's "at most one", and nothing else changes
/// (the same page with a count of one differs in those three places only).
#[test]
fn a_page_allowing_several_payloads_says_so_in_one_line() {
    let several = payload_prompt::PromptBuilder::for_page(Registry::global(), "cookbook")
        .unwrap()
        .build();
    let one_page = COOKBOOK.payload_count(payload_core::PayloadCount::ONE);
    let entries: Vec<_> = Registry::global().entries().to_vec();
    let one_registry = Registry::from_parts(
        entries,
        vec![one_page],
        Registry::global().global_actions().to_vec(),
    );
    let one = payload_prompt::PromptBuilder::for_page(&one_registry, "cookbook")
        .unwrap()
        .build();
    let header_several = "Up to three of these payloads per response, each where it belongs in your reply, each written after its marker.";
    let header_one = "At most one of these payloads per response, each written after its marker.";
    assert!(several.contains(header_several), "{several}");
    assert!(one.contains(header_one), "{one}");
    assert!(several.contains("Send at most three RECIPE_PROPOSAL blocks per response."));
    assert!(one.contains("Send at most one RECIPE_PROPOSAL per response."));
    let preamble = "- Give at most one structured payload per response.\n";
    assert!(one.contains(preamble) && !several.contains(preamble));
    assert!(!several.to_lowercase().contains("at most one structured"));
    // Everything else is the same text.
    let back = several.replace(header_several, header_one).replace(
        "Send at most three RECIPE_PROPOSAL blocks per response.",
        "Send at most one RECIPE_PROPOSAL per response.",
    );
    let one_without_preamble_rule = one.replacen(preamble, "", 1);
    assert_eq!(back, one_without_preamble_rule);
    // The count costs one sentence's few words, never a section.
    assert!(
        several.len() <= one.len() + 80,
        "{} against {}",
        several.len(),
        one.len()
    );
}

/// The generated docs say how many payloads the cookbook's answers may hold, and say
/// nothing of it for the kitchen (one, the default).
#[test]
fn the_docs_give_the_cookbooks_count() {
    let docs = payload_prompt::docs::render(Registry::global());
    let line = "- Payloads per answer (`Page::payload_count`): Up to three of these payloads per response, each where it belongs in your reply";
    assert_eq!(docs.matches(line).count(), 1, "{docs}");
}
