//! The cookbook: the recipes the user accepted, kept in the app's own table, and the
//! route that lists them. Its SQL is written once for SQLite and PostgreSQL (`$n`
//! parameters, `RETURNING`); only the table's auto-numbered key differs.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use payload_serve::{Accepted, ApiError, Shared, Tx, TxMode};
use recipes::RecipeProposal;
use serde::Serialize;
use serde_json::{Value, json};

/// The app's table on SQLite: each saved recipe as the JSON the model proposed (its
/// type's serialization, so it reads back as the type).
pub const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS saved_recipes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    title TEXT NOT NULL,
    servings INTEGER NOT NULL,
    recipe TEXT NOT NULL
);
";

/// The same table on PostgreSQL.
pub const POSTGRES_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS saved_recipes (
    id BIGSERIAL PRIMARY KEY,
    title TEXT NOT NULL,
    servings BIGINT NOT NULL,
    recipe TEXT NOT NULL
);
";

/// A saved recipe.
#[derive(Debug, Clone, Serialize)]
pub struct SavedRecipe {
    /// Its id.
    pub id: i64,
    /// Its name.
    pub title: String,
    /// How many it serves.
    pub servings: u32,
    /// The whole recipe.
    pub recipe: Value,
}

/// Accepting a recipe saves it (in the decision's transaction, on either database) and
/// answers its id.
pub async fn save(tx: Tx, accepted: Accepted<RecipeProposal>) -> Result<Value, ApiError> {
    let recipe = &accepted.payload;
    let json = serde_json::to_string(recipe)
        .map_err(|e| ApiError::internal(format!("the recipe cannot be written: {e}")))?;
    let saved = tx
        .query_one(
            "INSERT INTO saved_recipes (title, servings, recipe) VALUES ($1, $2, $3) RETURNING id",
            &[&recipe.title, &recipe.servings, &json],
        )
        .await?;
    let id: i64 = saved.get(0)?;
    Ok(json!({ "recipe_id": id, "title": recipe.title }))
}

/// The routes: `GET /api/recipes`.
pub fn routes() -> Router<Shared> {
    Router::new().route("/api/recipes", get(list))
}

/// The saved recipes, oldest first.
#[derive(Debug, Serialize)]
pub struct RecipesBody {
    /// The recipes.
    pub recipes: Vec<SavedRecipe>,
}

/// `GET /api/recipes`.
async fn list(State(state): State<Shared>) -> Result<Json<RecipesBody>, ApiError> {
    let tx = state.db.begin(TxMode::Read).await?;
    let rows = tx
        .query(
            "SELECT id, title, servings, recipe FROM saved_recipes ORDER BY id",
            &[],
        )
        .await?;
    let recipes = rows
        .iter()
        .map(|row| {
            let recipe: String = row.get(3)?;
            Ok(SavedRecipe {
                id: row.get(0)?,
                title: row.get(1)?,
                servings: row.get(2)?,
                recipe: serde_json::from_str(&recipe).unwrap_or(Value::Null),
            })
        })
        .collect::<Result<Vec<_>, payload_serve::StoreError>>()?;
    Ok(Json(RecipesBody { recipes }))
}
