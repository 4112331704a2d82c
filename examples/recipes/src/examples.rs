//! The examples the prompts show, and the command summaries of the payload manifest.

use crate::{Ingredient, KitchenCommand, RecipeProposal, Step, Unit};
use std::time::Duration;

/// A shakshuka for two: the example of `RECIPE_PROPOSAL`.
pub fn shakshuka() -> RecipeProposal {
    let ingredient = |name: &str, quantity: f64, unit: Unit| Ingredient {
        name: name.to_string(),
        quantity,
        unit,
        note: None,
    };
    RecipeProposal {
        title: "Shakshuka".to_string(),
        servings: 2,
        prep_time: Duration::from_secs(25 * 60),
        ingredients: vec![
            ingredient("eggs", 4.0, Unit::Piece),
            ingredient("chopped tomatoes", 400.0, Unit::Gram),
            ingredient("olive oil", 1.0, Unit::Tablespoon),
        ],
        steps: vec![
            Step {
                text: "Simmer the tomatoes in the oil until thick.".to_string(),
                minutes: Some(10),
            },
            Step {
                text: "Make four wells, crack in the eggs, cover until set.".to_string(),
                minutes: Some(6),
            },
        ],
        tags: vec!["vegetarian".to_string(), "quick".to_string()],
        best_before: None,
    }
}

/// A four-minute tea timer: the example of `KITCHEN_COMMAND`.
pub fn tea_timer() -> KitchenCommand {
    KitchenCommand::SetTimer {
        label: "tea".to_string(),
        duration: Duration::from_secs(4 * 60),
    }
}

/// One line per command for the payload manifest.
pub fn command_summary(command: &KitchenCommand) -> String {
    match command {
        KitchenCommand::SetTimer { label, duration } => {
            format!("timer '{label}' for {} min", duration.as_secs() / 60)
        }
        KitchenCommand::ConvertUnits { quantity, from, to } => {
            format!("convert {quantity} {from:?} to {to:?}")
        }
        KitchenCommand::ScaleRecipe { servings } => format!("scale to {servings} servings"),
    }
}
