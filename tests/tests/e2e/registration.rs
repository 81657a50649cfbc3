//! Closed registration (`--registration closed`, docs/operations.md): the
//! API refuses every registration with 403 before it reads the body or
//! counts it against the throttle, as a DRF permission does; the console
//! offers no registration; operators still make accounts with
//! `devmgr user create`.

use crate::support::*;
use serde_json::json;

const CLOSED: &str = "Registration is closed.";

e2e!(closed_registration_refuses_every_registration);
fn closed_registration_refuses_every_registration() {
    let server = Server::builder()
        .args(&["--registration", "closed", "--throttle-rate", "3/minute"])
        .start();
    for body in [
        json!({"email": "new@example.com"}),
        json!({"email": "not-an-address"}),
        json!({}),
    ] {
        server
            .post("/register/")
            .json(&body)
            .send()
            .expect(403, json!({"detail": CLOSED}));
    }
    // Not throttled: the permission comes first (more than the 3 a minute).
    for _ in 0..3 {
        server
            .post("/register/")
            .body("application/json", "{not json")
            .send()
            .expect(403, json!({"detail": CLOSED}));
    }
    // The route is still there, and says what it takes.
    server.options("/register/").send().expect_status(200);
    // Accounts come from the operator, and work as any other.
    let sam = server.account("sam@example.com");
    server.login_token(&sam.email, PASSWORD);
    server.assert_mail_count_stays(0);
}

e2e!(open_registration_is_the_default);
fn open_registration_is_the_default() {
    let server = Server::start();
    let reply = server
        .post("/register/")
        .json(&json!({"email": "new@example.com"}))
        .send();
    reply.expect_status(201);
    let mut browser = Console::new(&server);
    let login = browser.get("/console/login/");
    assert!(
        login.body.contains(r#"href="/console/register/""#),
        "the sign-in page offers registration\n{login}"
    );
}

e2e!(a_closed_console_offers_no_registration);
fn a_closed_console_offers_no_registration() {
    let server = Server::builder()
        .args(&["--registration", "closed"])
        .start();
    let mut browser = Console::new(&server);
    let login = browser.get("/console/login/");
    login.expect_status(200);
    assert!(
        !login.body.contains("/console/register/")
            && !text_of(&login.body).contains("Create an account"),
        "no registration link\n{login}"
    );
    let page = browser.get("/console/register/");
    page.expect_status(403);
    assert!(
        text_of(&page.body).contains("Registration is closed"),
        "{page}"
    );
    assert!(
        forms(&page.body, "/console/register/").is_empty(),
        "no form to fill\n{page}"
    );
    // A registration posted anyway, with this browser's valid form key (from
    // the sign-in form), creates nothing.
    let mut body: Vec<(String, String)> = browser
        .form("/console/login/", "Log in")
        .body(&[])
        .into_iter()
        .filter(|(name, _)| name.to_lowercase().contains("csrf"))
        .collect();
    assert!(!body.is_empty(), "the sign-in form carries a form key");
    body.push(("email".to_owned(), "new@example.com".to_owned()));
    let stale = browser.post("/console/register/", &body);
    assert_eq!(stale.status, 403, "{stale}");
    assert!(
        text_of(&stale.body).contains("Registration is closed"),
        "{stale}"
    );
    server.assert_mail_count_stays(0);
}
