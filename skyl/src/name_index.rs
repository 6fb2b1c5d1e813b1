//! Finding a tool by the name a model sent, in constant time and a few dozen instructions.
//!
//! A general hash map pays for things this lookup does not need: a byte-by-byte hash (tool names
//! are chosen by the developer, so there is no flooding to resist) and a call to `memcmp` for the
//! final comparison. Here a name is hashed and compared as its length and its first and last
//! eight bytes, which covers every byte of a name up to sixteen long; longer names are compared
//! in full once those agree. The table is built once and only read afterwards.

/// Positions of tools, looked up by name.
#[derive(Default)]
pub(crate) struct NameIndex {
    names: Vec<Box<str>>,
    /// Open addressing with linear probing: a slot holds a position plus one, or 0 when empty.
    /// Never more than half full, so every probe ends at an empty slot.
    slots: Box<[u32]>,
}

impl NameIndex {
    /// The position and the stored name of the tool called `name`.
    #[inline(always)]
    pub(crate) fn get(&self, name: &str) -> Option<(&str, usize)> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut slot = hash(name.as_bytes()) as usize & mask;
        loop {
            let position = (self.slots[slot] as usize).checked_sub(1)?;
            let stored = &*self.names[position];
            if same(stored.as_bytes(), name.as_bytes()) {
                return Some((stored, position));
            }
            slot = (slot + 1) & mask;
        }
    }

    /// The names, in the order they were inserted.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.names.iter().map(|name| &**name)
    }

    /// Adds `name` at the next position, or returns `false` if it is already there.
    pub(crate) fn insert(&mut self, name: &str) -> bool {
        if self.get(name).is_some() {
            return false;
        }
        self.names.push(name.into());
        if self.names.len() * 2 > self.slots.len() {
            self.rebuild((self.names.len() * 4).next_power_of_two());
        } else {
            self.place(self.names.len() - 1);
        }
        true
    }

    /// Removes the name at `position`; the names after it move down one position.
    pub(crate) fn remove(&mut self, position: usize) {
        self.names.remove(position);
        // Positions shift, so every slot changes: rebuild (removal is rare, lookups are not).
        self.rebuild(self.slots.len());
    }

    fn rebuild(&mut self, capacity: usize) {
        self.slots = vec![0; capacity].into_boxed_slice();
        for position in 0..self.names.len() {
            self.place(position);
        }
    }

    fn place(&mut self, position: usize) {
        let mask = self.slots.len() - 1;
        let mut slot = hash(self.names[position].as_bytes()) as usize & mask;
        while self.slots[slot] != 0 {
            slot = (slot + 1) & mask;
        }
        self.slots[slot] = u32::try_from(position + 1).expect("fewer than four billion tools");
    }
}

/// The name's length and its first and last eight bytes, as words.
#[inline]
fn words(name: &[u8]) -> (u64, u64) {
    match (name.first_chunk::<8>(), name.last_chunk::<8>()) {
        (Some(head), Some(tail)) => (u64::from_le_bytes(*head), u64::from_le_bytes(*tail)),
        _ => (
            name.iter()
                .fold(0, |word, &byte| word << 8 | u64::from(byte)),
            0,
        ),
    }
}

#[inline]
fn hash(name: &[u8]) -> u64 {
    let (head, tail) = words(name);
    (head ^ tail.rotate_left(29) ^ name.len() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32
}

#[inline]
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len()
        && words(a) == words(b)
        && (a.len() <= 16 || a[8..a.len() - 8] == b[8..b.len() - 8])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_name_it_holds_and_no_other() {
        let names: Vec<String> = (0..300)
            .map(|n| match n % 3 {
                0 => format!("t{n}"),
                1 => format!("get_weather_{n}"),
                _ => format!("a_rather_long_tool_name_{n}_with_a_common_suffix"),
            })
            .collect();
        let mut index = NameIndex::default();
        for name in &names {
            assert!(index.insert(name));
        }
        for (position, name) in names.iter().enumerate() {
            assert_eq!(index.get(name), Some((name.as_str(), position)));
        }
        for missing in [
            "",
            "t",
            "t1000",
            "get_weather_",
            "a_rather_long_tool_name_2_with_a_common_suffiX",
        ] {
            assert_eq!(index.get(missing), None, "{missing}");
        }
    }

    #[test]
    fn names_that_differ_only_in_the_middle_are_told_apart() {
        let mut index = NameIndex::default();
        assert!(index.insert("github_create_issue_comment_now"));
        assert!(index.insert("github_create_draft_comment_now"));
        assert_eq!(
            index.get("github_create_draft_comment_now").map(|(_, p)| p),
            Some(1)
        );
        assert_eq!(index.get("github_create_xxxxx_comment_now"), None);
    }

    #[test]
    fn a_name_is_inserted_once() {
        let mut index = NameIndex::default();
        assert!(index.insert("search"));
        assert!(!index.insert("search"));
        assert_eq!(index.get("search"), Some(("search", 0)));
        assert_eq!(NameIndex::default().get("search"), None);
    }

    #[test]
    fn a_removed_name_is_gone_and_later_names_move_down() {
        let mut index = NameIndex::default();
        for name in ["a", "b", "c"] {
            assert!(index.insert(name));
        }
        index.remove(1);
        assert_eq!(index.get("b"), None);
        assert_eq!(index.get("c"), Some(("c", 1)));
        assert_eq!(index.names().collect::<Vec<_>>(), ["a", "c"]);
        assert!(index.insert("b"));
        assert_eq!(index.get("b"), Some(("b", 2)));
    }

    #[test]
    fn short_names_of_different_lengths_differ() {
        let mut index = NameIndex::default();
        assert!(index.insert("ab"));
        assert!(index.insert("\0ab"));
        assert_eq!(index.get("ab").map(|(_, p)| p), Some(0));
        assert_eq!(index.get("\0ab").map(|(_, p)| p), Some(1));
    }
}
