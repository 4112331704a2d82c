//! The promise a preview makes about the value it previews, as a check: the property
//! tests and the `stream` fuzz target hold every `payload_progress` of an accepted
//! block to it.

use payload_schema::pointer;
use serde_json::Value;

/// Whether `preview`, with its `open` pointer, is a faithful early view of `whole`,
/// the value finally accepted: once closed (`open` is `None`) it is `whole`; before
/// that, every member or item not on the way to the open point is complete and equal to
/// `whole`'s, a string still arriving is the start of `whole`'s string, and nothing is
/// shown that `whole` does not hold. The error says where it is not.
pub(crate) fn preview_fits(
    preview: &Value,
    open: Option<&str>,
    whole: &Value,
) -> Result<(), String> {
    let Some(open) = open else {
        return if preview == whole {
            Ok(())
        } else {
            Err(format!(
                "the closed preview {preview} is not the value {whole}"
            ))
        };
    };
    let path: Vec<String> = match open.strip_prefix('/') {
        Some(rest) => rest.split('/').map(pointer::unescape_token).collect(),
        None => Vec::new(),
    };
    fits(preview, &path, whole, String::new())
}

fn fits(preview: &Value, path: &[String], whole: &Value, at: String) -> Result<(), String> {
    // `path` leads to what is still open; everything off it is complete.
    let complete = |shown: &Value, meant: &Value, at: &str| {
        if shown == meant {
            Ok(())
        } else {
            Err(format!(
                "at {at:?} the preview shows {shown}, the value holds {meant}"
            ))
        }
    };
    match (preview, whole) {
        (Value::String(shown), Value::String(meant)) if path.is_empty() => {
            if meant.starts_with(shown.as_str()) {
                Ok(())
            } else {
                Err(format!(
                    "at {at:?} the string {shown:?} does not begin {meant:?}"
                ))
            }
        }
        (Value::Object(shown), Value::Object(meant)) => {
            for (key, member) in shown {
                let inner = format!("{at}/{}", pointer::escape_token(key));
                let Some(meant) = meant.get(key) else {
                    return Err(format!(
                        "the preview shows {inner:?}, which the value does not hold"
                    ));
                };
                match path.split_first() {
                    Some((next, rest)) if next == key => fits(member, rest, meant, inner)?,
                    _ => complete(member, meant, &inner)?,
                }
            }
            Ok(())
        }
        (Value::Array(shown), Value::Array(meant)) => {
            if shown.len() > meant.len() {
                return Err(format!(
                    "at {at:?} the preview shows more items than the value holds"
                ));
            }
            for (index, (item, meant)) in shown.iter().zip(meant).enumerate() {
                let inner = format!("{at}/{index}");
                match path.split_first() {
                    Some((next, rest)) if *next == index.to_string() => {
                        fits(item, rest, meant, inner)?;
                    }
                    _ => complete(item, meant, &inner)?,
                }
            }
            Ok(())
        }
        _ => complete(preview, whole, &at),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_preview_fits_only_the_value_it_grows_into() {
        let whole = json!({"a": [1, {"b": "done", "c": "growing"}], "d": true});
        let fits = |preview: Value, open: Option<&str>| preview_fits(&preview, open, &whole);
        assert!(fits(json!({"a": [1, {"b": "done", "c": "gro"}]}), Some("/a/1/c")).is_ok());
        assert!(fits(json!({"a": [1]}), Some("/a")).is_ok());
        assert!(fits(whole.clone(), None).is_ok());
        // A complete member that differs, one the value lacks, a string that is not
        // the start of the value's, a closed preview short of the value.
        assert!(fits(json!({"a": [2]}), Some("/a")).is_err());
        assert!(fits(json!({"e": 1}), Some("")).is_err());
        assert!(fits(json!({"a": [1, {"c": "x"}]}), Some("/a/1/c")).is_err());
        assert!(fits(json!({"a": [1, {"b": "do"}]}), Some("/a/1/c")).is_err());
        assert!(fits(json!({"a": [1]}), None).is_err());
    }
}
