//! Column ids as the model sees them: `col_` and the name in lower case with `_`
//! between words, numbered when taken ("Role" is `col_role`, a second one
//! `col_role_2`). Each base name remembers the next number to try, so a thousand
//! columns whose names collapse to one id cost a thousand tries, not half a million.

use std::collections::{HashMap, HashSet};

/// The ids a table has taken, and the next number to try for each base.
#[derive(Debug, Default)]
pub struct ColumnIds {
    taken: HashSet<String>,
    next_number: HashMap<String, usize>,
    /// How many candidate ids were looked up (what the tests count).
    pub tries: usize,
}

impl ColumnIds {
    /// The ids of a table's columns.
    pub fn new(taken: impl IntoIterator<Item = String>) -> ColumnIds {
        ColumnIds {
            taken: taken.into_iter().collect(),
            ..ColumnIds::default()
        }
    }

    /// A free id for a column named `name`, now taken.
    pub fn allocate(&mut self, name: &str) -> String {
        let base = base_id(name);
        self.tries += 1;
        if self.taken.insert(base.clone()) {
            return base;
        }
        let next = self.next_number.entry(base.clone()).or_insert(2);
        loop {
            let id = format!("{base}_{next}");
            *next += 1;
            self.tries += 1;
            if self.taken.insert(id.clone()) {
                return id;
            }
        }
    }

    /// Frees an id (its column was removed).
    pub fn release(&mut self, id: &str) {
        self.taken.remove(id);
    }
}

/// `col_` and the name's words in lower case, joined by `_`.
fn base_id(name: &str) -> String {
    let slug: String = name
        .to_lowercase()
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("_");
    format!("col_{}", if slug.is_empty() { "column" } else { &slug })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_ids_are_slugs_numbered_when_taken() {
        let mut ids = ColumnIds::new(["col_role".to_string()]);
        assert_eq!(ids.allocate("Applied on"), "col_applied_on");
        assert_eq!(ids.allocate("Role"), "col_role_2");
        assert_eq!(ids.allocate("\"; DROP TABLE x; --"), "col_drop_table_x");
        assert_eq!(ids.allocate("✓"), "col_column");
        ids.release("col_role");
        assert_eq!(ids.allocate("role"), "col_role");
    }

    #[test]
    fn names_that_collapse_to_one_id_cost_one_try_each() {
        // `col_x_3` is taken by a column named so; the numbering steps over it once.
        let mut ids = ColumnIds::new(["col_x_3".to_string()]);
        let made: HashSet<String> = (0..2000)
            .map(|i| ids.allocate(["x", "X", "x!"][i % 3]))
            .collect();
        assert_eq!(made.len(), 2000);
        assert!(ids.tries <= 2000 + 2000 + 1, "{} tries", ids.tries);
    }
}
