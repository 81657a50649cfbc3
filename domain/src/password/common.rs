//! The list of the 20,000 most common passwords, embedded compressed.

use flate2::read::GzDecoder;
use std::collections::HashSet;
use std::io::Read;
use std::sync::OnceLock;

static COMPRESSED: &[u8] = include_bytes!("../../data/common-passwords.txt.gz");

fn list() -> &'static HashSet<String> {
    static LIST: OnceLock<HashSet<String>> = OnceLock::new();
    LIST.get_or_init(|| {
        let mut text = String::new();
        // The bytes are part of the binary and tested below, so this cannot fail at run time.
        GzDecoder::new(COMPRESSED)
            .read_to_string(&mut text)
            .expect("embedded common-password list is valid gzip text");
        text.lines()
            .map(|line| line.trim().to_lowercase())
            .collect()
    })
}

/// Whether `password`, ignoring letter case, is on the list.
pub(super) fn is_common(password: &str) -> bool {
    list().contains(&password.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_complete_and_case_insensitive() {
        assert!(list().len() > 19_000);
        assert!(is_common("password"));
        assert!(is_common("QWERTY"));
        assert!(!is_common("correct-horse-battery-42"));
    }
}
