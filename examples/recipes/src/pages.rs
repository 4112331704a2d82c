//! The recipe assistant's pages and its client action.

use crate::{KitchenCommand, RecipeProposal};
use payload_core::{LlmPayload, PayloadCount, suggestions::ActionSpec, suggestions::Combination};
use payload_registry::Page;
use serde_json::Value;

/// Saves the recipe the model proposed to the user's cookbook.
pub const SAVE_RECIPE: ActionSpec =
    ActionSpec::client("save_recipe", "Save the proposed recipe to the cookbook");

/// The cookbook: talk about what to cook and get recipes to review and save.
pub const COOKBOOK: Page = Page::new("cookbook")
    .description("The user's cookbook")
    .instructions(
        "The user is planning what to cook. Ask about what they have and like, then \
         propose one recipe with RECIPE_PROPOSAL, with a save_recipe button beside it. \
         When they cannot choose, offer two or three recipes as alternatives, each \
         introduced by a sentence of its own, and no button: each has its own Accept.",
    )
    .payloads(&[<RecipeProposal as LlmPayload>::TYPE])
    .actions(&[SAVE_RECIPE])
    // The save button goes with the recipe it saves; chips wait until the user has
    // read it.
    .combination(Combination::PAYLOAD_ALONE.allow_actions())
    // Up to three recipes in one answer, as alternatives to pick from.
    .payload_count(PayloadCount::at_most(3))
    .starters(&["I have eggs and a tin of tomatoes: what can I cook?"])
    .context(cookbook_context);

/// The kitchen: the user is cooking one recipe and asks for timers and conversions.
/// Any block goes with any other (the default combination): a timer with chips for
/// what comes next.
pub const KITCHEN: Page = Page::new("kitchen")
    .description("Cooking one recipe, step by step")
    .instructions(
        "The user is cooking the current recipe with their hands busy. Answer briefly; \
         when they ask for a timer, a conversion or a different number of servings, \
         send it with KITCHEN_COMMAND and the app does it at once.",
    )
    .payloads(&[
        <KitchenCommand as LlmPayload>::TYPE,
        <RecipeProposal as LlmPayload>::TYPE,
    ])
    .actions(&[SAVE_RECIPE])
    .starters(&[
        "Set a timer for the sauce",
        "How much is 2 cups of stock in millilitres?",
    ])
    .context(kitchen_context);

/// The CURRENT CONTEXT of the cookbook: how many recipes it holds.
fn cookbook_context(context: &Value) -> String {
    match context.get("saved").and_then(Value::as_u64) {
        Some(saved) => format!("The cookbook holds {saved} saved recipes."),
        None => "The cookbook is open.".to_string(),
    }
}

/// The CURRENT CONTEXT of the kitchen: the step the user is on.
fn kitchen_context(context: &Value) -> String {
    match context.get("step").and_then(Value::as_u64) {
        Some(step) => format!("The user is on step {step} of the current recipe."),
        None => "The user is cooking the current recipe.".to_string(),
    }
}

payload_registry::register_page!(COOKBOOK);
payload_registry::register_page!(KITCHEN);
