//! The server and the command line writing one SQLite file at the same time
//! (docs/operations.md: every subcommand works while a server runs on the database).

use crate::support::*;
use serde_json::json;

const WEB_ACCOUNTS: usize = 24;
const CLI_ACCOUNTS: usize = 8;

e2e!(the_cli_and_the_server_write_the_same_database_at_once);
fn the_cli_and_the_server_write_the_same_database_at_once() {
    let server = Server::builder().throttle_off().start();
    let (web_tokens, cli_tokens) = std::thread::scope(|scope| {
        let web = scope.spawn(|| {
            (0..WEB_ACCOUNTS)
                .map(|i| {
                    let email = format!("web{i}@example.com");
                    let reply = server
                        .post("/register/")
                        .json(&json!({ "email": email }))
                        .send();
                    reply.expect_status(201);
                    (email, new_token(&reply))
                })
                .collect::<Vec<_>>()
        });
        let cli = scope.spawn(|| {
            (0..CLI_ACCOUNTS)
                .map(|i| {
                    let email = format!("cli{i}@example.com");
                    let created = server.cli(&["user", "create", "--email", &email]);
                    (email, string(&created, "token"))
                })
                .collect::<Vec<_>>()
        });
        (
            web.join().expect("web writer"),
            cli.join().expect("cli writer"),
        )
    });
    // Every account made either way exists, with a working token.
    for (email, token) in web_tokens.iter().chain(&cli_tokens) {
        let reply = server.get("/profile/").token(token).send();
        reply.expect_status(200);
        assert_eq!(reply.json()["email"], email.as_str(), "{reply}");
    }
}
