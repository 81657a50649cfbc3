//! The operating system's name, from os-release(5).

use std::collections::HashMap;
use std::path::Path;

/// Where os-release(5) may be, in order: the first that exists is used.
const OS_RELEASE_PATHS: [&str; 2] = ["/etc/os-release", "/usr/lib/os-release"];

/// `PRETTY_NAME` of the operating system, `""` when unknown.
pub fn pretty_name() -> String {
    OS_RELEASE_PATHS
        .iter()
        .find_map(|path| std::fs::read_to_string(Path::new(path)).ok())
        .and_then(|text| parse(&text).remove("PRETTY_NAME"))
        .unwrap_or_default()
}

/// Parses the shell-like `KEY=value` lines of an os-release file. Values may
/// be quoted with `'…'` (literal) or `"…"` (where `\` escapes `$`, `` ` ``,
/// `"` and `\`), and a `\` outside quotes escapes any character. Comments,
/// blank lines and malformed lines are skipped; a later assignment wins.
pub fn parse(text: &str) -> HashMap<String, String> {
    text.lines()
        .filter_map(|line| {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                return None;
            }
            let (key, value) = line.split_once('=')?;
            if !is_variable_name(key) {
                return None;
            }
            Some((key.to_owned(), unquote(value)?))
        })
        .collect()
}

fn is_variable_name(key: &str) -> bool {
    let mut chars = key.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The value of a shell word; `None` when a quote is not closed.
fn unquote(word: &str) -> Option<String> {
    let mut value = String::new();
    let mut chars = word.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => loop {
                match chars.next()? {
                    '\'' => break,
                    literal => value.push(literal),
                }
            },
            '"' => loop {
                match chars.next()? {
                    '"' => break,
                    '\\' => match chars.next()? {
                        escaped @ ('$' | '`' | '"' | '\\') => value.push(escaped),
                        other => {
                            value.push('\\');
                            value.push(other);
                        }
                    },
                    literal => value.push(literal),
                }
            },
            '\\' => {
                if let Some(escaped) = chars.next() {
                    value.push(escaped);
                }
            }
            // An unquoted blank ends the word (what follows would be a comment
            // or another command to a shell).
            c if c.is_whitespace() => break,
            literal => value.push(literal),
        }
    }
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_real_file_parses() {
        let text = r#"PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
NAME="Debian GNU/Linux"
VERSION_ID="12"
ID=debian
HOME_URL="https://www.debian.org/"
"#;
        let values = parse(text);
        assert_eq!(values["PRETTY_NAME"], "Debian GNU/Linux 12 (bookworm)");
        assert_eq!(values["ID"], "debian");
        assert_eq!(values["VERSION_ID"], "12");
        assert_eq!(values["HOME_URL"], "https://www.debian.org/");
    }

    #[test]
    fn single_quotes_are_literal() {
        let values = parse(r#"PRETTY_NAME='Fedora Linux 40 (Workstation "Edition") \n'"#);
        assert_eq!(
            values["PRETTY_NAME"],
            r#"Fedora Linux 40 (Workstation "Edition") \n"#
        );
    }

    #[test]
    fn backslashes_escape_inside_double_quotes_and_bare_words() {
        let values = parse(concat!(
            r#"A="say \"hi\" \\ \$HOME \`x\` \n""#,
            "\n",
            r#"B=Raspbian\ GNU/Linux"#,
            "\n",
            r#"C="glued"'together'\!"#,
        ));
        assert_eq!(values["A"], r#"say "hi" \ $HOME `x` \n"#);
        assert_eq!(values["B"], "Raspbian GNU/Linux");
        assert_eq!(values["C"], "gluedtogether!");
    }

    #[test]
    fn comments_blank_and_malformed_lines_are_skipped() {
        let values = parse(
            "# a comment\n\n  \nNOT A LINE\n9KEY=x\nOPEN=\"never closed\nEMPTY=\nGOOD=yes # trailing\r\n",
        );
        assert_eq!(values.len(), 2, "{values:?}");
        assert_eq!(values["EMPTY"], "");
        assert_eq!(values["GOOD"], "yes");
    }

    #[test]
    fn a_later_assignment_wins() {
        assert_eq!(parse("NAME=one\nNAME=two\n")["NAME"], "two");
    }
}
