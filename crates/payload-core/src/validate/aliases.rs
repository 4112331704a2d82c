//! Members serde reads under another name (docs/spec.md §7.1): `#[serde(alias = "qty")]`
//! on `quantity` means `{"qty": 2}` is a quantity, required or optional, at any depth.
//!
//! The schema cannot say so: schemars writes no aliases, and a nested type derives only
//! `JsonSchema` and `Deserialize`, so the one place that knows a type's aliases is its
//! `Deserialize` impl. Validation therefore asks serde, the same way for every type and
//! every depth: before the schema's verdict counts, each undeclared member is tested,
//!
//! 1. serde reads the whole value (else nothing here can be decided, and the schema's
//!    errors stand: they name the member by its main name, which is also right);
//! 2. taking the member out changes what the value decodes to (serde read it; a member
//!    serde ignores stays an `unknown_member` warning);
//! 3. renaming it to a declared member its object lacks (one the schema calls missing,
//!    or one whose decoded value changed in 2) decodes to the very same value.
//!
//! Such a member is renamed in place to the declared name, keeping its position, so the
//! schema, the undeclared-member walk, the data the app receives and the typed value all
//! agree with serde, and no warning is raised: nothing was lost or changed.
//!
//! **When something else fails.** A value serde cannot read whole (a wrong enum value in
//! another member) still has its aliases: otherwise the model is told a required member
//! is missing that it did write. Each undeclared member is then asked of serde on a
//! *probe*: the value cut down to the path leading to the member's object (each list to
//! the one item, each object to the member on the path and its string members, which
//! hold the tags of tagged enums), that object holding the member and then a declared
//! member its object lacks, both with the member's value. serde refuses a field
//! written twice before it reads the second value (`duplicate field`): when it says so
//! of the declared member, the member is that field under another name. A member serde
//! ignores, or reads as another field, is never written twice.
//!
//! **When the member's own value is wrong.** Then serde fails on the value before it
//! sees the field twice. The member is written first in each probe, so every
//! candidate's probe is refused in the same words, which are those of the object
//! holding the member alone (one more probe). The member stands for the one candidate
//! refused in those words when the object holds it alone with the member's value, and
//! nothing of the member is refused otherwise (a member serde ignores changes
//! nothing). Two fields of one type fail alike, so the member is renamed only when
//! exactly one candidate does; otherwise it keeps today's verdict (the safe side). A
//! member whose probes are refused in different words costs nothing more. Either way
//! the value stays refused: only which member its errors name changes.
//!
//! The member is renamed as above and the value is still refused, now with the errors
//! of what really is wrong: `{"qty": "many"}` is told that `/quantity` is not a number,
//! not that `quantity` is missing.
//!
//! **Cost.** Only a value with an undeclared member pays anything, and it pays at most
//! [`MAX_DECODES`] decodes of the value, or, when serde cannot read it, [`MAX_PROBES`]
//! probes, each keeping at most [`MAX_PROBE_STRINGS`] strings of an object: past them
//! the remaining members keep today's verdict (a warning or an error, the safe side). A runtime schema type has no serde
//! type and never renames. The members the schema calls missing come from its errors,
//! which cost more than the decodes: they are built only when a candidate name needs
//! them, and not at all when they could only change the order of candidates that are
//! all tried anyway (the schema can call missing only members its objects declare, and
//! every probe fits the budget: at most one candidate of a member is the field serde
//! reads it as, and a wrong value's test asks every candidate, so the order changes no
//! outcome). serde is asked only what the test
//! reads: the roundtrip, and the words of a refusal, never the path of an error.

use crate::validate::members::{NearMiss, UndeclaredMember};
use payload_schema::pointer;
use serde_json::{Map, Value};

/// How many decodes of the whole value one value may spend on testing its undeclared
/// members.
pub(crate) const MAX_DECODES: usize = 16;

/// How many probes (module docs) one value serde cannot read may spend on testing its
/// undeclared members: a probe is the value cut down to one member's object, so it
/// costs a fraction of a whole decode.
pub(crate) const MAX_PROBES: usize = 64;

/// How many string members of each object a probe keeps beside the members it tests
/// (they hold the tags of tagged enums; an object with more keeps its first ones).
pub(crate) const MAX_PROBE_STRINGS: usize = 32;

/// Renames in `value` every member of `undeclared` that serde reads as a declared member
/// (the rules of the module docs); `missing(value)` gives the pointers of the members
/// the schema calls missing in `value` as written, asked for only when a candidate name
/// needs them (building the schema's errors costs more than most tests need).
/// `missing_among_absent` says that every member the schema can call missing is among
/// the `absent` members of its object ([`CompiledSchema::missing_among_absent`]).
/// `roundtrip(value)` is the value as serde decodes and writes it back, `None` when it
/// does not decode; `failure(value)` is why serde refuses it, `None` when it reads it.
/// Returns how many members were renamed.
///
/// [`CompiledSchema::missing_among_absent`]: crate::validate::compiled::CompiledSchema::missing_among_absent
pub(crate) fn rename_aliases(
    value: &mut Value,
    undeclared: &[UndeclaredMember],
    missing: impl FnOnce(&Value) -> Vec<String>,
    missing_among_absent: bool,
    near: &[NearMiss],
    roundtrip: impl Fn(&Value) -> Option<Value>,
    failure: impl Fn(&Value) -> Option<String>,
) -> usize {
    if undeclared.is_empty() {
        return 0;
    }
    let mut missing = Missing::Later(Some(missing));
    let mut budget = MAX_DECODES;
    let mut spend = || {
        let left = budget > 0;
        budget = budget.saturating_sub(1);
        left
    };
    if !spend() {
        return 0;
    }
    let Some(base) = roundtrip(value) else {
        // The missing members only put some of the candidates first when they are
        // among the absent ones, and at most one candidate of a member can be the
        // field serde reads it as: when every probe of every group (at most two per
        // candidate and two more) fits the budget, their order changes no outcome,
        // and they are not needed.
        let groups = groups(undeclared);
        let all_tried = missing_among_absent
            && groups
                .iter()
                .map(|group| 2 * candidates(value, group[0], &[], near).len() + 2)
                .sum::<usize>()
                <= MAX_PROBES;
        let missing = if all_tried { &[] } else { missing.get(value) };
        return rename_beside_failures(value, &groups, missing, near, &failure);
    };
    let mut renamed = 0;
    for group in groups(undeclared) {
        let first = group[0];
        if !spend() {
            break;
        }
        let Some(without) = edited(value, first, None) else {
            continue;
        };
        let decoded_without = roundtrip(&without);
        if decoded_without.as_ref() == Some(&base) {
            continue;
        }
        let mut found = None;
        let meant_names = meant_names(
            value,
            first,
            missing.get(value),
            near,
            &base,
            decoded_without.as_ref(),
        );
        for meant in meant_names {
            if !spend() {
                break;
            }
            let candidate = edited(value, first, Some(&meant));
            if candidate.as_ref().and_then(&roundtrip).as_ref() == Some(&base) {
                found = candidate.map(|candidate| (meant, candidate));
                break;
            }
        }
        let Some((meant, with_first)) = found else {
            continue;
        };
        // The later groups' candidates name what was missing in the value as written.
        missing.get(value);
        // The same name in the objects of the same shape (the items of one list) is
        // renamed as one, confirmed by one more decode of the whole value.
        let mut with_all = with_first.clone();
        let mut all = 1;
        for member in &group[1..] {
            if let Some(next) = edited(&with_all, member, Some(&meant)) {
                with_all = next;
                all += 1;
            }
        }
        if all > 1 && spend() && roundtrip(&with_all).as_ref() == Some(&base) {
            *value = with_all;
            renamed += all;
        } else {
            *value = with_first;
            renamed += 1;
        }
    }
    renamed
}

/// The pointers of the members the schema calls missing in the value as written:
/// computed on first use, which comes before the value is first changed.
enum Missing<F> {
    /// Not yet asked for (the computation, taken when it runs).
    Later(Option<F>),
    /// Computed.
    Known(Vec<String>),
}

impl<F: FnOnce(&Value) -> Vec<String>> Missing<F> {
    /// The pointers, computed now from `value` if they were not yet.
    fn get(&mut self, value: &Value) -> &[String] {
        if let Missing::Later(compute) = self {
            let found = compute
                .take()
                .map(|compute| compute(value))
                .unwrap_or_default();
            *self = Missing::Known(found);
        }
        match self {
            Missing::Known(found) => found,
            Missing::Later(_) => &[],
        }
    }
}

/// The rules of "When something else fails" and "When the member's own value is wrong"
/// (module docs): each group of undeclared members decided on probes of its first
/// member, at most [`MAX_PROBES`] probes in all.
fn rename_beside_failures(
    value: &mut Value,
    groups: &[Vec<&UndeclaredMember>],
    missing: &[String],
    near: &[NearMiss],
    failure: &impl Fn(&Value) -> Option<String>,
) -> usize {
    let mut budget = MAX_PROBES;
    let mut ask = |value: &Value, member: &UndeclaredMember, names: &[&str]| {
        let probe = probe(value, member, names)?;
        let left = budget > 0;
        budget = budget.saturating_sub(1);
        left.then(|| failure(&probe))
    };
    let mut renamed = 0;
    for group in groups {
        let first = group[0];
        let Some(meant) = read_as(
            value,
            first,
            &candidates(value, first, missing, near),
            &mut ask,
        ) else {
            continue;
        };
        for member in group {
            let lacks = matches!(value.pointer(&member.object),
                Some(Value::Object(object)) if !object.contains_key(&meant));
            if lacks {
                if let Some(next) = edited(value, member, Some(&meant)) {
                    *value = next;
                    renamed += 1;
                }
            }
        }
    }
    renamed
}

/// The one of `candidates` serde reads `member` as, or `None` (also when the probes run
/// out first). `ask(value, member, names)` is serde's refusal of the probe whose object
/// holds `names` with the member's value, `None` when no probe can be made or spent.
fn read_as(
    value: &Value,
    member: &UndeclaredMember,
    candidates: &[String],
    ask: &mut impl FnMut(&Value, &UndeclaredMember, &[&str]) -> Option<Option<String>>,
) -> Option<String> {
    // The member written before the candidate: serde says `duplicate field` of the
    // field it reads the member as (serde_derive's words, under the field's main name),
    // before it reads the second value.
    // The first candidate's refusal, and whether every other one is refused alike.
    let (mut first, mut alike) = (None, true);
    for name in candidates {
        let refusal = ask(value, member, &[&member.name, name])?;
        let twice = format!("duplicate field `{name}`");
        if refusal.as_ref().is_some_and(|why| why.contains(&twice)) {
            return Some(name.clone());
        }
        match &first {
            None => first = Some(refusal),
            Some(words) => alike &= *words == refusal,
        }
    }
    // The member's own value is wrong: serde fails on the member, written first, so
    // every candidate's probe is refused in the same words, which are the member
    // alone's; the one candidate refused so alone, with the member's value, is the one.
    let words = first??;
    if !alike || ask(value, member, &[&member.name])?.as_ref() != Some(&words) {
        return None;
    }
    let mut meant = None;
    for name in candidates {
        if ask(value, member, &[name])?.as_ref() != Some(&words) {
            continue;
        }
        if meant.is_some() {
            return None;
        }
        meant = Some(name.clone());
    }
    let meant = meant?;
    // A member serde ignores changes nothing: then nothing of it is refused alike.
    (ask(value, member, &[])?.as_ref() != Some(&words)).then_some(meant)
}

/// The declared names a member of a value serde cannot read may stand for: those it is
/// a near miss of, those the schema calls missing in its object, then the other
/// declared members its object lacks (an optional member's alias).
fn candidates(
    value: &Value,
    member: &UndeclaredMember,
    missing: &[String],
    near: &[NearMiss],
) -> Vec<String> {
    let Some(Value::Object(object)) = value.pointer(&member.object) else {
        return Vec::new();
    };
    let mut names = named_by_the_schema(member, missing, near);
    for name in &member.absent {
        if !names.contains(name) {
            names.push(name.clone());
        }
    }
    names.retain(|name| *name != member.name && !object.contains_key(name));
    names
}

/// The probe of the module docs: `value` cut down to the path to `member`'s object
/// (each list to its one item, each object to the member on the path and its string
/// members, which hold the tags of tagged enums), that object holding each of `names`
/// in order, all with the member's value, then its string members. `None` when the
/// path is not there.
fn probe(value: &Value, member: &UndeclaredMember, names: &[&str]) -> Option<Value> {
    let tokens: Vec<String> = member
        .object
        .split('/')
        .skip(1)
        .map(pointer::unescape_token)
        .collect();
    let mut path = vec![value];
    for token in &tokens {
        let at = *path.last()?;
        path.push(match at {
            Value::Array(items) => items.get(token.parse::<usize>().ok()?)?,
            Value::Object(members) => members.get(token)?,
            _ => return None,
        });
    }
    let Value::Object(object) = path.pop()? else {
        return None;
    };
    let written = object.get(&member.name)?.clone();
    let mut probe = Map::with_capacity(names.len() + 1);
    for name in names {
        probe.insert(name.to_string(), written.clone());
    }
    // The member's own value, a string, is not one of the strings kept beside it.
    let others = object.iter().filter(|(name, _)| **name != member.name);
    let mut probe = Value::Object(with_strings(probe, others));
    for (token, container) in tokens.iter().zip(path).rev() {
        probe = match container {
            Value::Array(_) => Value::Array(vec![probe]),
            Value::Object(members) => {
                let mut on_path = Map::with_capacity(1);
                on_path.insert(token.clone(), probe);
                Value::Object(with_strings(on_path, members.iter()))
            }
            _ => return None,
        };
    }
    Some(probe)
}

/// `probe` followed by the string members among `members` it does not hold, at most
/// [`MAX_PROBE_STRINGS`] of them.
fn with_strings<'a>(
    mut probe: Map<String, Value>,
    members: impl Iterator<Item = (&'a String, &'a Value)>,
) -> Map<String, Value> {
    let strings = members.filter(|(_, member)| member.is_string());
    for (name, member) in strings.take(MAX_PROBE_STRINGS) {
        // A probe holds a few members: comparing names costs less than hashing one.
        if !probe.keys().any(|held| held == name) {
            probe.insert(name.clone(), member.clone());
        }
    }
    probe
}

/// The undeclared members grouped by name and by the shape of their object's pointer
/// (array indices read as one), in the order first met: the items of one list share
/// their aliases, so one test decides them all.
fn groups(undeclared: &[UndeclaredMember]) -> Vec<Vec<&UndeclaredMember>> {
    let mut groups: Vec<(String, Vec<&UndeclaredMember>)> = Vec::new();
    for member in undeclared {
        let shape = shape_of(&member.object, &member.name);
        match groups.iter_mut().find(|(s, _)| *s == shape) {
            Some((_, group)) => group.push(member),
            None => groups.push((shape, vec![member])),
        }
    }
    groups.into_iter().map(|(_, group)| group).collect()
}

/// `object` with every all-digit token as `#`, then the member's name.
fn shape_of(object: &str, name: &str) -> String {
    let mut shape = String::with_capacity(object.len() + name.len() + 1);
    for token in object.split('/').skip(1) {
        shape.push('/');
        if !token.is_empty() && token.bytes().all(|b| b.is_ascii_digit()) {
            shape.push('#');
        } else {
            shape.push_str(token);
        }
    }
    shape.push('/');
    shape.push_str(&pointer::escape_token(name));
    shape
}

/// The declared names `member` may stand for: those it is a near miss of, those the
/// schema calls missing in its object, then those whose decoded value changed without
/// it (under their serialize names, which may differ), each absent from the object as
/// written.
fn meant_names(
    value: &Value,
    member: &UndeclaredMember,
    missing: &[String],
    near: &[NearMiss],
    base: &Value,
    without: Option<&Value>,
) -> Vec<String> {
    let Some(Value::Object(object)) = value.pointer(&member.object) else {
        return Vec::new();
    };
    let mut names = named_by_the_schema(member, missing, near);
    if let (Some(Value::Object(decoded)), Some(Value::Object(decoded_without))) = (
        base.pointer(&member.object),
        without.and_then(|w| w.pointer(&member.object)),
    ) {
        for (name, decoded_value) in decoded {
            if decoded_without.get(name) != Some(decoded_value) && !names.contains(name) {
                names.push(name.clone());
            }
        }
    }
    names.retain(|name| *name != member.name && !object.contains_key(name));
    names
}

/// The declared names the schema's errors point `member` to, once each: those it is a
/// near miss of, then those the schema calls missing in its object. [`candidates`] and
/// [`meant_names`] both start from them.
fn named_by_the_schema(
    member: &UndeclaredMember,
    missing: &[String],
    near: &[NearMiss],
) -> Vec<String> {
    let mut names: Vec<String> = near
        .iter()
        .filter(|miss| miss.object == member.object && miss.name == member.name)
        .flat_map(|miss| miss.intended.iter().cloned())
        .collect();
    for name in missing
        .iter()
        .filter_map(|pointer| last_token_under(pointer, &member.object))
    {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// The last token of `pointer` when its parent is `object`, unescaped.
fn last_token_under(pointer: &str, object: &str) -> Option<String> {
    let rest = pointer.strip_prefix(object)?.strip_prefix('/')?;
    (!rest.contains('/')).then(|| pointer::unescape_token(rest))
}

/// A copy of `value` with `member` renamed to `to` (in its place), or taken out when
/// `to` is `None`; `None` when the member is not there.
fn edited(value: &Value, member: &UndeclaredMember, to: Option<&str>) -> Option<Value> {
    let mut copy = value.clone();
    let Some(Value::Object(object)) = copy.pointer_mut(&member.object) else {
        return None;
    };
    if !object.contains_key(&member.name) {
        return None;
    }
    let entries = std::mem::take(object);
    let mut rebuilt = Map::with_capacity(entries.len());
    for (name, member_value) in entries {
        match (name == member.name, to) {
            (false, _) => {
                rebuilt.insert(name, member_value);
            }
            (true, Some(to)) => {
                rebuilt.insert(to.to_string(), member_value);
            }
            (true, None) => {}
        }
    }
    *object = rebuilt;
    Some(copy)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::{Deserialize, Serialize};
    use serde_json::json;

    #[derive(Debug, Serialize, Deserialize)]
    struct Ingredient {
        name: String,
        #[serde(alias = "qty")]
        quantity: f64,
        #[serde(default, alias = "remark")]
        note: Option<String>,
    }

    #[derive(Debug, Serialize, Deserialize)]
    struct Recipe {
        ingredients: Vec<Ingredient>,
    }

    fn roundtrip(value: &Value) -> Option<Value> {
        let recipe: Recipe = serde_json::from_value(value.clone()).ok()?;
        serde_json::to_value(recipe).ok()
    }

    /// Why serde refuses `value` as a recipe.
    fn failure(value: &Value) -> Option<String> {
        serde_json::from_value::<Recipe>(value.clone())
            .err()
            .map(|error| error.to_string())
    }

    fn member(object: &str, name: &str) -> UndeclaredMember {
        UndeclaredMember {
            object: object.to_string(),
            name: name.to_string(),
            absent: Vec::new(),
        }
    }

    /// Renames the aliases of `undeclared` in a recipe whose schema calls `missing`
    /// missing, with no near miss, serde deciding; how many were renamed.
    fn rename(value: &mut Value, undeclared: &[UndeclaredMember], missing: &[&str]) -> usize {
        let missing: Vec<String> = missing.iter().map(|path| path.to_string()).collect();
        rename_aliases(
            value,
            undeclared,
            |_: &Value| missing,
            false,
            &[],
            roundtrip,
            failure,
        )
    }

    /// `member` of `value` is not renamed, and `value` is left as it was.
    fn assert_left_alone(mut value: Value, member: UndeclaredMember, missing: &[&str]) {
        let before = value.clone();
        assert_eq!(rename(&mut value, &[member], missing), 0);
        assert_eq!(value, before);
    }

    #[test]
    fn a_required_alias_is_renamed_in_place() {
        let mut value = json!({"ingredients": [{"qty": 2, "name": "eggs"}]});
        let renamed = rename(
            &mut value,
            &[member("/ingredients/0", "qty")],
            &["/ingredients/0/quantity"],
        );
        assert_eq!(renamed, 1);
        let keys: Vec<&String> = value["ingredients"][0]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(keys, ["quantity", "name"]);
        assert_eq!(value["ingredients"][0]["quantity"], 2);
    }

    #[test]
    fn an_optional_alias_is_found_by_what_it_changes() {
        let mut value = json!({"ingredients": [{"name": "eggs", "qty": 2, "remark": "large"}]});
        let renamed = rename(&mut value, &[member("/ingredients/0", "remark")], &[]);
        assert_eq!(renamed, 1);
        assert_eq!(value["ingredients"][0]["note"], "large");
    }

    #[test]
    fn a_member_serde_ignores_is_left_alone() {
        assert_left_alone(
            json!({"ingredients": [{"name": "eggs", "quantity": 2, "mood": null}]}),
            member("/ingredients/0", "mood"),
            &[],
        );
    }

    #[test]
    fn nothing_is_renamed_when_serde_does_not_read_the_value() {
        assert_left_alone(
            json!({"ingredients": [{"name": "eggs", "amount": 2}]}),
            member("/ingredients/0", "amount"),
            &["/ingredients/0/quantity"],
        );
    }

    #[test]
    fn the_decodes_are_bounded_and_a_list_shares_its_aliases() {
        let ingredients: Vec<Value> = (0..40)
            .map(|i| json!({"name": format!("n{i}"), "qty": i}))
            .collect();
        let mut value = json!({ "ingredients": ingredients });
        let undeclared: Vec<UndeclaredMember> = (0..40)
            .map(|i| member(&format!("/ingredients/{i}"), "qty"))
            .collect();
        let missing: Vec<String> = (0..40)
            .map(|i| format!("/ingredients/{i}/quantity"))
            .collect();
        let calls = std::cell::Cell::new(0);
        rename_aliases(
            &mut value,
            &undeclared,
            |_: &Value| missing,
            false,
            &[],
            |v| {
                calls.set(calls.get() + 1);
                roundtrip(v)
            },
            failure,
        );
        assert!(calls.get() <= MAX_DECODES, "{}", calls.get());
        let all_renamed = value["ingredients"]
            .as_array()
            .unwrap()
            .iter()
            .all(|item| item.get("quantity").is_some() && item.get("qty").is_none());
        assert!(
            all_renamed,
            "the items of one list share their aliases: {value}"
        );
    }

    /// A required alias beside another failure (a name that is not a string): serde
    /// cannot read the value, yet the probes find the alias, in every item of the list.
    #[test]
    fn a_required_alias_is_renamed_when_something_else_fails() {
        let mut value = json!({"ingredients": [
            {"name": "eggs", "qty": 2},
            {"name": 7, "qty": 300}
        ]});
        assert!(roundtrip(&value).is_none());
        let renamed = rename(
            &mut value,
            &[
                member("/ingredients/0", "qty"),
                member("/ingredients/1", "qty"),
            ],
            &["/ingredients/0/quantity", "/ingredients/1/quantity"],
        );
        assert_eq!(renamed, 2);
        assert_eq!(value["ingredients"][0]["quantity"], 2);
        assert_eq!(value["ingredients"][1]["quantity"], 300);
        assert_eq!(
            value["ingredients"][1]["name"], 7,
            "the failure is left as written"
        );
    }

    /// An optional alias beside another failure: found the same way, among the
    /// declared members its object lacks.
    #[test]
    fn an_optional_alias_is_renamed_when_something_else_fails() {
        let mut value =
            json!({"ingredients": [{"name": "eggs", "quantity": "two", "remark": "large"}]});
        let remark = UndeclaredMember {
            absent: vec!["note".to_string()],
            ..member("/ingredients/0", "remark")
        };
        let renamed = rename(&mut value, &[remark], &[]);
        assert_eq!(renamed, 1);
        assert_eq!(value["ingredients"][0]["note"], "large");
    }

    /// A member serde ignores is never renamed, whatever else fails: the probe with a
    /// value no field reads fails elsewhere.
    #[test]
    fn an_ignored_member_beside_a_failure_is_left_alone() {
        assert_left_alone(
            json!({"ingredients": [{"name": 7, "amount": 2}]}),
            member("/ingredients/0", "amount"),
            &["/ingredients/0/quantity"],
        );
    }

    /// The alias of one field is not taken for another that is missing too: `qty` is
    /// `quantity`, not `name`, although both are missing.
    #[test]
    fn an_alias_goes_to_its_own_field_among_several_missing() {
        let mut value = json!({"ingredients": [{"qty": 2, "note": 5}]});
        let renamed = rename(
            &mut value,
            &[member("/ingredients/0", "qty")],
            &["/ingredients/0/name", "/ingredients/0/quantity"],
        );
        assert_eq!(renamed, 1);
        assert_eq!(value["ingredients"][0]["quantity"], 2);
        assert!(value["ingredients"][0].get("name").is_none());
    }

    /// A required alias whose own value is wrong: serde fails on the value before it
    /// sees a field twice, and the member is still read as the field it stands for.
    #[test]
    fn a_required_alias_with_a_wrong_value_is_renamed() {
        let mut value = json!({"ingredients": [{"name": "eggs", "qty": "two"}]});
        let renamed = rename(
            &mut value,
            &[member("/ingredients/0", "qty")],
            &["/ingredients/0/quantity"],
        );
        assert_eq!(renamed, 1);
        assert_eq!(value["ingredients"][0]["quantity"], "two");
    }

    /// A wrong value two missing fields would refuse alike: which one the member stands
    /// for cannot be told, and it keeps its verdict.
    #[test]
    fn a_wrong_value_two_fields_refuse_alike_is_left_alone() {
        let remark = UndeclaredMember {
            absent: vec!["note".to_string()],
            ..member("/ingredients/0", "remark")
        };
        assert_left_alone(
            json!({"ingredients": [{"quantity": 1, "remark": 5}]}),
            remark,
            &["/ingredients/0/name"],
        );
    }

    /// A member serde ignores, holding a value the missing field would refuse, is not
    /// taken for that field.
    #[test]
    fn an_ignored_member_with_a_wrong_value_is_left_alone() {
        assert_left_alone(
            json!({"ingredients": [{"name": "eggs", "amount": "two"}]}),
            member("/ingredients/0", "amount"),
            &["/ingredients/0/quantity"],
        );
    }
}
