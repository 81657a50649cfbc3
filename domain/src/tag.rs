//! Tags: short labels an operator puts on devices ("lab", "site:berlin") to
//! find and act on them together (docs/api.md, "Fleet").

use std::fmt;
use thiserror::Error;

/// The longest tag, in characters.
pub const MAX_TAG_LENGTH: usize = 40;
/// The most distinct tags one device carries.
pub const MAX_TAGS: usize = 20;

/// A tag: lowercase, 1–40 characters of `a-z0-9._:-`, beginning with a
/// letter or digit.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tag(String);

/// The text is no tag, even lowercased.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("not a valid tag")]
pub struct InvalidTag;

/// A device would carry more than [`MAX_TAGS`] tags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("a device carries at most {MAX_TAGS} tags")]
pub struct TooManyTags;

impl Tag {
    /// Lowercases `raw` (`Lab` is `lab`) and checks it.
    pub fn parse(raw: &str) -> Result<Self, InvalidTag> {
        let tag = raw.to_lowercase();
        let allowed = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || "._:-".contains(c);
        let first_ok = tag
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
        if first_ok && tag.chars().count() <= MAX_TAG_LENGTH && tag.chars().all(allowed) {
            Ok(Self(tag))
        } else {
            Err(InvalidTag)
        }
    }

    /// Takes a tag read back from storage as it is.
    pub fn from_stored(tag: String) -> Self {
        Self(tag)
    }

    /// The tag's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The tags of one device: distinct, ascending, at most [`MAX_TAGS`].
#[derive(Debug, Clone, PartialEq, Eq, Default, Hash)]
pub struct TagSet(Vec<Tag>);

impl TagSet {
    /// The set of `tags` (duplicates count once), unless there are more
    /// than [`MAX_TAGS`] distinct ones.
    pub fn new(tags: impl IntoIterator<Item = Tag>) -> Result<Self, TooManyTags> {
        let mut tags: Vec<Tag> = tags.into_iter().collect();
        tags.sort();
        tags.dedup();
        if tags.len() > MAX_TAGS {
            return Err(TooManyTags);
        }
        Ok(Self(tags))
    }

    /// Takes tags read back from storage (sorted and made distinct here).
    pub fn from_stored(tags: impl IntoIterator<Item = Tag>) -> Self {
        let mut tags: Vec<Tag> = tags.into_iter().collect();
        tags.sort();
        tags.dedup();
        Self(tags)
    }

    /// The tags, ascending.
    pub fn as_slice(&self) -> &[Tag] {
        &self.0
    }

    /// Whether the set holds `tag`.
    pub fn contains(&self, tag: &Tag) -> bool {
        self.0.binary_search(tag).is_ok()
    }

    /// How many tags there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// This set without the `change`'s removals, then with its additions.
    pub fn changed(&self, change: &TagChange) -> Result<Self, TooManyTags> {
        let kept = self.0.iter().filter(|tag| !change.remove.contains(tag));
        Self::new(kept.chain(change.add.iter()).cloned())
    }
}

/// A change to the tags of many devices: each loses `remove`, then gains `add`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TagChange {
    /// Tags to take away (a device without one is left as it is).
    pub remove: Vec<Tag>,
    /// Tags to put on.
    pub add: Vec<Tag>,
}

/// A tag and how many of an account's devices carry it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagCount {
    /// The tag.
    pub tag: Tag,
    /// How many devices carry it (at least one).
    pub devices: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tag(raw: &str) -> Tag {
        Tag::parse(raw).unwrap()
    }

    #[test]
    fn tags_are_lowercased_then_checked() {
        assert_eq!(tag("Lab").as_str(), "lab");
        assert_eq!(tag("site:Berlin-2.a_b").as_str(), "site:berlin-2.a_b");
        assert_eq!(tag("9lives").as_str(), "9lives");
        assert_eq!(tag(&"a".repeat(40)).as_str().len(), 40);
        for bad in [
            "", "-lab", ".x", ":x", "_x", "la b", "lab!", "é", "Ü", "a/b",
        ] {
            assert_eq!(Tag::parse(bad), Err(InvalidTag), "{bad:?}");
        }
        assert_eq!(Tag::parse(&"a".repeat(41)), Err(InvalidTag));
    }

    #[test]
    fn a_set_is_sorted_distinct_and_bounded() {
        let set = TagSet::new([tag("b"), tag("a"), tag("B")]).unwrap();
        assert_eq!(set.as_slice(), &[tag("a"), tag("b")]);
        assert!(set.contains(&tag("a")) && !set.contains(&tag("c")));
        let twenty = (0..20).map(|n| tag(&format!("t{n}")));
        assert_eq!(TagSet::new(twenty.clone()).unwrap().len(), 20);
        let with_duplicates = twenty.clone().chain([tag("t0")]);
        assert_eq!(TagSet::new(with_duplicates).unwrap().len(), 20);
        assert_eq!(TagSet::new(twenty.chain([tag("x")])), Err(TooManyTags));
    }

    #[test]
    fn a_change_removes_then_adds() {
        let set = TagSet::new([tag("a"), tag("b")]).unwrap();
        let change = TagChange {
            remove: vec![tag("a"), tag("c")],
            add: vec![tag("a"), tag("d")],
        };
        let changed = set.changed(&change).unwrap();
        assert_eq!(changed.as_slice(), &[tag("a"), tag("b"), tag("d")]);
        let full = TagSet::new((0..20).map(|n| tag(&format!("t{n}")))).unwrap();
        let add_one = TagChange {
            remove: vec![],
            add: vec![tag("x")],
        };
        assert_eq!(full.changed(&add_one), Err(TooManyTags));
        let swap = TagChange {
            remove: vec![tag("t0")],
            add: vec![tag("x")],
        };
        assert_eq!(full.changed(&swap).unwrap().len(), 20);
    }
}
