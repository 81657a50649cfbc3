//! Just enough HTML reading for the console's tests: the attributes of a
//! tag, the text of a fragment, and the forms of a page with the labels of
//! their fields and the texts of their buttons.

use super::Form;

/// The attributes of one tag (`<input …>`): lowercased names, unescaped values
/// (`""` for a name alone).
pub fn attributes(tag: &str) -> Vec<(String, String)> {
    let chars: Vec<char> = tag.chars().collect();
    let mut i = 1;
    while i < chars.len() && !chars[i].is_whitespace() && chars[i] != '>' {
        i += 1;
    }
    let mut found = Vec::new();
    loop {
        while i < chars.len() && (chars[i].is_whitespace() || chars[i] == '/') {
            i += 1;
        }
        if i >= chars.len() || chars[i] == '>' {
            return found;
        }
        let start = i;
        while i < chars.len() && !chars[i].is_whitespace() && !matches!(chars[i], '=' | '>' | '/') {
            i += 1;
        }
        let name: String = chars[start..i].iter().collect::<String>().to_lowercase();
        while i < chars.len() && chars[i].is_whitespace() {
            i += 1;
        }
        let mut value = String::new();
        if i < chars.len() && chars[i] == '=' {
            i += 1;
            while i < chars.len() && chars[i].is_whitespace() {
                i += 1;
            }
            if i < chars.len() && matches!(chars[i], '"' | '\'') {
                let quote = chars[i];
                i += 1;
                while i < chars.len() && chars[i] != quote {
                    value.push(chars[i]);
                    i += 1;
                }
                i += 1;
            } else {
                while i < chars.len() && !chars[i].is_whitespace() && chars[i] != '>' {
                    value.push(chars[i]);
                    i += 1;
                }
            }
        }
        found.push((name, unescape(&value)));
    }
}

/// The value of attribute `name` in the text of one tag.
pub fn attribute(tag: &str, name: &str) -> Option<String> {
    attributes(tag)
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, value)| value)
}

/// The text of HTML: tags dropped, the common entities decoded, white space collapsed.
pub fn text_of(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => {
                in_tag = true;
                out.push(' ');
            }
            '>' if in_tag => in_tag = false,
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    unescape(&out)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn unescape(text: &str) -> String {
    // Numeric references first (`&#60;`, `&#x3c;`), then the named ones.
    let mut decoded = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("&#") {
        decoded.push_str(&rest[..at]);
        let tail = &rest[at + 2..];
        let end = tail.find(';').unwrap_or(0);
        let code = if let Some(hex) = tail[..end].strip_prefix(['x', 'X']) {
            u32::from_str_radix(hex, 16).ok()
        } else {
            tail[..end].parse().ok()
        };
        match code.and_then(char::from_u32) {
            Some(c) if end > 0 => {
                decoded.push(c);
                rest = &tail[end + 1..];
            }
            _ => {
                decoded.push_str("&#");
                rest = tail;
            }
        }
    }
    decoded.push_str(rest);
    decoded
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&")
}

/// The tags named `name` in `html` with their positions: `(start, tag text)`.
fn tags<'h>(html: &'h str, name: &str) -> Vec<(usize, &'h str)> {
    let lower = html.to_lowercase();
    let open = format!("<{name}");
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = lower[from..].find(&open) {
        let start = from + at;
        let next = lower[start + open.len()..].chars().next().unwrap_or('>');
        let end = lower[start..]
            .find('>')
            .map_or(html.len(), |e| start + e + 1);
        if next.is_whitespace() || next == '>' || next == '/' {
            found.push((start, &html[start..end]));
        }
        from = end;
    }
    found
}

/// Every form of a page at `page_path`.
pub fn forms(html: &str, page_path: &str) -> Vec<Form> {
    let lower = html.to_lowercase();
    let labels = labels(html);
    tags(html, "form")
        .into_iter()
        .map(|(start, tag)| {
            let end = lower[start..]
                .find("</form")
                .map_or(html.len(), |e| start + e);
            let inner = &html[start..end];
            let action = attribute(tag, "action").unwrap_or_default();
            let action = if action.is_empty() {
                page_path.to_owned()
            } else if action.starts_with('/') || action.contains("://") {
                action
            } else if action.starts_with('?') {
                format!(
                    "{}{action}",
                    page_path.split('?').next().unwrap_or_default()
                )
            } else {
                format!(
                    "{}{action}",
                    page_path.rsplit_once('/').map_or("/", |(dir, _)| dir)
                )
                .replacen("//", "/", 1)
            };
            let mut fields = Vec::new();
            for kind in ["input", "select", "textarea"] {
                for (at, field) in tags(inner, kind) {
                    let Some(name) = attribute(field, "name") else {
                        continue;
                    };
                    let input_type = if kind == "input" {
                        attribute(field, "type")
                            .unwrap_or_else(|| "text".into())
                            .to_lowercase()
                    } else {
                        kind.to_owned()
                    };
                    if input_type == "submit" || input_type == "button" {
                        continue;
                    }
                    let value = if kind == "textarea" {
                        let rest = &inner[at + field.len()..];
                        unescape(&rest[..rest.to_lowercase().find("</textarea").unwrap_or(0)])
                    } else {
                        attribute(field, "value").unwrap_or_default()
                    };
                    let label = attribute(field, "aria-label")
                        .or_else(|| {
                            let id = attribute(field, "id")?;
                            labels
                                .iter()
                                .find(|(f, _)| f == &id)
                                .map(|(_, t)| t.clone())
                        })
                        .unwrap_or_default();
                    fields.push((start + at, (name, input_type, value, label)));
                }
            }
            fields.sort_by_key(|(at, _)| *at);
            let buttons = tags(inner, "button")
                .into_iter()
                .map(|(at, button)| {
                    let rest = &inner[at + button.len()..];
                    let text = text_of(&rest[..rest.to_lowercase().find("</button").unwrap_or(0)]);
                    attribute(button, "aria-label").unwrap_or(text)
                })
                .chain(tags(inner, "input").into_iter().filter_map(|(_, input)| {
                    let kind = attribute(input, "type").unwrap_or_default().to_lowercase();
                    (kind == "submit").then(|| attribute(input, "value").unwrap_or_default())
                }))
                .collect();
            Form {
                action,
                method: attribute(tag, "method")
                    .unwrap_or_else(|| "get".into())
                    .to_lowercase(),
                fields: fields.into_iter().map(|(_, field)| field).collect(),
                buttons,
            }
        })
        .collect()
}

/// `(for, text)` of every `<label for=…>`.
fn labels(html: &str) -> Vec<(String, String)> {
    let lower = html.to_lowercase();
    tags(html, "label")
        .into_iter()
        .filter_map(|(at, tag)| {
            let target = attribute(tag, "for")?;
            let rest = &html[at + tag.len()..];
            let end = lower[at + tag.len()..].find("</label").unwrap_or(0);
            Some((target, text_of(&rest[..end])))
        })
        .collect()
}

/// The form of the page that has a button with this text.
pub fn form_with_button(html: &str, page_path: &str, button: &str) -> Option<Form> {
    forms(html, page_path)
        .into_iter()
        .find(|form| form.buttons.iter().any(|b| b == button))
}
