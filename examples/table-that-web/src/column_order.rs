//! A table's column order while a proposal is applied: a linked list keyed by column
//! id, so placing, moving and removing a column each cost O(1) however wide the table
//! is (a `Vec` would make a proposal of n moves cost n times the table's width).

use std::collections::HashMap;

/// Column ids in order.
#[derive(Debug, Default)]
pub struct ColumnOrder {
    links: HashMap<String, Links>,
    head: Option<String>,
    tail: Option<String>,
}

#[derive(Debug, Default)]
struct Links {
    prev: Option<String>,
    next: Option<String>,
}

impl ColumnOrder {
    /// The order of `ids`, as given.
    pub fn new(ids: impl IntoIterator<Item = String>) -> ColumnOrder {
        let mut order = ColumnOrder::default();
        for id in ids {
            order.push_back(id);
        }
        order
    }

    /// Whether the column is there.
    pub fn contains(&self, id: &str) -> bool {
        self.links.contains_key(id)
    }

    /// How many columns there are.
    pub fn len(&self) -> usize {
        self.links.len()
    }

    /// Takes the column out; false when it was not there.
    pub fn remove(&mut self, id: &str) -> bool {
        let Some(links) = self.links.remove(id) else {
            return false;
        };
        match &links.prev {
            Some(prev) => self.link_mut(prev).next = links.next.clone(),
            None => self.head = links.next.clone(),
        }
        match &links.next {
            Some(next) => self.link_mut(next).prev = links.prev,
            None => self.tail = links.prev,
        }
        true
    }

    /// Puts `id` (not already there) after the column `after`; without one (or when it
    /// is not there), last, or first when `otherwise_first` and no anchor was named: an
    /// added column goes last and a moved one first, as the proposal's docs say, and an
    /// anchor that is not there never silently puts a column first.
    pub fn place(&mut self, id: String, after: Option<&str>, otherwise_first: bool) {
        debug_assert!(!self.contains(&id));
        match after.filter(|a| self.contains(a)) {
            Some(anchor) => {
                let anchor = anchor.to_string();
                let next = self.link_mut(&anchor).next.replace(id.clone());
                match &next {
                    Some(n) => self.link_mut(n).prev = Some(id.clone()),
                    None => self.tail = Some(id.clone()),
                }
                self.links.insert(
                    id,
                    Links {
                        prev: Some(anchor),
                        next,
                    },
                );
            }
            None if otherwise_first && after.is_none() => self.push_front(id),
            None => self.push_back(id),
        }
    }

    fn push_back(&mut self, id: String) {
        let prev = self.tail.replace(id.clone());
        match &prev {
            Some(p) => self.link_mut(p).next = Some(id.clone()),
            None => self.head = Some(id.clone()),
        }
        self.links.insert(id, Links { prev, next: None });
    }

    fn push_front(&mut self, id: String) {
        let next = self.head.replace(id.clone());
        match &next {
            Some(n) => self.link_mut(n).prev = Some(id.clone()),
            None => self.tail = Some(id.clone()),
        }
        self.links.insert(id, Links { prev: None, next });
    }

    fn link_mut(&mut self, id: &str) -> &mut Links {
        self.links
            .get_mut(id)
            .expect("a linked column is in the map")
    }

    /// The ids, first to last.
    pub fn ids(&self) -> Vec<&str> {
        let mut ids = Vec::with_capacity(self.links.len());
        let mut at = self.head.as_deref();
        while let Some(id) = at {
            ids.push(id);
            at = self.links[id].next.as_deref();
        }
        ids
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(ids: &[&str]) -> ColumnOrder {
        ColumnOrder::new(ids.iter().map(|s| s.to_string()))
    }

    #[test]
    fn an_added_column_goes_after_its_anchor_or_last_and_a_moved_one_first() {
        let mut columns = order(&["a", "b"]);
        columns.place("x".into(), Some("a"), false);
        assert_eq!(columns.ids(), ["a", "x", "b"]);
        columns.place("y".into(), None, false);
        assert_eq!(columns.ids(), ["a", "x", "b", "y"]);
        columns.place("z".into(), None, true);
        assert_eq!(columns.ids(), ["z", "a", "x", "b", "y"]);
        // An anchor that is not there: last, for both (never silently first).
        columns.place("w".into(), Some("gone"), true);
        assert_eq!(columns.ids().last().unwrap(), &"w");
        assert!(columns.remove("z") && columns.remove("w") && columns.remove("x"));
        assert!(!columns.remove("x"));
        assert_eq!(columns.ids(), ["a", "b", "y"]);
        columns.place("b2".into(), Some("b"), true);
        assert_eq!(columns.ids(), ["a", "b", "b2", "y"]);
        assert_eq!(columns.len(), 4);
    }

    #[test]
    fn it_agrees_with_a_vec_on_any_sequence() {
        // A small deterministic walk over moves and removals, against the obvious Vec.
        let mut list = order(&["a", "b", "c", "d", "e"]);
        let mut vec: Vec<String> = ["a", "b", "c", "d", "e"].map(String::from).to_vec();
        let names = ["a", "b", "c", "d", "e", "f"];
        let mut seed = 7u32;
        for _ in 0..500 {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let id = names[(seed >> 16) as usize % names.len()].to_string();
            let anchor = names.get((seed >> 8) as usize % 8).map(|s| s.to_string());
            let first = seed % 2 == 0;
            if seed % 3 == 0 {
                assert_eq!(list.remove(&id), vec.contains(&id));
                vec.retain(|v| v != &id);
            } else {
                list.remove(&id);
                vec.retain(|v| v != &id);
                list.place(id.clone(), anchor.as_deref(), first);
                match anchor
                    .as_ref()
                    .and_then(|a| vec.iter().position(|v| v == a))
                {
                    Some(at) => vec.insert(at + 1, id),
                    None if first && anchor.is_none() => vec.insert(0, id),
                    None => vec.push(id),
                }
            }
            assert_eq!(
                list.ids(),
                vec.iter().map(String::as_str).collect::<Vec<_>>()
            );
        }
    }
}
