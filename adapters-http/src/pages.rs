//! The two small HTML pages behind e-mailed links: the result of a
//! verification link opened in a browser, and the form of a reset link.
//!
//! Pages are self-contained (inline style and script, nothing fetched) and
//! locked down by a Content-Security-Policy that allows exactly their own
//! inline style and script by hash. The URL of a reset page holds a secret
//! key, so no referrer is ever sent and nothing is cached.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use actix_web::http::header::{self, ContentType};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use sha2::{Digest, Sha256};
use std::sync::LazyLock;

const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;line-height:1.5;color:#222}\
h1{font-size:1.4rem}label{display:block;margin-top:1rem;font-weight:600}\
input{width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem}\
button{margin-top:1.2rem;padding:.5rem 1.2rem;font-size:1rem}\
.error{color:#a40000}.ok{color:#0a6b0a}ul{padding-left:1.2rem;margin:.3rem 0}";

/// Posts the form as JSON to the API and shows its answer: every message of
/// every field, or the success note.
const RESET_SCRIPT: &str = r#"
const form = document.getElementById("reset");
const status = document.getElementById("status");
function show(id, messages) {
  const list = document.getElementById(id);
  list.replaceChildren(...messages.map((m) => { const li = document.createElement("li"); li.textContent = m; return li; }));
}
form.addEventListener("submit", async (event) => {
  event.preventDefault();
  show("key-errors", []); show("password-errors", []); show("other-errors", []);
  status.textContent = "";
  const password = form.elements.new_password.value;
  if (password !== form.elements.repeat.value) {
    show("password-errors", ["The two passwords differ."]);
    return;
  }
  form.elements.submit.disabled = true;
  try {
    const response = await fetch(window.location.pathname, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Accept": "application/json" },
      body: JSON.stringify({ key: form.elements.key.value, new_password: password }),
    });
    if (response.status === 204) {
      form.hidden = true;
      status.className = "ok";
      status.textContent = "Your new password is set. You can now log in with it.";
      return;
    }
    const body = await response.json().catch(() => ({}));
    const messages = (field) => [].concat(body[field] || []);
    show("key-errors", messages("key").map((m) => m + " Ask for a new link."));
    show("password-errors", messages("new_password"));
    show("other-errors", messages("detail").concat(messages("non_field_errors")));
  } catch (error) {
    show("other-errors", ["The server could not be reached. Try again."]);
  } finally {
    form.elements.submit.disabled = false;
  }
});
"#;

/// `'sha256-…'` source of an inline element's text, for the CSP.
fn csp_hash(text: &str) -> String {
    format!(
        "'sha256-{}'",
        STANDARD.encode(Sha256::digest(text.as_bytes()))
    )
}

static POLICY: LazyLock<String> = LazyLock::new(|| {
    format!(
        "default-src 'none'; style-src {}; script-src {}; connect-src 'self'; \
         form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
        csp_hash(STYLE),
        csp_hash(RESET_SCRIPT)
    )
});

/// Escapes text for HTML element content and attribute values.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#x27;"),
            c => out.push(c),
        }
    }
    out
}

fn page(status: StatusCode, title: &str, body: &str, script: Option<&str>) -> HttpResponse {
    let script = script
        .map(|s| format!("<script>{s}</script>\n"))
        .unwrap_or_default();
    let html = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"referrer\" content=\"no-referrer\">\n\
         <title>{title} · devmgr</title>\n<style>{STYLE}</style>\n</head>\n\
         <body>\n<h1>{title}</h1>\n{body}\n{script}</body>\n</html>\n"
    );
    HttpResponse::build(status)
        .insert_header(ContentType::html())
        .insert_header((header::CONTENT_SECURITY_POLICY, POLICY.as_str()))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(html)
}

/// Whether the client asked for HTML (a browser opening a link).
pub(crate) fn wants_html(req: &actix_web::HttpRequest) -> bool {
    req.headers()
        .get_all(header::ACCEPT)
        .filter_map(|value| value.to_str().ok())
        .any(|value| value.contains("text/html"))
}

/// The outcome of opening a verification link: 200 or 400, like the JSON.
pub(crate) fn verification(verified: bool) -> HttpResponse {
    if verified {
        page(
            StatusCode::OK,
            "E-mail address verified",
            "<p class=\"ok\">E-mail address verified.</p>\n\
             <p>Your devmgr account is ready. If it has no password yet, set one with\n\
             <code>POST /change-password/</code> or the reset-password link, then log in.</p>",
            None,
        )
    } else {
        page(
            StatusCode::BAD_REQUEST,
            "Invalid link",
            "<p class=\"error\">Invalid or expired key.</p>\n\
             <p>Verification links work for 72 hours. Ask for a new one with\n\
             <code>POST /verify-email/resend/</code> and your e-mail address.</p>",
            None,
        )
    }
}

/// The page of a reset link: a form that sets the new password through the
/// API (`POST` to this same path) and shows the API's errors.
pub(crate) fn reset_form(key: Option<&str>) -> HttpResponse {
    let Some(key) = key.filter(|key| !key.is_empty()) else {
        return page(
            StatusCode::OK,
            "Set a new password",
            "<p class=\"error\">This link has no key. Open the link from the e-mail again,\n\
             or ask for a new one with <code>POST /reset-password/</code>.</p>",
            None,
        );
    };
    let body = format!(
        "<form id=\"reset\" method=\"post\">\n\
         <input type=\"hidden\" name=\"key\" value=\"{key}\">\n\
         <ul id=\"key-errors\" class=\"error\"></ul>\n\
         <label for=\"new_password\">New password</label>\n\
         <input id=\"new_password\" name=\"new_password\" type=\"password\" autocomplete=\"new-password\" required>\n\
         <label for=\"repeat\">The same password again</label>\n\
         <input id=\"repeat\" name=\"repeat\" type=\"password\" autocomplete=\"new-password\" required>\n\
         <ul id=\"password-errors\" class=\"error\"></ul>\n\
         <p>At least 8 characters, not only digits, not a common password, and not like\n\
         your e-mail address or name.</p>\n\
         <button name=\"submit\" type=\"submit\">Set password</button>\n\
         <ul id=\"other-errors\" class=\"error\"></ul>\n\
         </form>\n<p id=\"status\" role=\"status\"></p>",
        key = escape(key)
    );
    page(
        StatusCode::OK,
        "Set a new password",
        &body,
        Some(RESET_SCRIPT),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::body::to_bytes;

    async fn text(response: HttpResponse) -> String {
        String::from_utf8(to_bytes(response.into_body()).await.unwrap().to_vec()).unwrap()
    }

    #[actix_web::test]
    async fn the_key_is_escaped_into_the_form() {
        let response = reset_form(Some("a\"><script>alert(1)</script>"));
        let html = text(response).await;
        assert!(html.contains("value=\"a&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;\""));
        assert!(!html.contains("<script>alert"));
    }

    #[actix_web::test]
    async fn the_policy_allows_exactly_the_inline_style_and_script() {
        let response = reset_form(Some("k"));
        let policy = response
            .headers()
            .get(header::CONTENT_SECURITY_POLICY)
            .unwrap()
            .to_str()
            .unwrap()
            .to_owned();
        assert_eq!(
            response.headers().get(header::REFERRER_POLICY).unwrap(),
            "no-referrer"
        );
        let html = text(response).await;
        let inline = |open: &str, close: &str| {
            let start = html.find(open).unwrap() + open.len();
            let end = start + html[start..].find(close).unwrap();
            html[start..end].to_owned()
        };
        assert!(policy.contains(&csp_hash(&inline("<style>", "</style>"))));
        assert!(policy.contains(&csp_hash(&inline("<script>", "</script>"))));
        assert!(policy.starts_with("default-src 'none'"));
    }
}
