//! The recipe assistant's payload types, with the serde habits of a new app.

use chrono::NaiveDate;
use payload_core::{LlmPayload, Partial};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// A recipe for the user to review: they read it, change what they like, and save it
/// to their cookbook with the save_recipe action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[payload(
    name = "recipe_proposal",
    marker = "RECIPE_PROPOSAL",
    register,
    partial,
    example = crate::examples::shakshuka,
    rule = "quantities are positive numbers in the ingredient's unit",
    rule = "steps are in the order they are done, one action each",
    summary = "{title}, serves {servings} ({ingredients.len} ingredients)"
)]
pub struct RecipeProposal {
    /// The recipe's name.
    pub title: String,
    /// How many people it serves.
    pub servings: u32,
    /// Preparation time, in whole minutes.
    #[serde(with = "crate::minutes")]
    #[schemars(with = "u32")]
    pub prep_time: Duration,
    /// What goes in, in the order it is used.
    pub ingredients: Vec<Ingredient>,
    /// How to make it.
    pub steps: Vec<Step>,
    /// Short tags such as "vegetarian" or "quick".
    #[serde(default)]
    pub tags: Vec<String>,
    /// The last day the dish keeps, when it is made ahead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_before: Option<NaiveDate>,
}

/// One ingredient and how much of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Partial)]
pub struct Ingredient {
    /// What it is ("eggs", "olive oil").
    pub name: String,
    /// How much, in `unit`.
    #[serde(alias = "qty")]
    pub quantity: f64,
    /// The unit of `quantity`.
    pub unit: Unit,
    /// How to prepare it ("finely chopped").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A unit of measure in the kitchen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Partial)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// Grams.
    Gram,
    /// Kilograms.
    Kilogram,
    /// Millilitres.
    Millilitre,
    /// Litres.
    Litre,
    /// Teaspoons.
    Teaspoon,
    /// Tablespoons.
    Tablespoon,
    /// Cups.
    Cup,
    /// Whole items (3 eggs).
    Piece,
}

/// One step of a recipe.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Partial)]
pub struct Step {
    /// What to do.
    pub text: String,
    /// How long it takes, in whole minutes, when it is a wait.
    #[serde(default, alias = "mins", skip_serializing_if = "Option::is_none")]
    pub minutes: Option<u32>,
}

/// Something the app does at once in the kitchen, with no review: set a timer, convert
/// a quantity, scale the recipe on screen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, LlmPayload)]
#[serde(tag = "command", rename_all = "snake_case")]
#[payload(
    name = "kitchen_command",
    marker = "KITCHEN_COMMAND",
    kind = "command",
    register,
    partial,
    example = crate::examples::tea_timer,
    summary = crate::examples::command_summary
)]
pub enum KitchenCommand {
    /// Start a countdown timer.
    SetTimer {
        /// What the timer is for ("pasta").
        label: String,
        /// How long, in whole minutes.
        #[serde(with = "crate::minutes")]
        #[schemars(with = "u32")]
        duration: Duration,
    },
    /// Convert a quantity from one unit to another and show the result.
    ConvertUnits {
        /// How much.
        quantity: f64,
        /// The unit it is in.
        from: Unit,
        /// The unit wanted.
        to: Unit,
    },
    /// Scale the recipe on screen to a number of servings.
    ScaleRecipe {
        /// The servings wanted.
        servings: u32,
    },
}
