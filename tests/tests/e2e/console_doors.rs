//! The console's doors over plain HTTP (docs/console.md, docs/api.md):
//! registration and reset refusals in the API's words, addresses matched
//! without regard to letter case, a session that cannot be ended by a
//! link, and session secrets kept only hashed.

use crate::support::*;

/// Whether the jar's session opens the fleet.
fn signed_in(browser: &mut Console<'_>) -> bool {
    browser.get("/console/").status == 200
}

e2e!(registering_a_taken_address_says_so_beside_the_field);
fn registering_a_taken_address_says_so_beside_the_field() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let mut stranger = Console::new(&server);
    for (address, message) in [
        (
            alice.email.to_uppercase(),
            "An account with this e-mail already exists.",
        ),
        ("not-an-address".to_owned(), "Enter a valid email address."),
    ] {
        let reply = stranger.submit(
            "/console/register/",
            "Create account",
            &[("E-mail", &address)],
        );
        assert!(reply.status == 400 || reply.status == 200, "{reply}");
        let said = text_of(&reply.body);
        assert!(said.contains(message), "{message}\n{reply}");
        assert!(
            reply.body.contains("aria-describedby"),
            "the message is tied to the field\n{reply}"
        );
    }
    assert!(!signed_in(&mut stranger));
    server.assert_mail_count_stays(0);
}

e2e!(signing_in_ignores_the_letter_case_of_the_address);
fn signing_in_ignores_the_letter_case_of_the_address() {
    let server = Server::start();
    server.account("alice@example.com");
    let mut browser = Console::new(&server);
    browser.sign_in("ALICE@Example.COM", PASSWORD);
    assert!(signed_in(&mut browser));
}

e2e!(a_reset_link_with_a_bad_key_says_so_and_sets_nothing);
fn a_reset_link_with_a_bad_key_says_so_and_sets_nothing() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let mut browser = Console::new(&server);
    let path = "/reset-password/confirm/?key=not-a-key-not-a-key-not-a-key-0000";
    let reply = browser.submit(
        path,
        "Set password",
        &[("New password", "Brisk-Meadow-Harbour-77")],
    );
    assert!(!matches!(reply.status, 301..=303), "{reply}");
    assert!(
        text_of(&reply.body).contains("Invalid or expired key."),
        "{reply}"
    );
    server.login_token(&alice.email, PASSWORD);
}

e2e!(a_link_cannot_log_out_a_session);
fn a_link_cannot_log_out_a_session() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let mut browser = Console::new(&server);
    browser.sign_in(&alice.email, PASSWORD);
    let logout = browser.form("/console/", "Log out");
    assert_eq!(logout.method, "post");
    // As an <img src> on another site would ask for it.
    browser.get(&logout.action);
    assert!(
        signed_in(&mut browser),
        "GET {} ended the session",
        logout.action
    );
}

e2e!(session_cookies_are_long_random_and_stored_only_hashed: sqlite);
fn session_cookies_are_long_random_and_stored_only_hashed() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let mut one = Console::new(&server);
    let before = one.cookies.clone();
    one.sign_in(&alice.email, PASSWORD);
    let mut two = Console::new(&server);
    two.sign_in(&alice.email, PASSWORD);
    let session: Vec<(&String, &String)> = one
        .cookies
        .iter()
        .filter(|(name, _)| !before.contains_key(*name))
        .filter(|(name, value)| two.cookies.get(*name) != Some(value))
        .collect();
    assert!(
        !session.is_empty(),
        "no per-session cookie: {:?}",
        one.cookies
    );
    let mut stored = Vec::new();
    for suffix in ["", "-wal"] {
        let mut file = server.db.path().as_os_str().to_owned();
        file.push(suffix);
        stored.extend(std::fs::read(&file).unwrap_or_default());
    }
    let stored = String::from_utf8_lossy(&stored);
    for (name, value) in session {
        assert!(value.len() >= 32, "the cookie {name} is short: {value:?}");
        assert!(
            !stored.contains(value.as_str()),
            "the cookie {name}'s value is stored as is in the database"
        );
    }
}
