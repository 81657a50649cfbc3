//! The jobs routes as every route (docs/api.md, "Jobs" and "Conventions in
//! short"): pages newest first with DRF's links, 404 for any id not the
//! account's, Allow and 405, 401 before 405, the slash redirect, OPTIONS'
//! fields, and other accounts that see nothing.

use crate::device_support::{DeviceAuth, assert_json_body_rules};
use crate::jobs_support::*;
use crate::support::*;
use serde_json::{Value, json};

/// A job of `token` over `selector` (no device needed: it may complete at once).
fn job_over(server: &Server, token: &str, selector: Value) -> String {
    string(
        &create(
            server,
            token,
            &json!({"action": "reboot", "selector": selector}),
        ),
        "id",
    )
}

/// `GET path` by `token`, asserting a 200 page; the page.
#[track_caller]
fn page(server: &Server, token: &str, path: &str) -> Value {
    let reply = server.get(path).token(token).send();
    reply.expect_status(200);
    let page = reply.json();
    assert_eq!(
        keys(&page),
        ["count", "next", "previous", "results"],
        "{reply}"
    );
    page
}

fn ids(page: &Value) -> Vec<String> {
    page["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|job| string(job, "id"))
        .collect()
}

e2e!(jobs_come_newest_first_a_page_at_a_time);
fn jobs_come_newest_first_a_page_at_a_time() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let base = server.expected_base();
    let empty = page(&server, &alice.token, JOBS);
    assert_eq!(
        empty,
        json!({"count": 0, "next": null, "previous": null, "results": []})
    );
    // Created within one second: newest first all the same.
    let made: Vec<String> = (0..3)
        .map(|i| {
            job_over(
                &server,
                &alice.token,
                json!({"search": format!("nothing-{i}")}),
            )
        })
        .collect();
    let newest_first: Vec<String> = made.iter().rev().cloned().collect();
    let all = page(&server, &alice.token, JOBS);
    assert_eq!(all["count"], 3);
    assert_eq!(ids(&all), newest_first);
    assert_eq!(
        (&all["next"], &all["previous"]),
        (&Value::Null, &Value::Null)
    );
    for job in all["results"].as_array().unwrap() {
        assert_job_shape(&server, job);
    }

    let first = page(&server, &alice.token, "/jobs/?limit=2");
    assert_eq!(first["count"], 3);
    assert_eq!(ids(&first), newest_first[..2]);
    assert_eq!(first["next"], format!("{base}/jobs/?limit=2&offset=2"));
    assert_eq!(first["previous"], Value::Null);
    let second = page(&server, &alice.token, "/jobs/?limit=2&offset=2");
    assert_eq!(ids(&second), newest_first[2..]);
    assert_eq!(second["next"], Value::Null);
    assert_eq!(second["previous"], format!("{base}/jobs/?limit=2"));
    let past = page(&server, &alice.token, "/jobs/?offset=5");
    assert_eq!((past["count"].clone(), ids(&past)), (json!(3), vec![]));

    for (query, field, message) in [
        (
            "limit=0",
            "limit",
            "Ensure this value is greater than or equal to 1.",
        ),
        (
            "limit=1001",
            "limit",
            "Ensure this value is less than or equal to 1000.",
        ),
        ("limit=ten", "limit", "A valid integer is required."),
        (
            "offset=-1",
            "offset",
            "Ensure this value is greater than or equal to 0.",
        ),
    ] {
        server
            .get(&format!("/jobs/?{query}"))
            .token(&alice.token)
            .send()
            .expect(400, json!({ field: [message] }));
    }
}

e2e!(targets_come_by_wave_then_list_order_a_page_at_a_time);
fn targets_come_by_wave_then_list_order_a_page_at_a_time() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let base = server.expected_base();
    agents(&server, &alice, 5);
    let job = create(
        &server,
        &alice.token,
        &json!({"action": "reboot", "selector": {"all": true}, "wave_size": 2}),
    );
    let id = string(&job, "id");
    let all = targets(&server, &alice.token, &id);
    let middle = page(
        &server,
        &alice.token,
        &format!("{}?limit=2&offset=2", targets_path(&id)),
    );
    assert_eq!(middle["count"], 5);
    assert_eq!(middle["results"], json!(all[2..4]));
    assert_eq!(
        middle["next"],
        format!("{base}{}?limit=2&offset=4", targets_path(&id))
    );
    assert_eq!(
        middle["previous"],
        format!("{base}{}?limit=2", targets_path(&id))
    );
    let default = page(&server, &alice.token, &targets_path(&id));
    assert_eq!(default["results"], json!(all));
    assert_eq!(default["next"], Value::Null);
    server
        .get(&format!("{}?limit=x", targets_path(&id)))
        .token(&alice.token)
        .send()
        .expect(400, json!({"limit": ["A valid integer is required."]}));
}

e2e!(an_id_not_the_accounts_is_not_found_and_changes_nothing);
fn an_id_not_the_accounts_is_not_found_and_changes_nothing() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let bob = server.account("bob@example.com");
    let alices_agents = agents(&server, &alice, 2);
    let alices = string(
        &create(
            &server,
            &alice.token,
            &json!({"action": "reboot", "selector": {"all": true}, "wave_size": 1}),
        ),
        "id",
    );
    let missing = "0f2c3d4e-5a6b-4c7d-8e9f-a0b1c2d3e4f5".to_owned();
    let capitals = alices.to_uppercase();
    let braces = format!("{{{alices}}}");
    let malformed = "not-a-job".to_owned();
    for (token, id) in [
        (&alice.token, &missing),
        (&alice.token, &capitals),
        (&alice.token, &braces),
        (&alice.token, &malformed),
        (&bob.token, &alices),
    ] {
        for path in [job_path(id), targets_path(id)] {
            server
                .get(&path)
                .token(token)
                .send()
                .expect_detail(404, NOT_FOUND);
        }
        for path in [cancel_path(id), resume_path(id)] {
            server
                .post(&path)
                .token(token)
                .send()
                .expect_detail(404, NOT_FOUND);
        }
    }
    // Bob sees none of Alice's jobs, and his "all" never reaches her devices.
    assert_eq!(page(&server, &bob.token, JOBS)["count"], 0);
    let bobs = job_over(&server, &bob.token, json!({"all": true}));
    assert_eq!(job(&server, &bob.token, &bobs)["status"], "completed");
    assert_eq!(targets(&server, &bob.token, &bobs), Vec::<Value>::new());
    assert_eq!(page(&server, &alice.token, JOBS)["count"], 1);
    let unchanged = job(&server, &alice.token, &alices);
    assert_eq!(unchanged["status"], "running");
    assert_eq!(
        counts(&unchanged),
        counted(&[("pending", 1), ("waiting", 1)])
    );
    for agent in &alices_agents {
        let reply = server.get(&job_path(&alices)).device(&agent.token).send();
        reply.expect_401(NOT_PROVIDED);
    }
}

e2e!(the_jobs_routes_follow_the_conventions_of_every_route);
fn the_jobs_routes_follow_the_conventions_of_every_route() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let id = job_over(&server, &alice.token, json!({"all": true}));
    let routes = [
        (JOBS.to_owned(), "GET, POST, HEAD, OPTIONS"),
        (job_path(&id), "GET, HEAD, OPTIONS"),
        (targets_path(&id), "GET, HEAD, OPTIONS"),
        (cancel_path(&id), "POST, OPTIONS"),
        (resume_path(&id), "POST, OPTIONS"),
    ];
    for (path, allow) in &routes {
        server
            .options(path)
            .send()
            .expect_status(200)
            .expect_allow(allow);
        for method in ["GET", "POST", "PUT", "PATCH", "DELETE"] {
            if allow.contains(method) {
                continue;
            }
            server
                .call(method.parse().unwrap(), path)
                .token(&alice.token)
                .send()
                .expect_detail(405, &format!("Method \"{method}\" not allowed."))
                .expect_allow(allow);
            // Authentication comes before the method.
            server
                .call(method.parse().unwrap(), path)
                .send()
                .expect_401(NOT_PROVIDED);
        }
        let without_slash = path.trim_end_matches('/');
        let moved = server.get(&format!("{without_slash}?limit=1")).send();
        moved.expect_status(301);
        assert_eq!(
            moved.header("location"),
            Some(format!("{path}?limit=1").as_str())
        );
        let first = if allow.starts_with("GET") {
            "GET"
        } else {
            "POST"
        };
        server
            .call(first.parse().unwrap(), path)
            .send()
            .expect_401(NOT_PROVIDED);
        server
            .call(first.parse().unwrap(), path)
            .token("0123456789abcdef0123456789abcdef01234567")
            .send()
            .expect_401(INVALID_TOKEN);
    }
    let head = server.head(JOBS).token(&alice.token).send();
    head.expect_status(200);
    assert!(head.body.is_empty());
    // Cancel and resume read a body as every write route does, and ignore it.
    let cancel = || server.post(&cancel_path(&id)).token(&alice.token);
    assert_json_body_rules(cancel);
    cancel()
        .json(&json!({"status": "running"}))
        .send()
        .expect_detail(409, ALREADY_FINISHED);
    server
        .post(&resume_path(&id))
        .token(&alice.token)
        .body("application/x-www-form-urlencoded", "force=1")
        .send()
        .expect_detail(409, NOT_HALTED);
}

e2e!(options_describes_the_body_of_a_job);
fn options_describes_the_body_of_a_job() {
    let server = Server::start();
    let reply = server.options(JOBS).send();
    reply.expect_status(200);
    let body = reply.json();
    assert_eq!(body["name"], "Job List");
    let fields = &body["actions"]["POST"];
    assert_eq!(
        keys(fields),
        [
            "action",
            "halt_failure_ratio",
            "selector",
            "start_time",
            "wave_interval_seconds",
            "wave_size"
        ],
        "{reply}"
    );
    assert_eq!(
        fields["action"],
        json!({"type": "choice", "required": true, "read_only": false, "label": "Action",
               "choices": [{"value": "reboot", "display_name": "reboot"}]})
    );
    assert_eq!(fields["selector"]["type"], "nested object");
    assert_eq!(fields["selector"]["required"], true);
    assert_eq!(
        keys(&fields["selector"]["children"]),
        [
            "all",
            "any_tags",
            "machine_type",
            "online",
            "search",
            "serials",
            "tags"
        ]
    );
    assert_eq!(
        fields["start_time"],
        json!({"type": "datetime", "required": false, "read_only": false, "label": "Start time"})
    );
    assert_eq!(
        fields["wave_size"],
        json!({"type": "integer", "required": false, "read_only": false, "label": "Wave size",
               "min_value": 1, "max_value": 100_000})
    );
    assert_eq!(
        fields["wave_interval_seconds"],
        json!({"type": "integer", "required": false, "read_only": false,
               "label": "Wave interval seconds", "min_value": 0, "max_value": 86_400})
    );
    assert_eq!(
        fields["halt_failure_ratio"],
        json!({"type": "float", "required": false, "read_only": false,
               "label": "Halt failure ratio", "min_value": 0, "max_value": 1})
    );
    for (path, name) in [
        ("/jobs/x/cancel/", "Job Cancel"),
        ("/jobs/x/resume/", "Job Resume"),
    ] {
        let reply = server.options(path).send();
        reply.expect_status(200);
        assert_eq!(reply.json()["name"], name);
        assert_eq!(reply.json()["actions"], json!({"POST": {}}), "{reply}");
    }
    for path in ["/jobs/x/", "/jobs/x/targets/"] {
        assert_eq!(server.options(path).send().json()["actions"], json!({}));
    }
}
