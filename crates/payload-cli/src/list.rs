//! `payload pages` and `payload types`: what the registry holds, as JSON.

use crate::error::CliError;
use crate::print_json;
use payload_registry::Registry;
use serde_json::{Value, json};
use std::io::Write;
use std::process::ExitCode;

/// Runs `payload pages`: each page with its payload types, actions and suggestions.
pub(crate) fn pages(registry: &Registry, out: &mut dyn Write) -> Result<ExitCode, CliError> {
    let pages: Vec<Value> = registry
        .pages()
        .map(|info| {
            json!({
                "name": info.page.name,
                "description": info.page.description,
                "payloads": info.payloads.iter().map(|t| t.name).collect::<Vec<_>>(),
                "actions": info.actions.iter().map(|a| a.action).collect::<Vec<_>>(),
                "suggestions": info.page.suggestions,
            })
        })
        .collect();
    print_json(out, &pages)?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `payload types`: each payload type with its marker, pages and what it lacks.
pub(crate) fn types(registry: &Registry, out: &mut dyn Write) -> Result<ExitCode, CliError> {
    let warnings = registry.warnings();
    let types: Vec<Value> = registry
        .types()
        .map(|t| {
            let lacks: Vec<String> = warnings
                .iter()
                .filter(|w| w.type_name() == t.name)
                .map(ToString::to_string)
                .collect();
            json!({
                "name": t.name,
                "marker": t.marker,
                "description": t.description,
                "pages": registry.pages_offering(t.name),
                "warnings": lacks,
            })
        })
        .collect();
    print_json(out, &types)?;
    Ok(ExitCode::SUCCESS)
}
