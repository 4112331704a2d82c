//! `payload schema NAME [--dialect D]`: a registered type's JSON Schema in a dialect;
//! a type a provider's dialect cannot take is an error that says why.

use crate::args::SchemaArgs;
use crate::error::CliError;
use crate::{find_type, print_json};
use payload_core::schema::Dialect;
use payload_registry::Registry;
use std::io::Write;
use std::process::ExitCode;

/// Runs `payload schema`.
pub(crate) fn command(
    registry: &Registry,
    args: SchemaArgs,
    out: &mut dyn Write,
) -> Result<ExitCode, CliError> {
    let SchemaArgs { name, dialect } = args;
    let payload = find_type(registry, &name)?;
    let schema = match dialect {
        // The best-effort schema of a type that has no strict form would be
        // refused by the API: say why instead.
        Dialect::OpenAiStrict => {
            payload
                .strict_schema()
                .map_err(|refusal| CliError::NotStrict {
                    name: name.clone(),
                    refusal,
                })?
        }
        // A provider's native form: what it does not enforce left out (checked
        // locally), or why the type cannot be sent at all.
        Dialect::AnthropicStrict | Dialect::Gemini => {
            payload_schema::dialect::native::native(&payload.schema(Dialect::Draft2020_12), dialect)
                .map(|native| native.schema)
                .map_err(|refusal| CliError::NotStrict {
                    name: name.clone(),
                    refusal,
                })?
        }
        _ => payload.schema(dialect),
    };
    print_json(out, &schema)?;
    Ok(ExitCode::SUCCESS)
}
