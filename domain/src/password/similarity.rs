//! Django's `UserAttributeSimilarityValidator`: difflib's `quick_ratio`
//! between the lowercased password and an attribute or any of its parts.

use std::collections::HashMap;

/// Whether `password` is at least `max_similarity` similar to `value` or to
/// any part of it split on non-alphanumeric characters.
pub(super) fn too_similar(password: &str, value: &str, max_similarity: f64) -> bool {
    if value.is_empty() {
        return false;
    }
    let password: Vec<char> = password.to_lowercase().chars().collect();
    let value = value.to_lowercase();
    value
        .split(|c: char| !c.is_alphanumeric())
        .chain(std::iter::once(value.as_str()))
        .map(|part| part.chars().collect::<Vec<char>>())
        .filter(|part| !exceeds_length_ratio(&password, part, max_similarity))
        .any(|part| quick_ratio(&password, &part) >= max_similarity)
}

/// A part far shorter than the password cannot reach the ratio: skip it.
fn exceeds_length_ratio(password: &[char], part: &[char], max_similarity: f64) -> bool {
    let length_bound = max_similarity / 2.0 * password.len() as f64;
    password.len() >= 10 * part.len() && (part.len() as f64) < length_bound
}

/// `2·M / T`, where M counts the characters the two share (as multisets).
fn quick_ratio(a: &[char], b: &[char]) -> f64 {
    let total = a.len() + b.len();
    if total == 0 {
        return 1.0;
    }
    let mut available: HashMap<char, usize> = HashMap::new();
    for c in b {
        *available.entry(*c).or_default() += 1;
    }
    let matches = a
        .iter()
        .filter(|c| match available.get_mut(c) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        })
        .count();
    2.0 * matches as f64 / total as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    #[test]
    fn quick_ratio_matches_difflib() {
        // difflib.SequenceMatcher(a="abcd", b="bcde").quick_ratio() == 0.75
        assert_eq!(quick_ratio(&chars("abcd"), &chars("bcde")), 0.75);
        assert_eq!(quick_ratio(&chars("aaaa"), &chars("a")), 0.4);
    }

    #[test]
    fn compares_with_parts_and_the_whole() {
        assert!(too_similar("smith2026", "alice.smith@example.com", 0.7));
        assert!(too_similar(
            "ALICE.SMITH@EXAMPLE.COM",
            "alice.smith@example.com",
            0.7
        ));
        assert!(!too_similar(
            "correct-horse-battery-42",
            "alice.smith@example.com",
            0.7
        ));
        assert!(!too_similar("anything", "", 0.7));
    }
}
