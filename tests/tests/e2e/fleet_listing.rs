//! GET /devices/ (docs/api.md, "List devices"): each filter, the refusals of
//! bad parameters (all at once), and every ordering with its ties.

use crate::device_support::*;
use crate::fleet_listing_support::*;
use crate::support::*;
use serde_json::json;
use std::time::Duration;

e2e!(each_filter_keeps_the_devices_that_meet_it_and_filters_combine);
fn each_filter_keeps_the_devices_that_meet_it_and_filters_combine() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let kitchen = agent(&server, &alice, "Kitchen Pi");
    server.advance(Duration::from_secs(1));
    let cellar = install_with(&server, &alice, "cellar", json!({"machine_type": "rpi_4b"}));
    let garage = agent(&server, &alice, "garage");
    let bob = server.account("bob@example.com");
    let foreign = agent(&server, &bob, "Kitchen too");
    tag(&server, &bob.token, &foreign.serial, &["lab"]);
    tag(&server, &alice.token, &kitchen.serial, &["lab", "ci"]);
    tag(&server, &alice.token, &cellar.serial, &["lab"]);
    server
        .patch(&device_path(&garage.serial))
        .token(&alice.token)
        .json(&json!({"description": "Next to the KITCHEN door"}))
        .send()
        .expect_status(200);
    heartbeat(&server, &cellar.token, &json!({}));
    let (k, c, g) = (&kitchen.serial, &cellar.serial, &garage.serial);
    let all = listed(&server, &alice.token, "");
    assert_eq!(all.len(), 3);
    let list = |query: &str| listed(&server, &alice.token, query);
    assert_eq!(list("search=KITCHEN"), [k.clone(), g.clone()]);
    assert_eq!(list("search="), all);
    assert_eq!(
        list(&format!("search={}", &c[4..14].to_uppercase())),
        std::slice::from_ref(c)
    );
    assert_eq!(list("search=nowhere"), Vec::<String>::new());
    assert_eq!(list("online=true"), std::slice::from_ref(c));
    assert_eq!(list("online=false"), [k.clone(), g.clone()]);
    assert_eq!(list("tag=lab"), [k.clone(), c.clone()]);
    assert_eq!(list("tag=LAB&tag=ci"), std::slice::from_ref(k));
    assert_eq!(list("tag=lab&tag=nobody"), Vec::<String>::new());
    // A tag no device can carry matches nothing; it is no error.
    assert_eq!(list("tag=-not+a+tag"), Vec::<String>::new());
    assert_eq!(list("machine_type=rpi_4b"), std::slice::from_ref(c));
    assert_eq!(list("machine_type=unknown"), [k.clone(), g.clone()]);
    assert_eq!(
        list("tag=lab&online=false&search=pi"),
        std::slice::from_ref(k)
    );
    // Unknown parameters are ignored.
    assert_eq!(list("colour=red&page=2"), all);
}

e2e!(bad_parameters_are_refused_all_at_once_under_their_names);
fn bad_parameters_are_refused_all_at_once_under_their_names() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    agent(&server, &alice, "lab");
    list_call(
        &server,
        &alice.token,
        "online=maybe&machine_type=toaster&ordering=color&limit=ten&offset=-1&tag=lab",
    )
    .expect(
        400,
        json!({
            "online": ["Must be a valid boolean."],
            "machine_type": ["\"toaster\" is not a valid choice."],
            "ordering": ["\"color\" is not a valid choice."],
            "limit": ["A valid integer is required."],
            "offset": ["Ensure this value is greater than or equal to 0."],
        }),
    );
    let refused = |query: &str, body| {
        list_call(&server, &alice.token, query).expect(400, body);
    };
    refused(
        "online=yes",
        json!({"online": ["Must be a valid boolean."]}),
    );
    refused("online=", json!({"online": ["Must be a valid boolean."]}));
    refused(
        "ordering=-color",
        json!({"ordering": ["\"-color\" is not a valid choice."]}),
    );
    refused(
        "ordering=name,serial",
        json!({"ordering": ["\"name,serial\" is not a valid choice."]}),
    );
    refused(
        "machine_type=RPI_4B",
        json!({"machine_type": ["\"RPI_4B\" is not a valid choice."]}),
    );
    refused(
        "limit=0",
        json!({"limit": ["Ensure this value is greater than or equal to 1."]}),
    );
    refused(
        "limit=1001",
        json!({"limit": ["Ensure this value is less than or equal to 1000."]}),
    );
    refused(
        "limit=2.5",
        json!({"limit": ["A valid integer is required."]}),
    );
    refused("limit=", json!({"limit": ["A valid integer is required."]}));
    refused(
        "limit=5&offset=x",
        json!({"offset": ["A valid integer is required."]}),
    );
    // DRF's boolean filter reads these spellings.
    for spelling in ["true", "True", "TRUE", "1", "false", "False", "0"] {
        list_call(&server, &alice.token, &format!("online={spelling}")).expect_status(200);
    }
    // Without credentials, 401 comes first.
    server
        .get("/devices/?online=maybe")
        .send()
        .expect_401("Authentication credentials were not provided.");
}

e2e!(orderings_sort_by_their_key_then_creation_then_serial);
fn orderings_sort_by_their_key_then_creation_then_serial() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    // Created in this order, a second apart.
    let zeta = agent(&server, &alice, "zeta");
    let upper = agent(&server, &alice, "Beta");
    let never = agent(&server, &alice, "alpha");
    let alpha2 = agent(&server, &alice, "alpha");
    let accent = agent(&server, &alice, "\u{e9}clair");
    // Seen: alpha2 first, then zeta and Beta in the same second; never and
    // accent never.
    heartbeat(&server, &alpha2.token, &json!({}));
    // The clock runs (to the second): heartbeats again until both land in
    // one second, which a busy machine can take a few tries to manage.
    for _ in 0..10 {
        server.advance(Duration::from_secs(5));
        heartbeat(&server, &upper.token, &json!({}));
        heartbeat(&server, &zeta.token, &json!({}));
        let seen = |agent: &Agent| {
            let reply = server
                .get(&device_path(&agent.serial))
                .token(&alice.token)
                .send();
            reply.expect_status(200);
            reply.json()["last_seen_time"].clone()
        };
        if seen(&upper) == seen(&zeta) {
            break;
        }
    }
    let s = |agents: &[&Agent]| agents.iter().map(|a| a.serial.clone()).collect::<Vec<_>>();
    let list = |ordering: &str| listed(&server, &alice.token, &format!("ordering={ordering}"));
    let by_creation = s(&[&zeta, &upper, &never, &alpha2, &accent]);
    assert_eq!(listed(&server, &alice.token, ""), by_creation);
    assert_eq!(list("created_time"), by_creation);
    assert_eq!(
        list("-created_time"),
        s(&[&accent, &alpha2, &never, &upper, &zeta])
    );
    // By code point: capitals before small letters, accents after both.
    assert_eq!(list("name"), s(&[&upper, &never, &alpha2, &zeta, &accent]));
    assert_eq!(list("-name"), s(&[&accent, &zeta, &never, &alpha2, &upper]));
    // Never seen first ascending, last descending; ties in creation order.
    assert_eq!(
        list("last_seen_time"),
        s(&[&never, &accent, &alpha2, &zeta, &upper])
    );
    assert_eq!(
        list("-last_seen_time"),
        s(&[&zeta, &upper, &alpha2, &never, &accent])
    );
    // Ordering and filters together, and HEAD like GET without a body.
    assert_eq!(
        listed(&server, &alice.token, "ordering=-name&search=ALPHA"),
        s(&[&never, &alpha2])
    );
    let head = server
        .head("/devices/?ordering=name&limit=2")
        .token(&alice.token)
        .send();
    head.expect_status(200);
}
