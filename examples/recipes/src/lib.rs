//! # recipes
//!
//! A recipe assistant, written the way a new app's author writes Rust: ordinary serde
//! habits on the payload types, two pages, one client action. It is the example the
//! issue "a new app, as its author expects it to work" measures the framework against.
//!
//! - [`RecipeProposal`] (`RECIPE_PROPOSAL`): a recipe the user reviews and saves, with
//!   nested lists (ingredients, steps, tags), a [`Unit`] enum, an ingredient quantity
//!   that models also write as `qty` and step minutes written `mins` (`#[serde(alias)]`), a preparation time held as a
//!   [`std::time::Duration`] and written as whole minutes (`#[serde(with)]` +
//!   `#[schemars(with = "u32")]`), and an optional [`chrono::NaiveDate`].
//! - [`KitchenCommand`] (`KITCHEN_COMMAND`): something the app does at once (set a
//!   timer, convert units, scale the recipe), an internally tagged enum
//!   (`#[serde(tag = "command")]`), declared `kind = "command"` so the prompt tells the
//!   model it is done when the reply arrives (a recipe is a proposal, the default).
//! - The client action `save_recipe`, offered beside the recipe it saves: the cookbook's
//!   combination rule lets buttons, and no chips, go with a recipe
//!   (`Combination::PAYLOAD_ALONE.allow_actions()`); the kitchen lets any block go
//!   with any other.
//!
//! Linking this crate registers both payload types and the two pages, [`COOKBOOK`] and
//! [`KITCHEN`].

#![forbid(unsafe_code)]

pub mod examples;
mod minutes;
mod pages;
mod types;

pub use pages::{COOKBOOK, KITCHEN, SAVE_RECIPE};
pub use types::*;

#[cfg(test)]
mod tests;
