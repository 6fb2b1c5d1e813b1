//! Finding a tool by the name a model sent, in constant time and a few dozen instructions.
//!
//! A general hash map pays for things this lookup does not need: a byte-by-byte hash (tool names
//! are chosen by the developer, so there is no flooding to resist) and a call to `memcmp` for the
//! final comparison. Here a name is reduced to a key, its length and its first and last eight
//! bytes, which covers every byte of a name up to sixteen long. A slot holds the key of its name,
//! so a probe compares words already in hand and reads no name; a longer name is compared in full
//! once the keys agree. The table is built once and only read afterwards. A toolbox of a few tools
//! skips the table: comparing its few keys in turn costs less than hashing the name.

/// Up to how many names a lookup compares every key rather than hash the name: hashing and
/// probing cost about as much as comparing four keys.
const SCANNED: usize = 4;

/// Positions of tools, looked up by name.
pub(crate) struct NameIndex {
    names: Vec<Box<str>>,
    /// Each name's key, in the same order: a toolbox of a few tools is searched by comparing
    /// them all, which costs less than hashing the name.
    keys: Vec<Key>,
    /// Open addressing with linear probing, a power of two long. Never more than half full, so
    /// every probe ends at an empty slot; an index without names has one, so a lookup needs no
    /// test for an empty table.
    slots: Box<[Slot]>,
}

impl Default for NameIndex {
    fn default() -> Self {
        NameIndex {
            names: Vec::new(),
            keys: Vec::new(),
            slots: Box::new([Slot::default()]),
        }
    }
}

/// A name's key, and its position plus one (0 in an empty slot).
#[derive(Clone, Copy, Default)]
struct Slot {
    key: Key,
    position: usize,
}

/// A name's length and its first and last eight bytes: two names up to sixteen bytes long with
/// the same key are the same name.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
struct Key {
    head: u64,
    tail: u64,
    len: usize,
}

impl NameIndex {
    /// The position of the tool called `name`.
    #[inline(always)]
    pub(crate) fn get(&self, name: &str) -> Option<usize> {
        let key = Key::of(name.as_bytes());
        if self.keys.len() <= SCANNED {
            return self.scan(key, name);
        }
        let mask = self.slots.len() - 1;
        let mut slot = key.hash() & mask;
        loop {
            let Slot {
                key: stored,
                position,
            } = self.slots[slot];
            let position = position.checked_sub(1)?;
            if stored == key && (key.len <= 16 || self.is_named(position, name)) {
                return Some(position);
            }
            slot = (slot + 1) & mask;
        }
    }

    /// [`get`](Self::get) by comparing every key, for a toolbox of at most [`SCANNED`] tools.
    #[inline(always)]
    fn scan(&self, key: Key, name: &str) -> Option<usize> {
        // Two long names may share a key, so a match is not the end of the search.
        (0..self.keys.len()).find(|&position| {
            self.keys[position] == key && (key.len <= 16 || self.is_named(position, name))
        })
    }

    /// Whether the name at `position` is `name`: for a name longer than sixteen bytes, whose key
    /// leaves its middle out. Out of line, off the path of the short names most tools have.
    #[inline(never)]
    fn is_named(&self, position: usize, name: &str) -> bool {
        *self.names[position] == *name
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
        self.keys.push(Key::of(name.as_bytes()));
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
        self.keys.remove(position);
        // Positions shift, so every slot changes: rebuild (removal is rare, lookups are not).
        self.rebuild(self.slots.len());
    }

    fn rebuild(&mut self, capacity: usize) {
        self.slots = vec![Slot::default(); capacity].into_boxed_slice();
        for position in 0..self.names.len() {
            self.place(position);
        }
    }

    fn place(&mut self, position: usize) {
        let key = self.keys[position];
        let mask = self.slots.len() - 1;
        let mut slot = key.hash() & mask;
        while self.slots[slot].position != 0 {
            slot = (slot + 1) & mask;
        }
        self.slots[slot] = Slot {
            key,
            position: position + 1,
        };
    }
}

impl Key {
    #[inline(always)]
    fn of(name: &[u8]) -> Key {
        // Two reads that overlap cover every byte of a name as long as one read or up to twice
        // as long; with the length in the key, overlapping bytes cannot make two names agree.
        let (head, tail) = if let (Some(head), Some(tail)) =
            (name.first_chunk::<8>(), name.last_chunk::<8>())
        {
            (u64::from_le_bytes(*head), u64::from_le_bytes(*tail))
        } else if let (Some(head), Some(tail)) = (name.first_chunk::<4>(), name.last_chunk::<4>()) {
            (
                u64::from(u32::from_le_bytes(*head)),
                u64::from(u32::from_le_bytes(*tail)),
            )
        } else if let (Some(&first), Some(&last)) = (name.first(), name.last()) {
            let middle = name[name.len() / 2];
            (
                u64::from(first) | u64::from(middle) << 8 | u64::from(last) << 16,
                0,
            )
        } else {
            (0, 0)
        };
        Key {
            head,
            tail,
            len: name.len(),
        }
    }

    #[inline(always)]
    fn hash(&self) -> usize {
        let mixed = self.head ^ self.tail.rotate_left(29) ^ self.len as u64;
        (mixed.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as usize
    }
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
            assert_eq!(index.get(name), Some(position));
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
        assert_eq!(index.get("github_create_draft_comment_now"), Some(1));
        assert_eq!(index.get("github_create_xxxxx_comment_now"), None);
    }

    #[test]
    fn a_name_is_inserted_once() {
        let mut index = NameIndex::default();
        assert!(index.insert("search"));
        assert!(!index.insert("search"));
        assert_eq!(index.get("search"), Some(0));
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
        assert_eq!(index.get("c"), Some(1));
        assert_eq!(index.names().collect::<Vec<_>>(), ["a", "c"]);
        assert!(index.insert("b"));
        assert_eq!(index.get("b"), Some(2));
    }

    #[test]
    fn every_short_name_is_told_from_every_other() {
        // Every name of up to nine bytes over three letters, one of them a zero byte: the
        // lengths where the reads that make a key start to overlap, and past them.
        let mut names = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..9 {
            last = last
                .iter()
                .flat_map(|name| ["a", "b", "\0"].map(|letter| format!("{name}{letter}")))
                .collect();
            names.extend(last.iter().cloned());
        }
        let mut index = NameIndex::default();
        for name in &names {
            assert!(index.insert(name), "{name:?} was taken for another name");
        }
        for (position, name) in names.iter().enumerate() {
            assert_eq!(index.get(name), Some(position), "{name:?}");
        }
        assert_eq!(index.get("c"), None);
    }

    #[test]
    fn lookups_agree_on_either_side_of_the_scanned_size() {
        // Up to `SCANNED` names are compared in turn, past it hashed: growing past the switch
        // and shrinking back below it finds every name at its position, and no other.
        let names: Vec<String> = (0..SCANNED + 3)
            .map(|n| format!("a_tool_name_longer_than_sixteen_bytes_{n}"))
            .collect();
        let mut index = NameIndex::default();
        for (held, name) in names.iter().enumerate() {
            assert!(index.insert(name));
            for (position, name) in names[..=held].iter().enumerate() {
                assert_eq!(index.get(name), Some(position), "{} names", held + 1);
            }
            // A name's first bytes, which share its key's first word but not its length.
            assert_eq!(index.get(&name[..name.len() - 1]), None);
        }
        while index.names().count() > 1 {
            index.remove(0);
            let held: Vec<&str> = index.names().collect();
            for (position, name) in held.iter().enumerate() {
                assert_eq!(index.get(name), Some(position), "{} names", held.len());
            }
            assert_eq!(index.get(&names[0]), None);
        }
    }

    #[test]
    fn short_names_of_different_lengths_differ() {
        let mut index = NameIndex::default();
        assert!(index.insert("ab"));
        assert!(index.insert("\0ab"));
        assert_eq!(index.get("ab"), Some(0));
        assert_eq!(index.get("\0ab"), Some(1));
    }
}
