//! POST /auth/ (log in) and DELETE /auth/ (log out), and tokens (docs/api.md, Authentication).

use crate::support::*;
use serde_json::json;

e2e!(logging_in_answers_201_with_a_new_token_each_time);
fn logging_in_answers_201_with_a_new_token_each_time() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let first = server.login_token(&alice.email, PASSWORD);
    let second = server.login_token(&alice.email, PASSWORD);
    assert_ne!(first, second, "each login makes a new token");
    assert_ne!(first, alice.token);
    for token in [&first, &second, &alice.token] {
        let reply = server.get("/profile/").token(token).send();
        reply.expect_status(200);
        assert_eq!(reply.json()["email"], "alice@example.com", "{reply}");
    }
}

e2e!(logging_in_ignores_the_letter_case_of_the_email);
fn logging_in_ignores_the_letter_case_of_the_email() {
    let server = Server::start();
    server.account("alice@example.com");
    for email in [
        "ALICE@EXAMPLE.COM",
        "Alice@Example.com",
        "alice@EXAMPLE.com",
    ] {
        server.login_token(email, PASSWORD);
    }
}

e2e!(a_wrong_password_and_an_unknown_email_fail_alike);
fn a_wrong_password_and_an_unknown_email_fail_alike() {
    let server = Server::start();
    server.account("alice@example.com");
    let refused = json!({"non_field_errors": [BAD_CREDENTIALS]});
    server
        .login("alice@example.com", "Wrong-Lantern-42")
        .expect(400, refused.clone());
    server
        .login("alice@example.com", &PASSWORD.to_uppercase())
        .expect(400, refused.clone());
    server
        .login("nobody@example.com", PASSWORD)
        .expect(400, refused.clone());
    server
        .login("alice@example.org", PASSWORD)
        .expect(400, refused);
}

e2e!(an_unverified_account_cannot_log_in_even_with_the_right_password);
fn an_unverified_account_cannot_log_in_even_with_the_right_password() {
    let server = Server::start();
    let carol = server.account_with("carol@example.com", &[]);
    server.login(&carol.email, PASSWORD).expect(
        400,
        json!({"non_field_errors": ["E-mail address is not verified."]}),
    );
    // A wrong password does not reveal whether the account is verified.
    server
        .login(&carol.email, "Wrong-Lantern-42")
        .expect(400, json!({"non_field_errors": [BAD_CREDENTIALS]}));
    // The token made on the command line works all the same.
    server
        .get("/profile/")
        .token(&carol.token)
        .send()
        .expect_status(200);
}

e2e!(logging_in_validates_its_fields);
fn logging_in_validates_its_fields() {
    let server = Server::start();
    server.account("alice@example.com");
    server
        .post("/auth/")
        .json(&json!({}))
        .send()
        .expect(400, json!({"email": [REQUIRED], "password": [REQUIRED]}));
    server
        .post("/auth/")
        .json(&json!({"email": "alice@example.com"}))
        .send()
        .expect_field_errors("password", &[REQUIRED]);
    server
        .post("/auth/")
        .json(&json!({"password": PASSWORD}))
        .send()
        .expect_field_errors("email", &[REQUIRED]);
    server
        .post("/auth/")
        .json(&json!({"email": null, "password": PASSWORD}))
        .send()
        .expect_field_errors("email", &["This field may not be null."]);
    server
        .post("/auth/")
        .json(&json!({"email": "", "password": PASSWORD}))
        .send()
        .expect_field_errors("email", &["This field may not be blank."]);
    // Unknown fields are ignored.
    new_token(
        &server
            .post("/auth/")
            .json(&json!({"email": "alice@example.com", "password": PASSWORD, "remember": true}))
            .send(),
    );
}

e2e!(logging_out_ends_only_the_token_used);
fn logging_out_ends_only_the_token_used() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let session = server.login_token(&alice.email, PASSWORD);

    server
        .delete("/auth/")
        .token(&session)
        .send()
        .expect_empty(204);

    server
        .get("/profile/")
        .token(&session)
        .send()
        .expect_401(INVALID_TOKEN);
    server
        .delete("/auth/")
        .token(&session)
        .send()
        .expect_401(INVALID_TOKEN);
    server
        .get("/devices/")
        .token(&session)
        .send()
        .expect_401(INVALID_TOKEN);
    // The account's other token still works, and it can log in again.
    server
        .get("/profile/")
        .token(&alice.token)
        .send()
        .expect_status(200);
    let again = server.login_token(&alice.email, PASSWORD);
    server
        .get("/profile/")
        .token(&again)
        .send()
        .expect_status(200);
}

e2e!(logging_out_needs_a_token);
fn logging_out_needs_a_token() {
    let server = Server::start();
    server.delete("/auth/").send().expect_401(NOT_PROVIDED);
}

e2e!(a_deleted_token_is_invalid_on_public_routes_too);
fn a_deleted_token_is_invalid_on_public_routes_too() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let session = server.login_token(&alice.email, PASSWORD);
    server
        .delete("/auth/")
        .token(&session)
        .send()
        .expect_empty(204);
    server
        .post("/auth/")
        .token(&session)
        .json(&json!({"email": alice.email, "password": PASSWORD}))
        .send()
        .expect_401(INVALID_TOKEN);
    server
        .options("/auth/")
        .token(&session)
        .send()
        .expect_401(INVALID_TOKEN);
}

e2e!(tokens_of_different_accounts_are_kept_apart);
fn tokens_of_different_accounts_are_kept_apart() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let bob = server.account("bob@example.com");
    let reply = server.get("/profile/").token(&bob.token).send();
    assert_eq!(reply.json()["email"], "bob@example.com", "{reply}");
    server
        .delete("/auth/")
        .token(&bob.token)
        .send()
        .expect_empty(204);
    server
        .get("/profile/")
        .token(&alice.token)
        .send()
        .expect_status(200);
    server
        .get("/profile/")
        .token(&bob.token)
        .send()
        .expect_401(INVALID_TOKEN);
}

e2e!(logging_in_with_a_form_body_works_as_with_json);
/// Scripts post forms (`requests.post(url, {"email": …, "password": …})`):
/// DRF parses them, and so does devmgr, with the same answers as JSON.
fn logging_in_with_a_form_body_works_as_with_json() {
    let server = Server::start();
    let alice = server.account("alice+pi@example.com");
    let form = |body: String| {
        server
            .post("/auth/")
            .body("application/x-www-form-urlencoded", body)
            .send()
    };
    let encoded = alice.email.replace('@', "%40").replace('+', "%2B");
    new_token(&form(format!("email={encoded}&password={PASSWORD}")));
    form(format!("email={encoded}&password=Wrong-Lantern-42"))
        .expect(400, json!({"non_field_errors": [BAD_CREDENTIALS]}));
    form("email=alice".to_owned()).expect(
        400,
        json!({"email": ["Enter a valid email address."], "password": ["This field is required."]}),
    );
    let boundary = "devmgr-test-boundary";
    let multipart = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"email\"\r\n\r\n{email}\r\n\
         --{boundary}\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\n{PASSWORD}\r\n\
         --{boundary}--\r\n",
        email = alice.email
    );
    let reply = server
        .post("/auth/")
        .body(
            &format!("multipart/form-data; boundary={boundary}"),
            multipart,
        )
        .send();
    new_token(reply.expect_status(201));
    server
        .post("/auth/")
        .body("text/plain", "email=x")
        .send()
        .expect_detail(415, "Unsupported media type \"text/plain\" in request.");
}
