//! # recipes-web
//!
//! The recipe assistant (`examples/recipes`) in the browser, as an app of the generic
//! chat server: what a new app writes to serve its own pages. Its payload types get
//! the generic card (built from their JSON Schemas); accepting a recipe saves it in
//! the app's own table; its page script lists the cookbook, follows a recipe in the
//! kitchen and answers the `save_recipe` action; its recorded answers are the replay
//! model.
//!
//! ```rust,ignore
//! payload_serve::App::new(registry)
//!     .title("Recipes")
//!     .pages(&["cookbook", "kitchen"])
//!     .schema_for(Backend::Sqlite, SCHEMA)
//!     .schema_for(Backend::Postgres, POSTGRES_SCHEMA)
//!     .replay(recording())
//!     .on_accept(save) // async fn save(tx: Tx, accepted: Accepted<RecipeProposal>)
//!     .routes(routes())
//!     .asset(Asset::script("recipes.js", include_str!("../assets/recipes.js")))
//! ```

#![forbid(unsafe_code)]

mod cookbook;

pub use cookbook::{POSTGRES_SCHEMA, RecipesBody, SCHEMA, SavedRecipe, routes, save};

use payload_registry::Registry;
use payload_serve::assets::Asset;
use payload_serve::{App, Backend, RecordedAnswer};

/// The pages served, the first being where the chat starts.
pub const PAGES: &[&str] = &["cookbook", "kitchen"];

/// The recipe assistant over `registry` (which must hold its pages: link `recipes`),
/// answering with its recorded answers until a model replaces them.
pub fn app(registry: &'static Registry) -> App {
    App::new(registry)
        .title("Recipes")
        .pages(PAGES)
        .schema_for(Backend::Sqlite, SCHEMA)
        .schema_for(Backend::Postgres, POSTGRES_SCHEMA)
        .replay(recording())
        .on_accept(save)
        .routes(routes())
        .asset(Asset::script(
            "recipes.js",
            include_str!("../assets/recipes.js"),
        ))
}

/// The recorded answers, in the order the replay model plays them: a recipe proposed
/// in the cookbook, then a timer and a conversion in the kitchen.
pub fn recording() -> Vec<RecordedAnswer> {
    let answer = |page, text| RecordedAnswer {
        page,
        text,
        cut: false,
    };
    vec![
        answer(
            "cookbook",
            include_str!("../../recipes/responses/cookbook-proposal.md"),
        ),
        answer(
            "kitchen",
            include_str!("../../recipes/responses/kitchen-timer.md"),
        ),
        answer(
            "kitchen",
            include_str!("../../recipes/responses/kitchen-convert.md"),
        ),
    ]
}
