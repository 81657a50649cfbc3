//! The web console's security rules over plain HTTP (docs/console.md,
//! Sessions and security): strict headers and no inline script, the session cookie's
//! flags, a CSRF token on every form, redirects while signed out, and `/`
//! leading browsers (only) to the console.

use crate::support::*;

/// The pages of a signed-in account with one device.
pub fn signed_in_pages(serial: &str) -> Vec<String> {
    vec![
        "/console/".to_owned(),
        "/console/account/".to_owned(),
        "/console/add-device/".to_owned(),
        format!("/console/devices/{serial}/"),
    ]
}

const SIGNED_OUT_PAGES: [&str; 3] = [
    "/console/login/",
    "/console/register/",
    "/console/reset-password/",
];

/// The directives of a Content-Security-Policy: name → sources.
fn directives(policy: &str) -> Vec<(String, Vec<String>)> {
    policy
        .split(';')
        .filter_map(|directive| {
            let mut words = directive.split_whitespace();
            let name = words.next()?.to_lowercase();
            Some((name, words.map(str::to_owned).collect()))
        })
        .collect()
}

#[track_caller]
fn assert_strict_page(reply: &Reply) {
    assert_eq!(reply.status, 200, "{reply}");
    let content_type = reply.header("content-type").unwrap_or_default();
    assert!(content_type.starts_with("text/html"), "{reply}");
    let policy = reply
        .header("content-security-policy")
        .unwrap_or_else(|| panic!("no Content-Security-Policy\n{reply}"));
    let policy = directives(policy);
    let sources = |name: &str| {
        policy
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| s.clone())
    };
    let scripts = sources("script-src")
        .or_else(|| sources("default-src"))
        .unwrap_or_else(|| panic!("neither script-src nor default-src\n{reply}"));
    for loose in [
        "'unsafe-inline'",
        "'unsafe-eval'",
        "*",
        "http:",
        "https:",
        "data:",
    ] {
        assert!(
            !scripts.iter().any(|s| s == loose),
            "scripts allow {loose}\n{reply}"
        );
    }
    assert_eq!(
        sources("frame-ancestors"),
        Some(vec!["'none'".to_owned()]),
        "frame-ancestors\n{reply}"
    );
    assert_eq!(
        reply.header("x-content-type-options"),
        Some("nosniff"),
        "{reply}"
    );
    let referrer = reply.header("referrer-policy").unwrap_or_default();
    assert!(
        [
            "no-referrer",
            "same-origin",
            "strict-origin",
            "strict-origin-when-cross-origin"
        ]
        .contains(&referrer),
        "Referrer-Policy {referrer:?}\n{reply}"
    );
    // No inline script: every <script> has a src, and no element has an on…= handler.
    let html = reply.body.to_lowercase();
    for (at, _) in html.match_indices("<script") {
        let tag = &reply.body[at..at + html[at..].find('>').unwrap_or(0) + 1];
        assert!(
            attribute(tag, "src").is_some(),
            "inline script {tag}\n{reply}"
        );
    }
    for (at, _) in html.match_indices('<') {
        let tag = &reply.body[at..at + html[at..].find('>').unwrap_or(0) + 1];
        let handlers: Vec<_> = attributes(tag)
            .into_iter()
            .filter(|(n, _)| n.starts_with("on"))
            .collect();
        assert!(handlers.is_empty(), "an inline handler in {tag}\n{reply}");
    }
}

e2e!(console_pages_carry_strict_headers_and_no_inline_script);
fn console_pages_carry_strict_headers_and_no_inline_script() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let serial = server.device_serial(&alice.email);
    let mut browser = Console::new(&server);
    for page in SIGNED_OUT_PAGES {
        assert_strict_page(&browser.get(page));
    }
    browser.sign_in(&alice.email, PASSWORD);
    for page in signed_in_pages(&serial) {
        assert_strict_page(&browser.get(&page));
    }
}

/// The `Set-Cookie` lines of a reply.
fn set_cookies(reply: &Reply) -> Vec<String> {
    reply
        .headers
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap_or_default().to_owned())
        .collect()
}

/// Signs in and returns the cookies set by the sign-in, asserting their flags.
#[track_caller]
fn sign_in_cookies(server: &Server, email: &str, secure: bool) -> Vec<String> {
    let mut browser = Console::new(server);
    let before = browser.get("/console/login/");
    let earlier = browser.cookies.clone();
    let reply = browser.sign_in(email, PASSWORD);
    let cookies = set_cookies(&reply);
    assert!(
        !cookies.is_empty(),
        "signing in sets a session cookie\n{reply}\n{before}"
    );
    let pre_session: Vec<String> = set_cookies(&before)
        .iter()
        .filter_map(|c| c.split('=').next().map(str::to_owned))
        .collect();
    let mut sessions = 0;
    for cookie in set_cookies(&before).iter().chain(&cookies) {
        // The session cookie is Lax (links from mail and other sites open
        // signed in); a cookie of the signed-out forms may be stricter.
        let session = !pre_session
            .iter()
            .any(|name| cookie.starts_with(&format!("{name}=")));
        sessions += usize::from(session);
        let flags: Vec<String> = cookie
            .split(';')
            .skip(1)
            .map(|f| f.trim().to_lowercase())
            .collect();
        assert!(flags.contains(&"httponly".to_owned()), "HttpOnly: {cookie}");
        let same_site = flags.iter().find(|f| f.starts_with("samesite="));
        if session {
            assert_eq!(
                same_site.map(String::as_str),
                Some("samesite=lax"),
                "SameSite=Lax: {cookie}"
            );
        } else {
            assert!(
                same_site.is_some_and(|f| f == "samesite=lax" || f == "samesite=strict"),
                "SameSite: {cookie}"
            );
        }
        assert!(
            flags.iter().any(|f| f == "path=/" || f == "path=/console/"),
            "Path=/ or /console/: {cookie}"
        );
        assert_eq!(
            flags.contains(&"secure".to_owned()),
            secure,
            "Secure: {cookie}"
        );
    }
    assert!(
        sessions > 0,
        "signing in sets a cookie of its own (the session's): {cookies:?}"
    );
    // No session fixation: a cookie held before signing in is not kept.
    for (name, value) in &earlier {
        assert!(
            browser.cookies.get(name) != Some(value)
                || !cookies.iter().any(|c| c.starts_with(&format!("{name}="))),
            "the cookie {name} kept its value through the sign-in"
        );
    }
    cookies
}

e2e!(signing_in_sets_an_httponly_samesite_lax_cookie_not_secure_on_http);
fn signing_in_sets_an_httponly_samesite_lax_cookie_not_secure_on_http() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    sign_in_cookies(&server, &alice.email, false);
}

e2e!(the_session_cookie_is_secure_behind_an_https_public_url);
fn the_session_cookie_is_secure_behind_an_https_public_url() {
    let server = Server::builder()
        .public_url("https://devmgr.example.com")
        .start();
    let alice = server.account("alice@example.com");
    sign_in_cookies(&server, &alice.email, true);
}

e2e!(signed_out_every_console_page_but_the_doors_redirects_to_sign_in);
fn signed_out_every_console_page_but_the_doors_redirects_to_sign_in() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let serial = server.device_serial(&alice.email);
    let mut stranger = Console::new(&server);
    let mut pages = signed_in_pages(&serial);
    pages.push("/console/events/".to_owned());
    pages.push("/console/devices/00000000-0000-0000-0000-000000000000/".to_owned());
    for page in pages {
        let reply = stranger.get(&page);
        assert!(matches!(reply.status, 302 | 303), "{reply}");
        assert_eq!(location_path(&reply), "/console/login/", "{reply}");
    }
    for page in SIGNED_OUT_PAGES {
        stranger.get(page).expect_status(200);
    }
}

e2e!(the_root_leads_browsers_to_the_console_and_other_clients_to_a_404);
fn the_root_leads_browsers_to_the_console_and_other_clients_to_a_404() {
    let server = Server::start();
    let reply = server.get("/").header("Accept", BROWSER_ACCEPT).send();
    assert_eq!(reply.status, 302, "{reply}");
    assert_eq!(location_path(&reply), "/console/", "{reply}");
    server.get("/").send().expect_detail(404, NOT_FOUND);
    server
        .get("/")
        .header("Accept", "application/json")
        .send()
        .expect_detail(404, NOT_FOUND);
}
