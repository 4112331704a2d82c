//! Typed partial values while a payload streams (what instructor's `Partial[T]` and
//! BAML's streaming types give their users): a `payload_progress` event read as a type
//! whose every member is optional, so an app can render a proposal card while its rows
//! arrive, without handling raw JSON.
//!
//! A type's partial form is [`PartialType::Partial`]. `#[derive(LlmPayload)]` with
//! `#[payload(partial)]` writes it for a payload type (a `FooPartial` struct or enum
//! beside `Foo`), and `#[derive(Partial)]` for the types its members hold. The rules:
//!
//! - a member the model has not begun is `None`; a member is never given a value the
//!   model did not write (no defaults are filled in);
//! - strings, lists, maps, structs and variants are [`Growing`]: the value so far, and
//!   whether it is complete (a string still growing versus closed);
//! - numbers, booleans and unit enums appear only once complete (`12` may still become
//!   `120`; `"cre"` is not yet `"create"`), so they are plain values;
//! - so does every member whose schema is a scalar or an opaque value: it is **complete
//!   only**, absent until its value is whole, then decoded by serde. The common foreign
//!   types have that partial form here (`std::time::Duration`, `std::net`'s addresses,
//!   `PathBuf`, and behind this crate's `chrono` and `uuid` features chrono's dates and
//!   times and `Uuid`); any other member takes it with `#[payload(complete_only)]`, and
//!   a member read through serde's `with` or `deserialize_with` has it without asking
//!   (its JSON is whatever that function reads, known only once whole);
//! - a tagged enum's variant is known once its tag is complete; an untagged enum shows
//!   its raw JSON, since which variant it is cannot be known before it ends.
//!
//! - each value's state is readable, as BAML's `@stream.with_state` gives it:
//!   [`ValueState::of`] a member says whether it is [`ValueState::Pending`] (not
//!   begun), [`ValueState::Incomplete`] (still arriving) or [`ValueState::Complete`];
//!   [`PartialState::state`] says it of a value already shown;
//! - a struct can be held back until a named member has a value, as BAML's
//!   `@stream.not_null` does: `#[payload(stream(not_null))]` on that member (see
//!   `payload_derive`); until then the struct's partial form is `None`, as if not
//!   begun. The derive writes the same mark into the type's schema ([`StreamMarks`]),
//!   so the stream's JSON previews hold back the same objects.
//!
//! ```
//! use payload_core::partial::{PartialType, Cursor, ValueState};
//! use serde_json::json;
//!
//! // Two rows complete, a third still arriving, nothing yet of a fourth.
//! let value = json!([["a", "b"], ["c"]]);
//! let rows = <Vec<Vec<String>>>::read_partial(&value, Cursor::root(Some("/1/0"))).unwrap();
//! assert_eq!(ValueState::of(&Some(rows.clone())), ValueState::Incomplete);
//! assert_eq!(ValueState::of(&rows.value[0].value.first().cloned()), ValueState::Complete);
//! assert_eq!(ValueState::of(&rows.value[1].value.first().cloned()), ValueState::Incomplete);
//! assert_eq!(ValueState::of(&rows.value.get(2).cloned()), ValueState::Pending);
//! ```
//!
//! Completeness comes from the stream's `open` pointer ([`crate::stream::partial_with_open`]):
//! JSON arrives in order, so everything not on the way to the point still arriving is
//! complete.

use crate::nullable::Nullable;
use payload_schema::pointer;

mod marks;

pub use marks::StreamMarks;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;

/// A value still arriving, or complete.
#[derive(Debug, Clone, PartialEq)]
pub struct Growing<T> {
    /// The value so far.
    pub value: T,
    /// Whether the model has finished writing it.
    pub complete: bool,
}

/// How far a value of a typed partial has arrived (BAML's stream states).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ValueState {
    /// Not begun: the model has not written any of it yet.
    Pending,
    /// Begun and still arriving.
    Incomplete,
    /// Whole: it will not change.
    Complete,
}

impl ValueState {
    /// The state of a member of a typed partial, which is `None` until begun.
    pub fn of<P: PartialState>(member: &Option<P>) -> ValueState {
        member
            .as_ref()
            .map_or(ValueState::Pending, PartialState::state)
    }

    /// The state of a member that is complete only (`#[payload(complete_only)]`, a
    /// type of another crate): `None` until whole, then whole.
    pub fn of_whole<T>(member: &Option<T>) -> ValueState {
        if member.is_some() {
            ValueState::Complete
        } else {
            ValueState::Pending
        }
    }
}

/// The [`ValueState`] of a value a typed partial shows (so never
/// [`ValueState::Pending`]; a member not begun is `None`, see [`ValueState::of`]).
pub trait PartialState {
    /// Whether the value is still arriving or whole.
    fn state(&self) -> ValueState;
}

impl<T> PartialState for Growing<T> {
    fn state(&self) -> ValueState {
        if self.complete {
            ValueState::Complete
        } else {
            ValueState::Incomplete
        }
    }
}

/// A nullable value's partial form: `None` is a `null`, which is whole.
impl<P: PartialState> PartialState for Option<P> {
    fn state(&self) -> ValueState {
        self.as_ref()
            .map_or(ValueState::Complete, PartialState::state)
    }
}

/// Where a partial value is being read, and what of it is still open.
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    /// The JSON pointer of the value being read.
    here: String,
    /// The pointer of what is still arriving; `None` when everything is complete.
    open: Option<&'a str>,
}

impl<'a> Cursor<'a> {
    /// The root of a partial value whose open point is `open` (see
    /// [`crate::stream::partial_with_open`]).
    pub fn root(open: Option<&'a str>) -> Cursor<'a> {
        Cursor {
            here: String::new(),
            open,
        }
    }

    /// Whether the value here is complete: it is not on the way to the open point.
    pub fn complete(&self) -> bool {
        match self.open {
            None => true,
            Some(open) => {
                !(open == self.here
                    || open.starts_with(&self.here) && open[self.here.len()..].starts_with('/'))
            }
        }
    }

    /// The cursor of member `name` of the object here.
    pub fn member(&self, name: &str) -> Cursor<'a> {
        Cursor {
            here: pointer::join(&self.here, name),
            open: self.open,
        }
    }

    /// The cursor of item `index` of the array here.
    pub fn item(&self, index: usize) -> Cursor<'a> {
        Cursor {
            here: format!("{}/{index}", self.here),
            open: self.open,
        }
    }
}

/// A type with a partial form, read from a partial JSON value.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no partial form",
    label = "a member of a `#[payload(partial)]` type",
    note = "add `#[derive(payload_core::Partial)]` to `{Self}` (payload types: `#[payload(partial)]`); for a type of another crate, mark the member `#[payload(complete_only)]`"
)]
pub trait PartialType {
    /// The partial form: every member optional, see the module docs.
    type Partial: Debug + Clone + PartialEq;

    /// The partial form of `value` at `at`, `None` when nothing of it can be shown (the
    /// JSON is of another kind, or a scalar is not complete yet).
    fn read_partial(value: &Value, at: Cursor<'_>) -> Option<Self::Partial>;

    /// Gathers the members this type and the types it holds mark
    /// `#[payload(stream(not_null))]`, for the payload type's schema (see
    /// [`StreamMarks`]). The derive writes it; a hand-written partial form that holds
    /// other types forwards to them with [`StreamMarks::visit`], and one that holds none
    /// keeps this default, which gathers nothing.
    fn stream_marks(marks: &mut StreamMarks)
    where
        Self: Sized + 'static,
    {
        let _ = marks;
    }
}

impl StreamMarks {
    /// Gathers the marks of `T` and of the types it holds ([`PartialType::stream_marks`]),
    /// once per type.
    pub fn visit<T: PartialType + 'static>(&mut self) {
        self.visit_by(std::any::TypeId::of::<T>(), T::stream_marks);
    }
}

/// Scalars and opaque values show only once complete and decodable: their partial form
/// is themselves (the "complete only" rule of the module docs).
macro_rules! complete_only {
    ($($ty:ty),* $(,)?) => {$(
        impl PartialType for $ty {
            type Partial = $ty;

            fn read_partial(value: &Value, at: Cursor<'_>) -> Option<$ty> {
                if !at.complete() {
                    return None;
                }
                <$ty as serde::Deserialize>::deserialize(value).ok()
            }
        }

        /// Shown only once whole.
        impl PartialState for $ty {
            fn state(&self) -> ValueState {
                ValueState::Complete
            }
        }
    )*};
}

complete_only!(
    bool, u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64, char
);

complete_only!(
    std::num::NonZeroU8,
    std::num::NonZeroU16,
    std::num::NonZeroU32,
    std::num::NonZeroU64,
    std::num::NonZeroUsize,
    std::num::NonZeroI32,
    std::num::NonZeroI64,
    std::time::Duration,
    std::time::SystemTime,
    std::net::IpAddr,
    std::net::Ipv4Addr,
    std::net::Ipv6Addr,
    std::net::SocketAddr,
    std::net::SocketAddrV4,
    std::net::SocketAddrV6,
    std::path::PathBuf,
);

#[cfg(feature = "chrono")]
complete_only!(
    chrono::NaiveDate,
    chrono::NaiveTime,
    chrono::NaiveDateTime,
    chrono::DateTime<chrono::Utc>,
    chrono::DateTime<chrono::FixedOffset>,
);

#[cfg(feature = "uuid")]
complete_only!(uuid::Uuid);

impl PartialType for String {
    type Partial = Growing<String>;

    fn read_partial(value: &Value, at: Cursor<'_>) -> Option<Growing<String>> {
        Some(Growing {
            value: value.as_str()?.to_string(),
            complete: at.complete(),
        })
    }
}

impl PartialType for Value {
    type Partial = Growing<Value>;

    fn read_partial(value: &Value, at: Cursor<'_>) -> Option<Growing<Value>> {
        Some(Growing {
            value: value.clone(),
            complete: at.complete(),
        })
    }
}

impl<T: PartialType> PartialType for Option<T> {
    /// `None` for `null`.
    type Partial = Option<T::Partial>;

    fn read_partial(value: &Value, at: Cursor<'_>) -> Option<Option<T::Partial>> {
        if value.is_null() {
            return Some(None);
        }
        T::read_partial(value, at).map(Some)
    }

    fn stream_marks(marks: &mut StreamMarks)
    where
        Self: 'static,
    {
        marks.visit::<T>();
    }
}

impl<T: PartialType> PartialType for Nullable<T> {
    /// `None` for `null`.
    type Partial = Option<T::Partial>;

    fn read_partial(value: &Value, at: Cursor<'_>) -> Option<Option<T::Partial>> {
        <Option<T>>::read_partial(value, at)
    }

    fn stream_marks(marks: &mut StreamMarks)
    where
        Self: 'static,
    {
        marks.visit::<T>();
    }
}

impl<T: PartialType> PartialType for Box<T> {
    type Partial = T::Partial;

    fn read_partial(value: &Value, at: Cursor<'_>) -> Option<T::Partial> {
        T::read_partial(value, at)
    }

    fn stream_marks(marks: &mut StreamMarks)
    where
        Self: 'static,
    {
        marks.visit::<T>();
    }
}

impl<T: PartialType> PartialType for Vec<T> {
    /// The items that can be shown, in order (an item not showable yet, such as a
    /// number still being typed, ends the list).
    type Partial = Growing<Vec<T::Partial>>;

    fn read_partial(value: &Value, at: Cursor<'_>) -> Option<Self::Partial> {
        let items = value.as_array()?;
        let value = items
            .iter()
            .enumerate()
            .map_while(|(index, item)| T::read_partial(item, at.item(index)))
            .collect();
        Some(Growing {
            value,
            complete: at.complete(),
        })
    }

    fn stream_marks(marks: &mut StreamMarks)
    where
        Self: 'static,
    {
        marks.visit::<T>();
    }
}

/// Maps keyed by strings: the entries that can be shown.
macro_rules! partial_maps {
    ($($map:ident),*) => {$(
        impl<T: PartialType> PartialType for $map<String, T> {
            type Partial = Growing<Vec<(String, T::Partial)>>;

            fn read_partial(value: &Value, at: Cursor<'_>) -> Option<Self::Partial> {
                Some(Growing {
                    value: entries::<T>(value.as_object()?, &at),
                    complete: at.complete(),
                })
            }

            fn stream_marks(marks: &mut StreamMarks)
            where
                Self: 'static,
            {
                marks.visit::<T>();
            }
        }
    )*};
}

partial_maps!(HashMap, BTreeMap);

impl PartialType for Map<String, Value> {
    type Partial = Growing<Map<String, Value>>;

    fn read_partial(value: &Value, at: Cursor<'_>) -> Option<Self::Partial> {
        Some(Growing {
            value: value.as_object()?.clone(),
            complete: at.complete(),
        })
    }
}

/// A map's entries in the order the model wrote them.
fn entries<T: PartialType>(
    object: &Map<String, Value>,
    at: &Cursor<'_>,
) -> Vec<(String, T::Partial)> {
    object
        .iter()
        .filter_map(|(key, item)| Some((key.clone(), T::read_partial(item, at.member(key))?)))
        .collect()
}

/// What generated partial readers call; not a public API.
#[doc(hidden)]
pub mod __private {
    use super::{Cursor, PartialType};
    use serde_json::{Map, Value};

    pub use serde_json;

    /// Member `names` (the name, then serde's aliases) of `object`, read as `T`.
    pub fn member<T: PartialType>(
        object: &Map<String, Value>,
        names: &[&str],
        at: &Cursor<'_>,
    ) -> Option<T::Partial> {
        names.iter().find_map(|name| {
            object
                .get(*name)
                .and_then(|value| T::read_partial(value, at.member(name)))
        })
    }

    /// Member `names` of `object`, shown only once its value is whole, read by `read`
    /// (a member that is complete only: `#[payload(complete_only)]`, serde's `with`).
    pub fn complete_member<T>(
        object: &Map<String, Value>,
        names: &[&str],
        at: &Cursor<'_>,
        read: impl Fn(&Value) -> Option<T>,
    ) -> Option<T> {
        names.iter().find_map(|name| {
            let value = object.get(*name)?;
            if at.member(name).complete() {
                read(value)
            } else {
                None
            }
        })
    }

    /// Whether member `names` of `object` has a value: it is written, and not `null`.
    pub fn has_value(object: &Map<String, Value>, names: &[&str]) -> bool {
        names
            .iter()
            .any(|name| object.get(*name).is_some_and(|value| !value.is_null()))
    }

    /// [`StreamMarks::visit`](super::StreamMarks::visit) of a member's type, written
    /// with the type named where generated code names its partial form (so a type with
    /// no partial form is one report, at the member, not one more for this call).
    pub fn visit(
        marks: &mut super::StreamMarks,
        id: std::any::TypeId,
        gather: fn(&mut super::StreamMarks),
    ) {
        marks.visit_by(id, gather);
    }

    /// `value` decoded by serde, `None` when it does not decode.
    pub fn deserialize<T: serde::de::DeserializeOwned>(value: &Value) -> Option<T> {
        T::deserialize(value).ok()
    }

    /// The complete string at member `name`, for a tag.
    pub fn tag<'v>(object: &'v Map<String, Value>, name: &str, at: &Cursor<'_>) -> Option<&'v str> {
        let value = object.get(name)?.as_str()?;
        at.member(name).complete().then_some(value)
    }

    /// A unit enum's value: only a complete string, decoded by serde.
    pub fn unit<T: serde::de::DeserializeOwned>(value: &Value, at: &Cursor<'_>) -> Option<T> {
        if !at.complete() {
            return None;
        }
        T::deserialize(value).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read<T: PartialType>(text: &str) -> Option<T::Partial> {
        let (value, open) = crate::stream::partial_with_open(text)?;
        T::read_partial(&value, Cursor::root(open.as_deref()))
    }

    #[test]
    fn strings_say_whether_they_are_still_growing() {
        let rows = read::<Vec<String>>(r#"["done", "gro"#).unwrap();
        assert!(!rows.complete);
        assert_eq!(
            rows.value,
            [
                Growing {
                    value: "done".to_string(),
                    complete: true
                },
                Growing {
                    value: "gro".to_string(),
                    complete: false
                }
            ]
        );
        let closed = read::<Vec<String>>(r#"["a"]"#).unwrap();
        assert!(closed.complete && closed.value[0].complete);
    }

    #[test]
    fn scalars_show_only_once_complete() {
        assert_eq!(
            read::<Vec<u32>>("[1, 2, 3"),
            Some(Growing {
                value: vec![1, 2],
                complete: false
            })
        );
        assert_eq!(read::<Vec<u8>>("[1, 300]").map(|g| g.value), Some(vec![1]));
        // (A bare word shows once something follows it, as a number does.)
        assert_eq!(
            read::<Vec<Option<bool>>>("[null, true]").map(|g| g.value),
            Some(vec![None, Some(true)])
        );
        assert_eq!(read::<Option<bool>>("null"), None);
    }

    #[test]
    fn maps_keep_the_models_order() {
        let map = read::<BTreeMap<String, u8>>(r#"{"b": 2, "a": 1, "c": 3"#).unwrap();
        assert_eq!(map.value, [("b".to_string(), 2), ("a".to_string(), 1)]);
        assert!(!map.complete);
        assert_eq!(
            read::<Map<String, Value>>(r#"{"x": [1]}"#).map(|g| g.value),
            Some(json!({"x": [1]}).as_object().unwrap().clone())
        );
    }

    #[test]
    fn the_cursor_knows_what_is_on_the_way_to_the_open_point() {
        let at = Cursor::root(Some("/rows/2/name"));
        assert!(!at.complete());
        assert!(!at.member("rows").complete());
        assert!(at.member("rows").item(1).complete());
        assert!(!at.member("rows").item(2).complete());
        assert!(at.member("rows").item(2).member("id").complete());
        assert!(
            at.member("row").complete(),
            "a prefix of a name is another member"
        );
        assert!(Cursor::root(None).member("anything").complete());
    }
}
