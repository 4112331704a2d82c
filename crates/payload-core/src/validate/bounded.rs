//! Validation whose errors are bounded at the source (docs/spec.md §8.1).
//!
//! `jsonschema` gathers every error of a value before it hands out the first one, so a
//! response of 400,000 empty objects where each item needs members would build 400,000
//! errors, and only then could a cap drop them. Instead the value is validated in
//! pieces:
//!
//! - a **pruned copy** is validated first: in document order, the items of arrays and
//!   the members of maps are kept until [`BUDGET`] items have been kept; past it, every
//!   array or map whose schema judges each item on its own (`items`,
//!   `additionalProperties`, and nothing that compares the items) keeps only what its
//!   `minItems` / `minProperties` needs, or one more than its `maxItems` /
//!   `maxProperties` when the value is over it (so the count's verdict is kept);
//! - the items left out are then validated **one by one** against the item schema (a
//!   valid item costs one quick check and nothing else), each with the same pruning
//!   inside, so every piece's errors are bounded by the budget, not by the value.
//!
//! Errors are converted only while the report has room; past the cap they are counted
//! (docs/spec.md §8.1: "the rest are counted in one final error").
//!
//! Pruning only happens below schemas whose verdict cannot change when items deeper
//! down are removed (a list of such keywords, [`descends`]), reached through `$ref`s
//! and unions the value itself decides (an `Option`, or a tagged enum's tag). Anywhere
//! else the value is validated whole, as before.
//!
//! An item schema is entered through its own validator: the root schema with its own
//! keywords moved under `$defs` and a `$ref` to the item schema's location, so every
//! `$ref` inside still resolves ([`entry_schema`]). These are compiled once per location
//! and kept with the type's compiled schema.

use crate::caps::{Capped, MAX_ERRORS};
use crate::error::PayloadError;
use crate::schema::applies::{Choice, choose};
use crate::validate::schema_errors;
use jsonschema::Validator;
use payload_schema::keywords::{self, Property, never_refuses};
use payload_schema::pointer;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// How many array items and map members the pruned copy keeps before it starts cutting.
const BUDGET: usize = 256;

use crate::limits::MAX_DEPTH;
use payload_schema::limits::MAX_REF_HOPS;

/// Where the root schema's own keywords go in an entry schema.
const HOME: &str = "__payload_root";

/// A validator that enters the root schema at one location.
pub(super) struct Entry {
    /// The schema it was compiled from (errors' schema paths point into it).
    schema: Value,
    validator: Validator,
}

/// The entries compiled so far, by location (`None`: the location does not compile on
/// its own, so nothing under it is pruned).
#[derive(Default)]
pub(super) struct Entries {
    map: Mutex<HashMap<String, Option<Arc<Entry>>>>,
}

impl Entries {
    fn get(&self, root: &Value, location: &str) -> Option<Arc<Entry>> {
        let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        map.entry(location.to_string())
            .or_insert_with(|| {
                let schema = entry_schema(root, location)?;
                let validator = jsonschema::options()
                    .should_validate_formats(true)
                    .build(&schema)
                    .ok()?;
                Some(Arc::new(Entry { schema, validator }))
            })
            .clone()
    }
}

/// Pushes every way `value` fails the `root` schema (compiled into `validator`, its
/// item schemas' validators kept in `entries`) to `errors` (the caller knows it fails).
pub(super) fn validate(
    root: &Value,
    validator: &Validator,
    entries: &Entries,
    value: &Value,
    errors: &mut Capped<PayloadError>,
) {
    let piece = Piece {
        root,
        entries,
        schema: root,
        validator,
        location: "",
    };
    piece.validate(value, "", errors, 0);
}

/// One validation entry point: the root, or an item schema's [`Entry`].
struct Piece<'c> {
    /// The type's whole schema, where every entry starts.
    root: &'c Value,
    entries: &'c Entries,
    schema: &'c Value,
    validator: &'c Validator,
    location: &'c str,
}

impl Piece<'_> {
    /// Validates `value` (known to fail) whose pointer in the whole value is `prefix`.
    fn validate(
        &self,
        value: &Value,
        prefix: &str,
        errors: &mut Capped<PayloadError>,
        depth: usize,
    ) {
        let root = self.root;
        let mut pruner = Pruner {
            root,
            budget: BUDGET,
            cuts: Vec::new(),
            path: String::new(),
        };
        pruner.walk(value, Some(self.location), 0, false);
        let pruned = if pruner.cuts.is_empty() {
            None
        } else {
            // The same decisions again, this time building the copy.
            let mut copier = Pruner {
                root,
                budget: BUDGET,
                cuts: Vec::new(),
                path: String::new(),
            };
            copier.walk(value, Some(self.location), 0, true)
        };
        let target = pruned.as_ref().unwrap_or(value);
        if prefix.is_empty() {
            schema_errors::collect(self.schema, self.validator.iter_errors(target), errors);
        } else {
            // Past the cap, errors are only counted: convert into a report with no room.
            let mut piece = Capped::new(if errors.is_full() { 0 } else { MAX_ERRORS });
            schema_errors::collect(self.schema, self.validator.iter_errors(target), &mut piece);
            let (found, omitted) = piece.into_parts();
            for error in found {
                errors.push(error.nested_under(prefix));
            }
            errors.count_omitted(omitted);
        }
        drop(pruned);
        if depth >= MAX_DEPTH {
            return;
        }
        for cut in &pruner.cuts {
            self.validate_cut(value, cut, prefix, errors, depth);
        }
    }

    /// Validates one item a cut left out, whose pointer is `at()`. `counted` is the
    /// last item whose errors were only counted, and how many it had: an equal item
    /// past the cap is counted the same without being validated again.
    fn check_item<'v>(
        &self,
        item: &'v Value,
        at: impl FnOnce() -> String,
        errors: &mut Capped<PayloadError>,
        depth: usize,
        counted: &mut Option<(&'v Value, usize)>,
    ) {
        let full = errors.is_full();
        if let (true, Some((before, count))) = (full, *counted) {
            if before == item {
                errors.count_omitted(count);
                return;
            }
        }
        if self.validator.is_valid(item) {
            return;
        }
        let omitted = errors.omitted();
        self.validate(item, &at(), errors, depth + 1);
        if full {
            *counted = Some((item, errors.omitted() - omitted));
        }
    }

    /// Validates the items a cut left out, one by one.
    fn validate_cut(
        &self,
        value: &Value,
        cut: &Cut,
        prefix: &str,
        errors: &mut Capped<PayloadError>,
        depth: usize,
    ) {
        let Some(entry) = self.entries.get(self.root, &cut.items) else {
            return;
        };
        let piece = Piece {
            root: self.root,
            entries: self.entries,
            schema: &entry.schema,
            validator: &entry.validator,
            location: &cut.items,
        };
        // Past the cap an item's errors are only counted, and an item equal to the one
        // counted before it has as many (validation does not depend on where the item
        // sits): its count is taken again instead of building its errors to count them.
        let mut counted = None;
        let at = |token: String| format!("{prefix}{}/{token}", cut.container);
        match value.pointer(&cut.container) {
            Some(Value::Array(items)) => {
                for (index, item) in items.iter().enumerate().skip(cut.from) {
                    piece.check_item(item, || at(index.to_string()), errors, depth, &mut counted);
                }
            }
            Some(Value::Object(members)) => {
                for (key, member) in members.iter().skip(cut.from) {
                    let token = || at(pointer::escape_token(key));
                    piece.check_item(member, token, errors, depth, &mut counted);
                }
            }
            _ => {}
        }
    }
}

/// Items of one array or map that the pruned copy left out.
#[derive(Debug, Clone, PartialEq)]
struct Cut {
    /// The container's pointer, relative to the piece's value.
    container: String,
    /// The location of the schema each item is validated against.
    items: String,
    /// The first item left out (items keep their order).
    from: usize,
}

/// Decides, in document order, which items the pruned copy keeps.
struct Pruner<'a> {
    root: &'a Value,
    /// How many more items may be kept before prunable containers are cut.
    budget: usize,
    cuts: Vec<Cut>,
    /// The pointer of the value being visited.
    path: String,
}

impl Pruner<'_> {
    /// Visits `value`, governed by the schema at `location` (`None`: unknown, nothing
    /// below is pruned). With `copy`, returns the pruned copy.
    fn walk(
        &mut self,
        value: &Value,
        location: Option<&str>,
        depth: usize,
        copy: bool,
    ) -> Option<Value> {
        let settled = location
            .filter(|_| depth < MAX_DEPTH)
            .and_then(|l| settle(self.root, l, value));
        let schema = settled
            .as_deref()
            .and_then(|l| self.root.pointer(l))
            .filter(|s| descends(s));
        let (Some(schema), Some(location)) = (schema, settled.as_deref()) else {
            // Not prunable here: items still count against the budget.
            self.spend(value);
            return copy.then(|| value.clone());
        };
        match value {
            Value::Array(items) => {
                let keep = self.keep(
                    items.len(),
                    schema,
                    "items",
                    "minItems",
                    "maxItems",
                    &["prefixItems"],
                );
                if keep < items.len() {
                    self.cut(location, "items", schema, keep);
                }
                let mut kept = Vec::new();
                for (index, item) in items.iter().take(keep).enumerate() {
                    let child = item_location(schema, location, index);
                    let len = self.path.len();
                    pointer::push_index(&mut self.path, index);
                    let built = self.walk(item, child.as_deref(), depth + 1, copy);
                    self.path.truncate(len);
                    kept.extend(built);
                }
                copy.then_some(Value::Array(kept))
            }
            Value::Object(members) => {
                let keep = self.keep(
                    members.len(),
                    schema,
                    "additionalProperties",
                    "minProperties",
                    "maxProperties",
                    &keywords::with(Property::NamesMembers).collect::<Vec<_>>(),
                );
                if keep < members.len() {
                    self.cut(location, "additionalProperties", schema, keep);
                }
                let mut kept = Map::new();
                for (key, member) in members.iter().take(keep) {
                    let child = member_location(schema, location, key);
                    let len = self.path.len();
                    self.path.push('/');
                    self.path.push_str(&pointer::escape_token(key));
                    let built = self.walk(member, child.as_deref(), depth + 1, copy);
                    self.path.truncate(len);
                    if let Some(built) = built {
                        kept.insert(key.clone(), built);
                    }
                }
                copy.then_some(Value::Object(kept))
            }
            _ => copy.then(|| value.clone()),
        }
    }

    /// How many of a container's `len` items to keep: all of them unless its schema
    /// judges items one by one (`each` is a schema, none of `blocking` is present) and
    /// the budget is spent; then what its minimum (`min`) needs, and one more than its
    /// maximum (`max`) when the container is over it, so the pruned copy keeps the
    /// verdict of both counts (a cap on a list must not make a long list validate whole).
    fn keep(
        &mut self,
        len: usize,
        schema: &Value,
        each: &str,
        min: &str,
        max: &str,
        blocking: &[&str],
    ) -> usize {
        let prunable = matches!(schema.get(each), Some(Value::Object(_) | Value::Bool(true)))
            && !blocking.iter().any(|k| schema.get(*k).is_some());
        let count = |keyword: &str| {
            schema
                .get(keyword)
                .and_then(Value::as_u64)
                .map(|m| usize::try_from(m).unwrap_or(usize::MAX))
        };
        let keep = if prunable {
            let least = count(min).unwrap_or(0);
            let over = count(max)
                .filter(|&most| len > most)
                .map_or(0, |most| most + 1);
            len.min(self.budget.max(least).max(over))
        } else {
            len
        };
        self.budget = self.budget.saturating_sub(keep);
        keep
    }

    fn cut(&mut self, location: &str, each: &str, schema: &Value, from: usize) {
        // Items any value satisfies (`items: true`) need no checking.
        if schema.get(each) == Some(&Value::Bool(true)) {
            return;
        }
        self.cuts.push(Cut {
            container: self.path.clone(),
            items: format!("{location}/{each}"),
            from,
        });
    }

    /// Counts the items of an unpruned subtree's top container against the budget.
    fn spend(&mut self, value: &Value) {
        let len = match value {
            Value::Array(items) => items.len(),
            Value::Object(members) => members.len(),
            _ => 0,
        };
        self.budget = self.budget.saturating_sub(len);
    }
}

/// Whether pruning may go below `schema`: it is made of keywords whose verdict never
/// changes when items deeper down are removed
/// ([`Property::KeepsVerdictWhenPruned`]) and keywords that never refuse.
fn descends(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => map
            .keys()
            .all(|k| keywords::has(k, Property::KeepsVerdictWhenPruned) || never_refuses(k)),
        _ => false,
    }
}

/// The location of the schema that governs `value` where `location` does: through
/// `$ref`s with only annotations beside them, and through unions made of nothing else
/// whose branch the value decides (an `Option`, a tagged enum). `None` where that is
/// not clear.
fn settle(root: &Value, location: &str, value: &Value) -> Option<String> {
    let mut location = location.to_string();
    for _ in 0..MAX_REF_HOPS {
        let schema = root.pointer(&location)?.as_object()?;
        if let Some(reference) = schema.get("$ref") {
            if !schema.keys().all(|k| k == "$ref" || never_refuses(k)) {
                return None;
            }
            let target = reference.as_str()?.strip_prefix('#')?;
            if target.contains('%') {
                return None;
            }
            location = target.to_string();
            continue;
        }
        let union = ["oneOf", "anyOf"]
            .into_iter()
            .find(|k| schema.contains_key(*k));
        let Some(keyword) = union else {
            return Some(location);
        };
        if !schema.keys().all(|k| k == keyword || never_refuses(k)) {
            return None;
        }
        let branches = schema.get(keyword)?.as_array()?;
        match choose(root, branches, value) {
            Choice::One(index) => location = format!("{location}/{keyword}/{index}"),
            _ => return None,
        }
    }
    None
}

fn item_location(schema: &Value, location: &str, index: usize) -> Option<String> {
    if let Some(prefix) = schema.get("prefixItems").and_then(Value::as_array) {
        if index < prefix.len() {
            return Some(format!("{location}/prefixItems/{index}"));
        }
    }
    match schema.get("items") {
        Some(Value::Object(_)) => Some(format!("{location}/items")),
        _ => None,
    }
}

fn member_location(schema: &Value, location: &str, key: &str) -> Option<String> {
    if schema.get("properties").and_then(|p| p.get(key)).is_some() {
        return Some(format!(
            "{location}/properties/{}",
            pointer::escape_token(key)
        ));
    }
    if schema.get("patternProperties").is_some() {
        return None;
    }
    match schema.get("additionalProperties") {
        Some(Value::Object(_)) => Some(format!("{location}/additionalProperties")),
        _ => None,
    }
}

/// A schema that validates what the root's schema at `location` validates: the root's
/// own keywords move under `$defs/__payload_root` (references to them are rewritten to
/// follow), and the new root is a `$ref` to the location.
fn entry_schema(root: &Value, location: &str) -> Option<Value> {
    let mut home = root.as_object()?.clone();
    let mut defs = match home.remove("$defs") {
        Some(Value::Object(defs)) => defs,
        _ => Map::new(),
    };
    let dialect = home.remove("$schema");
    let mut home = Value::Object(home);
    rewrite_refs(&mut home);
    for def in defs.values_mut() {
        rewrite_refs(def);
    }
    defs.insert(HOME.to_string(), home);
    let target = if location.starts_with("/$defs/") {
        location.to_string()
    } else {
        format!("/$defs/{HOME}{location}")
    };
    let mut entry = json!({"$defs": defs, "$ref": format!("#{}", encode_fragment(&target))});
    if let Some(dialect) = dialect {
        entry["$schema"] = dialect;
    }
    Some(entry)
}

/// Points every local `$ref` that led into the root's own keywords into their new home.
fn rewrite_refs(schema: &mut Value) {
    let mut stack = vec![schema];
    while let Some(node) = stack.pop() {
        match node {
            Value::Object(map) => {
                if let Some(Value::String(reference)) = map.get_mut("$ref") {
                    if let Some(pointer) = reference.strip_prefix('#') {
                        if !pointer.starts_with("/$defs/") {
                            *reference = format!("#/$defs/{HOME}{pointer}");
                        }
                    }
                }
                stack.extend(map.values_mut());
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
}

/// A JSON Pointer written as a URI fragment: bytes outside the fragment's characters
/// are percent-encoded.
fn encode_fragment(pointer: &str) -> String {
    let mut out = String::with_capacity(pointer.len());
    for byte in pointer.bytes() {
        let plain = byte.is_ascii_alphanumeric() || b"-._~/$!&'()*+,;=:@".contains(&byte);
        if plain {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::compiled::CompiledSchema;

    fn compiled() -> CompiledSchema {
        CompiledSchema::new(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "operations": {"type": "array", "items": {"$ref": "#/$defs/Op"}},
                "tags": {"type": "object", "additionalProperties": {"type": "integer"}},
                "unique": {"type": "array", "uniqueItems": true, "items": {"type": "integer"}},
                "odd key/~": {"type": "array", "items": {"type": "string"}}
            },
            "required": ["operations"],
            "$defs": {"Op": {"oneOf": [
                {"type": "object", "properties": {"action": {"const": "add"}, "name": {"type": "string"}},
                 "required": ["action", "name"]},
                {"type": "object", "properties": {"action": {"const": "drop"}, "id": {"type": "integer"}},
                 "required": ["action", "id"]}
            ]}}
        }))
    }

    fn errors(value: &Value) -> Vec<PayloadError> {
        let mut errors = Capped::errors();
        compiled().validate_into(value, &mut errors);
        errors.finish()
    }

    #[test]
    fn errors_past_the_budget_keep_their_paths_and_messages() {
        let mut ops: Vec<Value> = (0..300)
            .map(|i| json!({"action": "add", "name": format!("n{i}")}))
            .collect();
        ops[5] = json!({"action": "drop"});
        ops[290] = json!({"action": "drop", "id": "x"});
        let found = errors(&json!({"operations": ops}));
        let paths: Vec<&str> = found.iter().map(|e| e.path()).collect();
        assert_eq!(
            paths,
            ["/operations/5/id", "/operations/290/id"],
            "{found:#?}"
        );
        assert!(
            found[0]
                .message()
                .starts_with("required member 'id' is missing")
        );
        assert!(
            found[1].message().ends_with("(action \"drop\")"),
            "{}",
            found[1].message()
        );
    }

    #[test]
    fn the_same_errors_as_whole_validation_for_maps_and_odd_keys() {
        let mut tags = Map::new();
        for i in 0..400 {
            tags.insert(format!("t{i}"), json!(i));
        }
        tags.insert("bad".into(), json!("x"));
        let value = json!({"operations": [], "tags": tags, "odd key/~": (0..300).map(|i| if i == 299 { json!(1) } else { json!("s") }).collect::<Vec<_>>()});
        let found = errors(&value);
        let paths: Vec<&str> = found.iter().map(|e| e.path()).collect();
        assert_eq!(paths, ["/tags/bad", "/odd key~1~0/299"], "{found:#?}");
    }

    #[test]
    fn containers_whose_items_are_compared_are_not_pruned() {
        let unique: Vec<Value> = (0..300).map(|i| json!(i % 299)).collect();
        let found = errors(&json!({"operations": [], "unique": unique}));
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].path(), "/unique");
    }

    #[test]
    fn many_failing_items_are_counted_not_built() {
        let ops: Vec<Value> = (0..5000).map(|_| json!({})).collect();
        let found = errors(&json!({"operations": ops}));
        assert_eq!(found.len(), MAX_ERRORS + 1);
        assert_eq!(found[99].path(), "/operations/99/action");
        assert!(
            found[100].message().starts_with("4900 more"),
            "{}",
            found[100].message()
        );
    }

    /// Past the cap, an item equal to the one before it is counted as that one was:
    /// the count is what each item alone has, in runs of equal items and between them.
    #[test]
    fn equal_failing_items_past_the_cap_are_counted_as_each_alone() {
        let kinds = [
            json!({}),
            json!({"action": "drop"}),
            json!({"action": "add", "name": 7, "extra": true}),
            json!({"action": "stay"}),
            json!({"action": "add", "name": "fine"}),
        ];
        let ops: Vec<Value> = (0..1200)
            .map(|i| kinds[(i / 7) % kinds.len()].clone())
            .collect();
        let alone: usize = ops
            .iter()
            .map(|op| errors(&json!({"operations": [op]})).len())
            .sum();
        let found = errors(&json!({"operations": ops}));
        assert_eq!(found.len(), MAX_ERRORS + 1);
        let more = alone - MAX_ERRORS;
        assert!(
            found[MAX_ERRORS]
                .message()
                .starts_with(&format!("{more} more")),
            "{more}: {}",
            found[MAX_ERRORS].message()
        );
    }

    #[test]
    fn a_capped_list_is_pruned_and_keeps_its_count_verdict() {
        let capped = CompiledSchema::new(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {"names": {"type": "array", "maxItems": 500, "items": {"type": "string"}}},
        }));
        let check = |count: usize, bad: Option<usize>| {
            let names: Vec<Value> = (0..count)
                .map(|i| if Some(i) == bad { json!(7) } else { json!("n") })
                .collect();
            let mut errors = Capped::errors();
            capped.validate_into(&json!({"names": names}), &mut errors);
            errors.finish()
        };
        // Under the cap, pruned as before: one error, far past the budget.
        let found = check(400, Some(399));
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].path(), "/names/399");
        // Over it: the count is reported (without printing the list), and an item past
        // the pruned part is still checked one by one.
        let found = check(100_000, Some(90_000));
        let paths: Vec<&str> = found.iter().map(|e| e.path()).collect();
        assert_eq!(paths, ["/names", "/names/90000"], "{found:#?}");
        assert_eq!(found[0].message(), "more than 500 items");
        // Exactly at the cap: valid.
        assert!(check(500, None).is_empty());
    }

    #[test]
    fn entry_schemas_resolve_the_roots_references() {
        let root = compiled().schema().clone();
        let entry = entry_schema(&root, "/properties/operations/items").unwrap();
        let validator = jsonschema::validator_for(&entry).unwrap();
        assert!(validator.is_valid(&json!({"action": "drop", "id": 3})));
        assert!(!validator.is_valid(&json!({"action": "drop"})));
        let odd = entry_schema(&root, "/properties/odd key~1~0/items").unwrap();
        let validator = jsonschema::validator_for(&odd).unwrap();
        assert!(validator.is_valid(&json!("s")) && !validator.is_valid(&json!(1)));
    }
}
