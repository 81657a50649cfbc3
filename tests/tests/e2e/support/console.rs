//! The web console over plain HTTP, as a browser without script uses it: a
//! cookie jar, `Accept: text/html`, and forms found by the visible labels of
//! their fields and the text of their buttons (the names the contract fixes),
//! submitted with every hidden field they carry (the CSRF token among them).

use super::{Reply, Server};
use std::collections::BTreeMap;

/// The `Accept` header of a browser's navigation.
pub const BROWSER_ACCEPT: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

/// One browser's cookies on one server.
pub struct Console<'a> {
    server: &'a Server,
    /// The cookies held, by name.
    pub cookies: BTreeMap<String, String>,
}

/// A form of a page: where it posts, and its fields in order.
#[derive(Debug, Clone)]
pub struct Form {
    /// The `action`, resolved against the page's path (the page itself when absent).
    pub action: String,
    /// `post` or `get`, lowercased.
    pub method: String,
    /// `(name, type, value, label)` of every `input`, `select` and `textarea`
    /// with a name; `label` is the text of its `<label>` or `aria-label`.
    pub fields: Vec<(String, String, String, String)>,
    /// The visible texts of its buttons.
    pub buttons: Vec<String>,
}

impl Form {
    /// The hidden fields whose name mentions `csrf` (case-insensitive).
    pub fn csrf_fields(&self) -> Vec<String> {
        self.fields
            .iter()
            .filter(|(name, kind, _, _)| kind == "hidden" && name.to_lowercase().contains("csrf"))
            .map(|(name, _, _, _)| name.clone())
            .collect()
    }

    /// The body a browser posts: every field's value, the labelled ones
    /// replaced by `filled` (label → value).
    #[track_caller]
    pub fn body(&self, filled: &[(&str, &str)]) -> Vec<(String, String)> {
        for (label, _) in filled {
            assert!(
                self.fields.iter().any(|(_, _, _, l)| l == label),
                "no field labelled {label:?} in {self:#?}"
            );
        }
        self.fields
            .iter()
            .map(|(name, _, value, label)| {
                let value = filled
                    .iter()
                    .find(|(l, _)| l == label)
                    .map_or(value.as_str(), |(_, v)| *v);
                (name.clone(), value.to_owned())
            })
            .collect()
    }
}

impl<'a> Console<'a> {
    /// A browser with no cookies.
    pub fn new(server: &'a Server) -> Self {
        Console {
            server,
            cookies: BTreeMap::new(),
        }
    }

    /// The `Cookie` header of the jar.
    pub fn cookie_header(&self) -> String {
        let pairs: Vec<String> = self
            .cookies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        pairs.join("; ")
    }

    fn keep_cookies(&mut self, reply: &Reply) {
        for line in reply.headers.get_all("set-cookie") {
            let line = line.to_str().unwrap_or_default();
            let pair = line.split(';').next().unwrap_or_default();
            if let Some((name, value)) = pair.split_once('=') {
                let expired = line.to_lowercase().contains("max-age=0") || value.is_empty();
                if expired {
                    self.cookies.remove(name.trim());
                } else {
                    self.cookies
                        .insert(name.trim().to_owned(), value.trim().to_owned());
                }
            }
        }
    }

    /// `GET path` as a browser navigates (no redirect followed).
    pub fn get(&mut self, path: &str) -> Reply {
        let mut call = self.server.get(path).header("Accept", BROWSER_ACCEPT);
        if !self.cookies.is_empty() {
            call = call.header("Cookie", &self.cookie_header());
        }
        let reply = call.send();
        self.keep_cookies(&reply);
        reply
    }

    /// `POST path` with this form body (no redirect followed).
    pub fn post(&mut self, path: &str, body: &[(String, String)]) -> Reply {
        let mut call = self
            .server
            .post(path)
            .header("Accept", BROWSER_ACCEPT)
            .body("application/x-www-form-urlencoded", form_encode(body));
        if !self.cookies.is_empty() {
            call = call.header("Cookie", &self.cookie_header());
        }
        let reply = call.send();
        self.keep_cookies(&reply);
        reply
    }

    /// The form of the page at `path` that has a button `button`.
    #[track_caller]
    pub fn form(&mut self, path: &str, button: &str) -> Form {
        let page = self.get(path);
        assert_eq!(page.status, 200, "{page}");
        form_with_button(&page.body, path, button)
            .unwrap_or_else(|| panic!("no form with a button {button:?} on {path}:\n{}", page.body))
    }

    /// Opens `path`, fills the form of button `button` by labels and posts it.
    #[track_caller]
    pub fn submit(&mut self, path: &str, button: &str, filled: &[(&str, &str)]) -> Reply {
        let form = self.form(path, button);
        self.post(&form.action.clone(), &form.body(filled))
    }

    /// Signs in through `/console/login/`; asserts the redirect to `/console/`.
    #[track_caller]
    pub fn sign_in(&mut self, email: &str, password: &str) -> Reply {
        let reply = self.sign_in_attempt(email, password);
        assert!(
            matches!(reply.status, 302 | 303) && location_path(&reply) == "/console/",
            "signing in should open /console/\n{reply}"
        );
        reply
    }

    /// Posts the sign-in form, whatever the outcome.
    pub fn sign_in_attempt(&mut self, email: &str, password: &str) -> Reply {
        self.submit(
            "/console/login/",
            "Log in",
            &[("E-mail", email), ("Password", password)],
        )
    }
}

/// `application/x-www-form-urlencoded` of these pairs.
pub fn form_encode(pairs: &[(String, String)]) -> String {
    let mut url = reqwest::Url::parse("http://x/").expect("a URL");
    url.query_pairs_mut().extend_pairs(pairs);
    url.query().unwrap_or_default().to_owned()
}

/// The path (without query) of a redirect's `Location`, absolute or not.
pub fn location_path(reply: &Reply) -> String {
    let location = reply.header("location").unwrap_or_default();
    let path = match location.find("://") {
        Some(at) => {
            let rest = &location[at + 3..];
            rest.find('/').map_or("/", |slash| &rest[slash..])
        }
        None => location,
    };
    path.split(['?', '#']).next().unwrap_or_default().to_owned()
}

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
    text.replace("&quot;", "\"")
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
