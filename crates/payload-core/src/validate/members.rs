//! Members a type does not declare (docs/spec.md §7.1).
//!
//! serde ignores a member its type does not declare, so without this walk a model that
//! writes `"lables"` for `"labels"` loses the labels without a word. After validation
//! the value is walked beside its schema ([`Applies`] picks the schemas that apply, the
//! way the validator and serde do), and every undeclared member of an object whose
//! schema declares members is reported:
//!
//! - a **near miss** of a declared member that the object lacks is a `validation`
//!   error whose suggestion names the member meant (the model meant to send that
//!   value, and dropping it would be data loss);
//! - any other undeclared member is an `unknown_member` warning naming it and its path.
//!
//! Objects closed with `additionalProperties: false` or `unevaluatedProperties: false`
//! (`#[serde(deny_unknown_fields)]`) are left to the validator, which reports every
//! undeclared member as an error; the walk only notes their near misses, so that the
//! `missing` error of the member meant is not reported beside them. Maps and objects
//! whose tag names no variant are not checked: every key is allowed in the first, and
//! the validator reports the tag of the second.
//!
//! **The near-miss rule.** Both names are folded (lowercased, `_`, `-`, spaces and dots
//! removed), so `rowId`, `RowID`, `row-id` and `row_id` are one name at distance 0.
//! Otherwise the optimal-string-alignment distance (edits and adjacent swaps) of the
//! folded names must be at most 2 **and** less than half the shorter folded name:
//! `lables`/`labels` (1 of 6) and `nme`/`name` (1 of 3) are near misses, `id`/`ids`
//! (1 of 2) and `name`/`nmae2` (2 of 4) are not. Only declared members that the object
//! lacks are candidates; the closest wins, and when several are equally close the
//! error names them all.
//!
//! **Cost.** The distance is computed in a band of width 5 (it stops once it exceeds 2),
//! so one comparison costs a few steps per character of the unknown name, and names
//! whose folded lengths differ by more than 2 are never compared. At most
//! [`MAX_SEARCHED`] undeclared members of one object are compared at all; the rest are
//! warnings. Warnings past the cap of docs/spec.md §8.1 are counted, never built.

use crate::caps::Capped;
use crate::error::PayloadError;
use crate::formats::fold_name as fold;
use crate::schema::applies::{Applies, Members};
use crate::warning::{Warning, WarningKind};
use payload_schema::pointer;
use serde_json::{Map, Value};

/// How many undeclared members of one object are compared with the declared ones.
pub(crate) const MAX_SEARCHED: usize = 1024;

/// The largest distance that still counts as a near miss.
const MAX_DISTANCE: usize = 2;

/// How many undeclared members of one value are noted for the alias test
/// (`crate::validate::aliases`; the walk notes them; past this many, the rest keep their warning or error).
pub(crate) const MAX_NOTED: usize = 256;

/// An undeclared member: the pointer of its object and its name as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UndeclaredMember {
    /// JSON Pointer of the object that holds it.
    pub object: String,
    /// The member's name as written.
    pub name: String,
    /// The members its object's schema declares and the object lacks (none when the
    /// schema's union is undecided): what an alias of an optional member may stand for
    /// when serde cannot read the value.
    pub absent: Vec<String>,
}

/// An undeclared member that is a near miss of a declared member its object lacks.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NearMiss {
    /// JSON Pointer of the object that holds it.
    pub object: String,
    /// The member's name as written.
    pub name: String,
    /// The declared member(s) it is closest to, closest first.
    pub intended: Vec<String>,
}

impl NearMiss {
    /// The pointer of the member as written.
    pub(crate) fn path(&self) -> String {
        pointer::join(&self.object, &self.name)
    }

    /// The pointer of the member meant, when exactly one is.
    pub(crate) fn intended_path(&self) -> Option<String> {
        match self.intended.as_slice() {
            [only] => Some(pointer::join(&self.object, only)),
            _ => None,
        }
    }

    /// The `validation` error for it; `received` is the member's value.
    pub(crate) fn error(&self, received: Option<&Value>) -> PayloadError {
        let mut error =
            PayloadError::validation(self.path(), format!("unknown member '{}'", self.name))
                .with_expected(format!("member {}", quoted_alternatives(&self.intended)))
                .with_suggestion(did_you_mean(&self.name, &self.intended));
        error.details_mut().received = received.cloned();
        error
    }
}

/// `did you mean 'labels'? Rename 'lables' to it` (or to one of several).
pub(crate) fn did_you_mean(name: &str, intended: &[String]) -> String {
    match intended {
        [only] => format!("did you mean '{only}'? Rename '{name}' to '{only}'"),
        several => format!(
            "did you mean {}? Rename '{name}' to the member meant",
            quoted_alternatives(several)
        ),
    }
}

fn quoted_alternatives(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("'{n}'"))
        .collect::<Vec<_>>()
        .join(" or ")
}

/// What the walk found besides warnings.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Unknowns {
    /// Near misses in open objects: each one is an error.
    pub near: Vec<NearMiss>,
    /// How many more near misses in open objects there were.
    pub omitted: usize,
    /// The pointers of the members that near misses (in open or closed objects) meant:
    /// a `missing` error there says the same thing again and is dropped.
    pub superseded: Vec<String>,
    /// Every undeclared member met, in open or closed objects (at most
    /// [`MAX_NOTED`]): the candidates of the alias test (`crate::validate::aliases`).
    pub undeclared: Vec<UndeclaredMember>,
}

/// The undeclared-member rule, applied to each object the walk
/// (`crate::validate::walk`) meets: every undeclared member of an open object is a near
/// miss or a warning (pushed to `warnings`). At most `cap` near misses are kept, and at
/// most `cap` superseded pointers.
pub(crate) struct Undeclared<'w> {
    warnings: &'w mut Capped<Warning>,
    near: Capped<NearMiss>,
    superseded: Capped<String>,
    undeclared: Capped<UndeclaredMember>,
}

impl<'w> Undeclared<'w> {
    /// The rule, reporting to `warnings`, keeping at most `cap` near misses.
    pub(crate) fn new(warnings: &'w mut Capped<Warning>, cap: usize) -> Self {
        Undeclared {
            warnings,
            near: Capped::new(cap),
            superseded: Capped::new(cap),
            undeclared: Capped::new(MAX_NOTED),
        }
    }

    /// What the walk found besides warnings.
    pub(crate) fn finish(self) -> Unknowns {
        let (near, omitted) = self.near.into_parts();
        Unknowns {
            near,
            omitted,
            superseded: self.superseded.into_parts().0,
            undeclared: self.undeclared.into_parts().0,
        }
    }

    /// The members of the object at `path`, whose schemas are `applies`.
    pub(crate) fn check_members(
        &mut self,
        map: &Map<String, Value>,
        applies: &Applies<'_>,
        path: &str,
    ) {
        let kind = applies.members();
        if matches!(kind, Members::Map | Members::Unknown) {
            return;
        }
        let closed = kind == Members::Closed;
        // The absent members are folded once, and only for an object that has an
        // undeclared member (most have none).
        let mut absent: Option<Vec<Folded<'_>>> = None;
        let mut searched = 0;
        for key in map.keys() {
            if applies.declares(key) {
                continue;
            }
            // Which member is missing cannot be known in an undecided union: its
            // unknown members are warnings only.
            let absent = absent.get_or_insert_with(|| {
                if applies.undecided() {
                    return Vec::new();
                }
                applies
                    .declared()
                    .into_iter()
                    .filter(|name| !map.contains_key(*name))
                    .map(Folded::new)
                    .collect()
            });
            if !self.undeclared.is_full() {
                self.undeclared.push(UndeclaredMember {
                    object: path.to_string(),
                    name: key.clone(),
                    absent: absent.iter().map(|a| a.name.to_string()).collect(),
                });
            }
            let intended = if absent.is_empty() || searched >= MAX_SEARCHED {
                Vec::new()
            } else {
                searched += 1;
                near_misses(key, absent)
            };
            if !intended.is_empty() {
                let miss = NearMiss {
                    object: path.to_string(),
                    name: key.clone(),
                    intended: intended.into_iter().map(str::to_owned).collect(),
                };
                if let Some(meant) = miss.intended_path() {
                    self.superseded.push(meant);
                }
                if !closed {
                    self.near.push(miss);
                }
            } else if !closed {
                self.warn(path, key);
            }
        }
    }

    fn warn(&mut self, path: &str, key: &str) {
        if self.warnings.is_full() {
            self.warnings.count_omitted(1);
            return;
        }
        let at = pointer::join(path, key);
        self.warnings.push(Warning::new(
            WarningKind::UnknownMember,
            format!("unknown member '{key}' at {at} was ignored: the type does not declare it"),
        ));
    }
}

/// A declared name with its folded spelling, compared many times.
#[derive(Debug, Clone)]
pub(crate) struct Folded<'a> {
    name: &'a str,
    folded: Vec<char>,
}

impl<'a> Folded<'a> {
    /// Folds `name` once.
    pub(crate) fn new(name: &'a str) -> Self {
        Folded {
            name,
            folded: fold(name).chars().collect(),
        }
    }
}

/// The candidates `name` is a near miss of (the closest, all of them when tied), by the
/// rule in the module docs.
pub(crate) fn near_misses<'a>(name: &str, candidates: &[Folded<'a>]) -> Vec<&'a str> {
    let folded: Vec<char> = fold(name).chars().collect();
    if folded.is_empty() {
        return Vec::new();
    }
    // A name that folds to candidates (`Answer` for `answer`) is at distance 0 from
    // them, nearer than any other: they are the answer, and no distance is computed.
    let same: Vec<&'a str> = candidates
        .iter()
        .filter(|candidate| candidate.folded == folded)
        .map(|candidate| candidate.name)
        .collect();
    if !same.is_empty() {
        return same;
    }
    let mut best: Vec<&'a str> = Vec::new();
    let mut best_distance = usize::MAX;
    for candidate in candidates {
        let shorter = folded.len().min(candidate.folded.len());
        let Some(distance) = bounded_distance(&folded, &candidate.folded, MAX_DISTANCE) else {
            continue;
        };
        if distance > 0 && 2 * distance >= shorter {
            continue;
        }
        if distance < best_distance {
            best_distance = distance;
            best.clear();
        }
        if distance == best_distance {
            best.push(candidate.name);
        }
    }
    best
}

/// The optimal-string-alignment distance of `a` and `b` (insertions, deletions,
/// substitutions and swaps of adjacent characters), if it is at most `max`.
///
/// Only the band of cells within `max` of the diagonal is computed, and the search
/// stops as soon as a whole row exceeds `max`: a few steps per character.
fn bounded_distance(a: &[char], b: &[char], max: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > max {
        return None;
    }
    let over = max + 1;
    let width = b.len() + 1;
    // Three rows of the classic table: two back (for swaps), one back, and this one.
    let mut before = vec![over; width];
    let mut previous: Vec<usize> = (0..width).map(|j| j.min(over)).collect();
    let mut current = vec![over; width];
    for i in 1..=a.len() {
        current.fill(over);
        if i <= max {
            current[0] = i;
        }
        let low = i.saturating_sub(max).max(1);
        let high = (i + max).min(b.len());
        let mut row_min = current[0];
        for j in low..=high {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut cell = (previous[j - 1] + cost)
                .min(previous[j] + 1)
                .min(current[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                cell = cell.min(before[j - 2] + 1);
            }
            current[j] = cell.min(over);
            row_min = row_min.min(current[j]);
        }
        if row_min > max {
            return None;
        }
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut current);
    }
    let distance = previous[b.len()];
    (distance <= max).then_some(distance)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The walk's undeclared-member findings for `value`.
    fn walk(value: &Value, root: &Value, warnings: &mut Capped<Warning>, cap: usize) -> Unknowns {
        let mut value = value.clone();
        let mut errors = Capped::errors();
        let mut rewrites = Capped::warnings();
        crate::validate::walk::walk(&mut value, root, &mut errors, &mut rewrites, warnings, cap)
    }

    fn candidates<'a>(names: &[&'a str]) -> Vec<Folded<'a>> {
        names.iter().map(|n| Folded::new(n)).collect()
    }

    #[test]
    fn the_distance_agrees_with_the_textbook_one_within_the_bound() {
        let words = [
            "", "a", "ab", "ba", "abc", "acb", "labels", "lables", "lable", "title", "titel",
            "kitten", "sitting", "xyz", "abcd", "badc",
        ];
        for a in words {
            for b in words {
                let chars_a: Vec<char> = a.chars().collect();
                let chars_b: Vec<char> = b.chars().collect();
                let full = strsim::osa_distance(a, b);
                let bounded = bounded_distance(&chars_a, &chars_b, 2);
                assert_eq!(bounded, (full <= 2).then_some(full), "{a} / {b}");
            }
        }
    }

    #[test]
    fn spelling_variants_and_short_typos_are_near_misses() {
        let declared = candidates(&["labels", "row_id", "name", "id", "title"]);
        assert_eq!(near_misses("lables", &declared), ["labels"]);
        assert_eq!(near_misses("rowId", &declared), ["row_id"]);
        assert_eq!(near_misses("ROW-ID", &declared), ["row_id"]);
        assert_eq!(near_misses("Title", &declared), ["title"]);
        assert_eq!(near_misses("nme", &declared), ["name"]);
        assert!(
            near_misses("ids", &declared).is_empty(),
            "1 edit of 2 letters"
        );
        assert!(near_misses("ab", &declared).is_empty());
        assert!(near_misses("description", &declared).is_empty());
        assert!(near_misses("_", &declared).is_empty());
    }

    #[test]
    fn ties_name_every_closest_member() {
        let declared = candidates(&["cost", "cast"]);
        assert_eq!(near_misses("cest", &declared), ["cost", "cast"]);
        assert_eq!(near_misses("cost_", &declared), ["cost"], "distance 0 wins");
    }

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "labels": {"type": "array", "items": {"$ref": "#/$defs/Label"}},
                "title": {"type": "string"}
            },
            "$defs": {"Label": {"type": "object", "properties": {"text": {"type": "string"}},
                                 "additionalProperties": false}}
        })
    }

    #[test]
    fn unknown_members_are_near_misses_or_warnings() {
        let value = json!({"title": "t", "lables": [], "mood": "happy",
                           "labels": [{"text": "a", "txt": "b"}]});
        let mut warnings = Capped::warnings();
        let Unknowns { near, omitted, .. } = walk(&value, &schema(), &mut warnings, 100);
        assert_eq!(omitted, 0);
        // `lables` is close to `labels`, but `labels` is present: only a warning.
        let (kept, _) = warnings.into_parts();
        assert_eq!(kept.len(), 2, "{kept:?}");
        assert!(kept[0].message.contains("'lables' at /lables"));
        assert!(kept[1].message.contains("'mood' at /mood"));
        // `txt` is in a closed object: noted, not warned; `text` is present, so no miss.
        assert!(near.is_empty(), "{near:?}");

        let value = json!({"lables": [{"txt": "b"}]});
        let mut warnings = Capped::warnings();
        let Unknowns {
            near, superseded, ..
        } = walk(&value, &schema(), &mut warnings, 100);
        assert_eq!(warnings.items().len(), 0);
        assert_eq!(superseded, ["/labels"]);
        assert_eq!(near.len(), 1, "{near:?}");
        assert_eq!(near[0].path(), "/lables");
        assert_eq!(near[0].intended, ["labels"]);
        let error = near[0].error(value.get("lables"));
        assert_eq!(error.message(), "unknown member 'lables'");
        assert!(
            error
                .suggestion()
                .unwrap()
                .starts_with("did you mean 'labels'?")
        );
    }

    #[test]
    fn near_misses_in_closed_objects_are_left_to_the_validator() {
        let value = json!({"labels": [{"txt": "b"}]});
        let mut warnings = Capped::warnings();
        let unknowns = walk(&value, &schema(), &mut warnings, 100);
        assert!(unknowns.near.is_empty());
        assert_eq!(unknowns.superseded, ["/labels/0/text"]);
        assert!(warnings.items().is_empty());
    }

    #[test]
    fn many_unknown_members_cost_little_and_are_counted() {
        let mut map = Map::new();
        for i in 0..100_000 {
            map.insert(format!("extra{i}"), Value::Null);
        }
        let value = Value::Object(map);
        let mut warnings = Capped::warnings();
        let started = std::time::Instant::now();
        let unknowns = walk(&value, &schema(), &mut warnings, 100);
        assert!(unknowns.near.is_empty() && unknowns.superseded.is_empty());
        assert_eq!(unknowns.undeclared.len(), MAX_NOTED);
        assert_eq!(warnings.items().len(), 100);
        assert_eq!(warnings.omitted(), 99_900);
        assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
    }
}
