//! libpq's key=value connection strings (`host=db password='a b\'c'`), read
//! as tokio-postgres reads them, with where each pair stands in the string
//! so that some can be cut out and the rest left as written.

use std::ops::Range;

/// One `key=value` pair.
pub(super) struct Pair {
    pub(super) key: String,
    /// Unquoted and unescaped.
    pub(super) value: String,
    /// Where the pair stands in the string, from its key to its value's end.
    pub(super) span: Range<usize>,
}

/// The pairs of `s`, or `None` when it is not a list of pairs (a key without
/// `=`, a value without its closing quote, an empty value).
pub(super) fn read(s: &str) -> Option<Vec<Pair>> {
    let mut reader = Reader { s, at: 0 };
    let mut pairs = Vec::new();
    loop {
        reader.skip_while(char::is_whitespace);
        let start = reader.at;
        let key = reader.skip_while(|c| !c.is_whitespace() && c != '=');
        if key.is_empty() {
            return reader.rest().is_empty().then_some(pairs);
        }
        reader.skip_while(char::is_whitespace);
        if reader.next() != Some('=') {
            return None;
        }
        reader.skip_while(char::is_whitespace);
        let value = reader.value()?;
        pairs.push(Pair {
            key: key.to_owned(),
            value,
            span: start..reader.at,
        });
    }
}

struct Reader<'a> {
    s: &'a str,
    at: usize,
}

impl<'a> Reader<'a> {
    fn rest(&self) -> &'a str {
        &self.s[self.at..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += c.len_utf8();
        Some(c)
    }

    fn skip_while(&mut self, keep: impl Fn(char) -> bool) -> &'a str {
        let start = self.at;
        while self.peek().is_some_and(&keep) {
            self.next();
        }
        &self.s[start..self.at]
    }

    /// A value: quoted (`'…'`, up to the next unescaped quote) or simple (up
    /// to the next white space), with backslash escapes in both.
    fn value(&mut self) -> Option<String> {
        let quoted = self.peek() == Some('\'');
        if quoted {
            self.next();
        }
        let mut value = String::new();
        loop {
            match self.peek() {
                Some('\'') if quoted => {
                    self.next();
                    return Some(value);
                }
                Some(c) if c.is_whitespace() && !quoted => break,
                None if quoted => return None,
                None => break,
                Some(_) => {}
            }
            match self.next() {
                Some('\\') => value.extend(self.next()),
                Some(c) => value.push(c),
                None => {}
            }
        }
        (!value.is_empty()).then_some(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(s: &str) -> Option<Vec<(String, String, &str)>> {
        read(s).map(|pairs| {
            pairs
                .into_iter()
                .map(|p| (p.key, p.value, &s[p.span]))
                .collect()
        })
    }

    #[test]
    fn simple_and_quoted_values_with_escapes() {
        let s = r"host=db  password = 'it\'s a b' user=a\ b dbname=''";
        let expected = [
            ("host", "db", "host=db"),
            ("password", "it's a b", r"password = 'it\'s a b'"),
            ("user", "a b", r"user=a\ b"),
            ("dbname", "", "dbname=''"),
        ];
        let found = pairs(s).unwrap();
        assert_eq!(found.len(), expected.len());
        for ((key, value, span), (k, v, sp)) in found.iter().zip(expected) {
            assert_eq!((key.as_str(), value.as_str(), *span), (k, v, sp));
        }
        assert_eq!(pairs("  ").unwrap().len(), 0);
    }

    #[test]
    fn what_is_not_pairs_is_none() {
        for s in ["host", "host db", "password='open", "host=", "=db"] {
            assert!(read(s).is_none(), "{s:?}");
        }
    }
}
