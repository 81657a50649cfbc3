//! A selector written as text, so a store can keep one (a scheduled job's,
//! a monitor's) and read it back unchanged: one criterion per line,
//! `key value`, with `%`, line feed and carriage return percent-escaped.

use super::{Criteria, Search, Selector};
use crate::machine_type::MachineType;
use crate::tag::Tag;

impl Selector {
    /// The selector as text that [`Selector::from_stored`] reads back.
    pub fn to_stored(&self) -> String {
        let Self::Matching(criteria) = self else {
            return "all".to_owned();
        };
        let mut lines = Vec::new();
        if let Some(serials) = &criteria.serials {
            lines.push("serials".to_owned());
            lines.extend(
                serials
                    .iter()
                    .map(|serial| format!("serial {}", escape(serial))),
            );
        }
        lines.extend(
            criteria
                .tags
                .iter()
                .map(|tag| format!("tag {}", tag.as_str())),
        );
        lines.extend(
            criteria
                .any_tags
                .iter()
                .map(|tag| format!("any_tag {}", tag.as_str())),
        );
        if let Some(online) = criteria.online {
            lines.push(format!("online {online}"));
        }
        if let Some(kind) = criteria.machine_type {
            lines.push(format!("machine_type {}", kind.code()));
        }
        if let Some(search) = &criteria.search {
            lines.push(format!("search {}", escape(search.needle())));
        }
        lines.join("\n")
    }

    /// Reads back what [`Selector::to_stored`] wrote; `None` for any other text.
    pub fn from_stored(text: &str) -> Option<Self> {
        if text == "all" {
            return Some(Self::All);
        }
        let mut criteria = Criteria::default();
        for line in text.split('\n') {
            let (key, value) = line.split_once(' ').unwrap_or((line, ""));
            match key {
                "serials" => criteria.serials = Some(Vec::new()),
                "serial" => criteria.serials.as_mut()?.push(unescape(value)?),
                "tag" => criteria.tags.push(Tag::parse(value).ok()?),
                "any_tag" => criteria.any_tags.push(Tag::parse(value).ok()?),
                "online" => criteria.online = Some(value.parse().ok()?),
                "machine_type" => criteria.machine_type = Some(MachineType::from_code(value)?),
                "search" => criteria.search = Some(Search::new(&unescape(value)?)?),
                _ => return None,
            }
        }
        (!criteria.is_empty()).then_some(Self::Matching(criteria))
    }
}

fn escape(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\n', "%0A")
        .replace('\r', "%0D")
}

fn unescape(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let code = rest.get(at + 1..at + 3)?;
        out.push(match code {
            "25" => '%',
            "0A" => '\n',
            "0D" => '\r',
            _ => return None,
        });
        rest = &rest[at + 3..];
    }
    out.push_str(rest);
    Some(out)
}
