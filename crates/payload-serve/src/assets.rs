//! The page: plain HTML, CSS and JavaScript compiled into the binary, so an app needs
//! no build step and no files beside it. The chat tray (`chat.js`), the payload cards
//! (`payloads.js`, with the generic card built from a type's JSON Schema) and the
//! Markdown renderer are every app's; an app adds its own scripts and style sheets
//! ([`crate::App::asset`]), which draw its pages, register its
//! cards and answer its client actions. The [`crate::security`] layers serve it all
//! with a Content-Security-Policy that allows only these files' scripts and styles: a
//! second wall behind the page's rule of never turning model text into HTML.

use crate::error::ApiError;
use crate::extract::Path;
use crate::state::AppState;
use axum::extract::State;
use axum::http::header;
use axum::response::{Html, IntoResponse, Response};
use std::sync::Arc;

/// A file served under `/assets/{name}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Asset {
    /// The name the page asks for.
    pub name: &'static str,
    /// Its content type.
    pub content_type: &'static str,
    /// Its content.
    pub body: &'static str,
}

impl Asset {
    /// A script.
    pub const fn script(name: &'static str, body: &'static str) -> Asset {
        Asset {
            name,
            content_type: "text/javascript; charset=utf-8",
            body,
        }
    }

    /// A style sheet.
    pub const fn style(name: &'static str, body: &'static str) -> Asset {
        Asset {
            name,
            content_type: "text/css; charset=utf-8",
            body,
        }
    }
}

/// Every app's files.
const COMMON: &[Asset] = &[
    Asset::style("app.css", include_str!("../assets/app.css")),
    Asset::script("markdown.js", include_str!("../assets/markdown.js")),
    Asset::script("payloads.js", include_str!("../assets/payloads.js")),
    Asset::script("chat.js", include_str!("../assets/chat.js")),
];

const INDEX: &str = include_str!("../assets/index.html");

/// The page and the files of one app.
#[derive(Debug, Clone)]
pub struct Assets {
    index: String,
    files: Vec<Asset>,
}

impl Assets {
    /// The page titled `title`, loading the app's `files` after every app's.
    pub fn new(title: &str, files: Vec<Asset>) -> Assets {
        let is_script = |a: &&Asset| a.content_type.starts_with("text/javascript");
        let styles: String = files
            .iter()
            .filter(|a| !is_script(a))
            .map(|a| {
                format!(
                    "  <link rel=\"stylesheet\" href=\"/assets/{}\">\n",
                    escape(a.name)
                )
            })
            .collect();
        let scripts: String = files
            .iter()
            .filter(is_script)
            .map(|a| {
                format!(
                    "  <script src=\"/assets/{}\" defer></script>\n",
                    escape(a.name)
                )
            })
            .collect();
        let index = INDEX
            .replace("{{title}}", &escape(title))
            .replace("{{styles}}", &styles)
            .replace("{{scripts}}", &scripts);
        let mut all = COMMON.to_vec();
        all.extend(files);
        Assets { index, files: all }
    }

    fn find(&self, name: &str) -> Option<&Asset> {
        self.files.iter().find(|a| a.name == name)
    }
}

/// Text safe inside HTML text and double-quoted attributes.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `GET /`: the page.
pub async fn index(State(state): State<Arc<AppState>>) -> Html<String> {
    Html(state.assets.index.clone())
}

/// `GET /assets/{name}`: a script or style sheet.
pub async fn asset(
    State(state): State<Arc<AppState>>,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    let asset = state
        .assets
        .find(&name)
        .ok_or_else(|| ApiError::not_found("no such file"))?;
    Ok(([(header::CONTENT_TYPE, asset.content_type)], asset.body).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_names_the_app_and_loads_its_files_after_every_apps() {
        let assets = Assets::new(
            "Recipes <&>",
            vec![
                Asset::script("recipes.js", ""),
                Asset::style("recipes.css", ""),
            ],
        );
        assert!(
            assets
                .index
                .contains("<title>Recipes &lt;&amp;&gt;</title>")
        );
        let chat = assets.index.find("/assets/chat.js").unwrap();
        let app = assets.index.find("/assets/recipes.js").unwrap();
        assert!(chat < app);
        assert!(assets.index.contains("href=\"/assets/recipes.css\""));
        assert!(assets.find("recipes.js").is_some() && assets.find("chat.js").is_some());
        assert!(!assets.index.contains("{{"));
    }
}
