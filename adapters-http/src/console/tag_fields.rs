//! Tags typed in a console field: separated by commas or white space (a
//! tag holds neither), each checked as the API checks a list of tags, with
//! the API's messages (docs/api.md, Fleet).

use domain::Tag;
use domain::tag::MAX_TAGS;

/// A typed tag that is none.
pub(crate) const INVALID_TAG: &str = "Enter a valid tag: 1 to 40 characters from a-z, 0-9, \".\", \"_\", \":\" and \"-\", beginning with a letter or digit.";

/// More tags than a device carries.
pub(crate) const TOO_MANY_TAGS: &str = "Ensure this field has no more than 20 elements.";

/// The tags typed in a field, distinct and ascending; else each failing
/// rule's message, once.
pub(crate) fn parse_tags(text: &str) -> Result<Vec<Tag>, Vec<&'static str>> {
    let mut tags = Vec::new();
    let mut invalid = false;
    for word in text.split(|c: char| c == ',' || c.is_whitespace()) {
        if word.is_empty() {
            continue;
        }
        match Tag::parse(word) {
            Ok(tag) => tags.push(tag),
            Err(_) => invalid = true,
        }
    }
    tags.sort();
    tags.dedup();
    let mut messages = Vec::new();
    if invalid {
        messages.push(INVALID_TAG);
    }
    if tags.len() > MAX_TAGS {
        messages.push(TOO_MANY_TAGS);
    }
    if messages.is_empty() {
        Ok(tags)
    } else {
        Err(messages)
    }
}

/// Tags as a field shows them again: separated by spaces.
pub(crate) fn typed(tags: &[String]) -> String {
    tags.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_split_lowercased_and_checked_once_per_rule() {
        let tags = parse_tags(" Lab, site:berlin  lab\nrack-2,,").unwrap();
        let texts: Vec<&str> = tags.iter().map(Tag::as_str).collect();
        assert_eq!(texts, ["lab", "rack-2", "site:berlin"]);
        assert_eq!(parse_tags("").unwrap(), Vec::<Tag>::new());
        assert_eq!(parse_tags("ok -bad *worse").unwrap_err(), vec![INVALID_TAG]);
        let many: Vec<String> = (0..21).map(|n| format!("t{n}")).collect();
        assert_eq!(
            parse_tags(&many.join(" ")).unwrap_err(),
            vec![TOO_MANY_TAGS]
        );
        let same: Vec<&str> = std::iter::repeat_n("dup", 30).collect();
        assert_eq!(parse_tags(&same.join(",")).unwrap().len(), 1);
        let both = format!("{} _x", many.join(" "));
        assert_eq!(
            parse_tags(&both).unwrap_err(),
            vec![INVALID_TAG, TOO_MANY_TAGS]
        );
    }
}
