//! One walk over a value beside its schema, for the two checks serde would not make:
//! integer-valued numbers (`numbers`, docs/spec.md §7.2) and undeclared members (`members`,
//! docs/spec.md §7.1). Both need, at every object and array, the schemas that apply to it
//! ([`Applies`]); one walk decides them once per node instead of once per check.

use crate::caps::Capped;
use crate::error::PayloadError;
use crate::limits::MAX_DEPTH;
use crate::schema::applies::Applies;
use crate::validate::members::{Undeclared, Unknowns};
use crate::validate::numbers::Integers;
use crate::warning::Warning;
use payload_schema::pointer;
use serde_json::Value;

/// Walks `value` beside `root` (its schema): integer-valued floats where integers are
/// wanted are rewritten in place (each rewrite pushed to `rewrites`, numbers no integer
/// field can hold to `errors`), and undeclared members are reported (warnings to
/// `warnings`; near misses, at most `cap`, returned).
pub(crate) fn walk(
    value: &mut Value,
    root: &Value,
    errors: &mut Capped<PayloadError>,
    rewrites: &mut Capped<Warning>,
    warnings: &mut Capped<Warning>,
    cap: usize,
) -> Unknowns {
    let mut walker = Walker {
        root,
        integers: Integers { errors, rewrites },
        undeclared: Undeclared::new(warnings, cap),
        path: String::new(),
    };
    walker.visit(value, root, 0);
    walker.undeclared.finish()
}

struct Walker<'w, 'a> {
    root: &'a Value,
    integers: Integers<'w>,
    undeclared: Undeclared<'w>,
    /// The pointer of the value being visited (segments pushed and popped).
    path: String,
}

impl<'a> Walker<'_, 'a> {
    fn visit(&mut self, value: &mut Value, schema: &'a Value, depth: usize) {
        if depth >= MAX_DEPTH {
            return;
        }
        match value {
            Value::Number(_) => {
                let applies = Applies::of(self.root, schema, value);
                if let Some(integer) = applies.integer_schema() {
                    self.integers.integer(value, integer, &self.path);
                } else if applies.single_precision() {
                    self.integers.single_precision(value, &self.path);
                }
            }
            Value::Object(_) => {
                let applies = Applies::of(self.root, schema, value);
                let Value::Object(map) = value else { return };
                self.undeclared.check_members(map, &applies, &self.path);
                for (key, member) in map.iter_mut() {
                    if let Some(sub) = applies.member(key) {
                        let len = self.path.len();
                        pointer::push_token(&mut self.path, key);
                        self.visit(member, sub, depth + 1);
                        self.path.truncate(len);
                    }
                }
            }
            Value::Array(_) => {
                let applies = Applies::of(self.root, schema, value);
                let Value::Array(items) = value else { return };
                for (index, item) in items.iter_mut().enumerate() {
                    if let Some(sub) = applies.item(index) {
                        let len = self.path.len();
                        pointer::push_index(&mut self.path, index);
                        self.visit(item, sub, depth + 1);
                        self.path.truncate(len);
                    }
                }
            }
            _ => {}
        }
    }
}
