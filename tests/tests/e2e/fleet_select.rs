//! `POST /devices/select/` (docs/api.md, "Fleet"): each criterion of a
//! selector, their combinations, the preview's cap and order, and other
//! accounts' devices never seen nor counted.

use crate::device_support::listed_serials;
use crate::fleet_select_support::*;
use crate::support::*;
use serde_json::{Value, json};

/// Alice's three devices and Bob's one: (server, alice, bob, alice's serials
/// in list order).
fn fleet() -> (Server, Account, Account, Vec<String>) {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let bob = server.account("bob@example.com");
    let kitchen = add_device(
        &server,
        &alice,
        "Kitchen Pi",
        &[
            "--machine-type",
            "rpi_4b",
            "--online",
            "--description",
            "Above the fridge",
        ],
    );
    let attic = add_device(&server, &alice, "Attic box", &["--machine-type", "x86_64"]);
    let garage = add_device(
        &server,
        &alice,
        "Garage",
        &[
            "--machine-type",
            "rpi_4b",
            "--description",
            "The KITCHEN's spare",
        ],
    );
    let bobs = add_device(
        &server,
        &bob,
        "Kitchen Pi",
        &["--machine-type", "rpi_4b", "--online"],
    );
    tag_devices(&server, &alice.token, &[&kitchen, &attic], &["lab"]);
    tag_devices(&server, &alice.token, &[&kitchen], &["site:berlin"]);
    tag_devices(&server, &alice.token, &[&garage], &["site:paris"]);
    tag_devices(&server, &bob.token, &[&bobs], &["lab", "site:berlin"]);
    let listed = listed_serials(&server, &alice.token);
    let mut mine = vec![kitchen, attic, garage];
    mine.sort_by_key(|serial| listed.iter().position(|s| s == serial));
    (server, alice, bob, mine)
}

/// The serials of `all` at `indexes`, in list order.
fn pick(all: &[String], indexes: &[usize]) -> Vec<String> {
    indexes.iter().map(|&i| all[i].clone()).collect()
}

e2e!(each_criterion_selects_the_accounts_devices_that_meet_it);
fn each_criterion_selects_the_accounts_devices_that_meet_it() {
    let (server, alice, bob, mine) = fleet();
    let position = |name: &str| {
        mine.iter()
            .position(|serial| device(&server, &alice.token, serial)["name"] == name)
            .expect("a device of that name")
    };
    let (kitchen, attic, garage) = (
        position("Kitchen Pi"),
        position("Attic box"),
        position("Garage"),
    );
    let sorted = |mut indexes: Vec<usize>| {
        indexes.sort_unstable();
        indexes
    };
    let bobs = listed_serials(&server, &bob.token).remove(0);
    let cases: Vec<(Value, Vec<usize>)> = vec![
        (json!({"all": true}), vec![0, 1, 2]),
        (
            json!({"serials": [mine[kitchen], bobs, "not-a-serial"]}),
            vec![kitchen],
        ),
        (json!({"serials": [mine[kitchen].to_uppercase()]}), vec![]),
        (json!({"tags": ["lab"]}), sorted(vec![kitchen, attic])),
        (json!({"tags": ["LAB", "site:berlin"]}), vec![kitchen]),
        (json!({"tags": ["lab", "site:paris"]}), vec![]),
        (
            json!({"any_tags": ["site:berlin", "Site:Paris"]}),
            sorted(vec![kitchen, garage]),
        ),
        (json!({"any_tags": ["nowhere"]}), vec![]),
        (json!({"online": true}), vec![kitchen]),
        (json!({"online": "false"}), sorted(vec![attic, garage])),
        (
            json!({"machine_type": "rpi_4b"}),
            sorted(vec![kitchen, garage]),
        ),
        (json!({"machine_type": "rpi_3b_plus"}), vec![]),
        (json!({"search": "kitchen"}), sorted(vec![kitchen, garage])),
        (json!({"search": "FRIDGE"}), vec![kitchen]),
        (json!({"search": &mine[attic][4..14]}), vec![attic]),
        (
            json!({"machine_type": "rpi_4b", "online": false}),
            vec![garage],
        ),
        (
            json!({"tags": ["lab"], "any_tags": ["site:berlin"], "all": false}),
            vec![kitchen],
        ),
        (
            json!({"search": "kitchen", "colour": "ignored"}),
            sorted(vec![kitchen, garage]),
        ),
    ];
    for (selector, expected) in cases {
        let expected = pick(&mine, &expected);
        let (count, serials) = selected(&server, &alice.token, selector.clone());
        assert_eq!(serials, expected, "{selector}");
        assert_eq!(count, expected.len() as u64, "{selector}");
    }
    // Bob sees only his own device, whatever the selector.
    let (count, serials) = selected(&server, &bob.token, json!({"all": true}));
    assert_eq!((count, serials), (1, vec![bobs.clone()]));
    let (count, _) = selected(&server, &bob.token, json!({"serials": [mine[0]]}));
    assert_eq!(count, 0);
}

e2e!(the_preview_shows_each_device_as_its_detail_does);
fn the_preview_shows_each_device_as_its_detail_does() {
    let (server, alice, _bob, mine) = fleet();
    let reply = select_call(&server, &alice.token, json!({"all": true}));
    reply.expect_status(200);
    let devices = reply.json()["devices"].clone();
    let details: Vec<Value> = mine
        .iter()
        .map(|serial| device(&server, &alice.token, serial))
        .collect();
    assert_eq!(devices, Value::from(details), "{reply}");
}

e2e!(the_preview_stops_at_100_devices_and_counts_them_all);
fn the_preview_stops_at_100_devices_and_counts_them_all() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let bob = server.account("bob@example.com");
    for n in 0..103 {
        add_device(&server, &alice, &format!("Pi {n}"), &[]);
    }
    add_device(&server, &bob, "Not Alice's", &[]);
    let listed = listed_serials(&server, &alice.token);
    let (count, serials) = selected(&server, &alice.token, json!({"all": true}));
    assert_eq!(count, 103);
    assert_eq!(serials, listed[..100]);
    let (count, serials) = selected(&server, &alice.token, json!({"search": "pi 10"}));
    assert_eq!(count, 4, "Pi 10, Pi 100, Pi 101, Pi 102");
    assert_eq!(serials.len(), 4);
}

e2e!(selector_errors_nest_under_selector_and_come_all_at_once);
fn selector_errors_nest_under_selector_and_come_all_at_once() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let refused = |body: Value, errors: Value| {
        server
            .post(SELECT)
            .token(&alice.token)
            .json(&body)
            .send()
            .expect(400, errors);
    };
    refused(json!({}), json!({"selector": ["This field is required."]}));
    refused(
        json!({"selector": null}),
        json!({"selector": ["This field may not be null."]}),
    );
    for (value, kind) in [
        (json!("all"), "str"),
        (json!(1), "int"),
        (json!(1.5), "float"),
        (json!(true), "bool"),
        (json!(["all"]), "list"),
    ] {
        let message = format!("Invalid data. Expected a dictionary, but got {kind}.");
        refused(
            json!({ "selector": value }),
            json!({"selector": {"non_field_errors": [message]}}),
        );
    }
    let nested = |selector: Value, errors: Value| {
        refused(
            json!({ "selector": selector }),
            json!({ "selector": errors }),
        );
    };
    nested(json!({}), json!({"non_field_errors": [NEEDS_ALL]}));
    nested(
        json!({"all": false}),
        json!({"non_field_errors": [NEEDS_ALL]}),
    );
    nested(
        json!({"tagz": ["lab"]}),
        json!({"non_field_errors": [NEEDS_ALL]}),
    );
    nested(
        json!({"all": true, "tags": ["lab"]}),
        json!({"non_field_errors": [ALL_ALONE]}),
    );
    nested(
        json!({
            "serials": [],
            "tags": "lab",
            "any_tags": [],
            "online": "maybe",
            "machine_type": "toaster",
            "search": "",
            "all": "sometimes",
        }),
        json!({
            "serials": ["This list may not be empty."],
            "tags": ["Expected a list of items but got type \"str\"."],
            "any_tags": ["This list may not be empty."],
            "online": ["Must be a valid boolean."],
            "machine_type": [not_a_choice("toaster")],
            "search": ["This field may not be blank."],
            "all": ["Must be a valid boolean."],
        }),
    );
    let thousand_and_one: Vec<String> = (0..1001).map(|n| format!("serial-{n}")).collect();
    nested(
        json!({"serials": thousand_and_one}),
        json!({"serials": ["Ensure this field has no more than 1000 elements."]}),
    );
    nested(
        json!({"serials": ["a", 7]}),
        json!({"serials": ["Not a valid string."]}),
    );
    nested(
        json!({"serials": {"a": 1}}),
        json!({"serials": ["Expected a list of items but got type \"dict\"."]}),
    );
    nested(
        json!({"serials": null}),
        json!({"serials": ["This field may not be null."]}),
    );
    nested(json!({"tags": ["bad tag"]}), json!({"tags": [INVALID_TAG]}));
    nested(
        json!({"any_tags": [3]}),
        json!({"any_tags": ["Not a valid string."]}),
    );
    nested(
        json!({"online": null}),
        json!({"online": ["This field may not be null."]}),
    );
    nested(
        json!({"search": "   "}),
        json!({"search": ["This field may not be blank."]}),
    );
    nested(
        json!({"search": 5}),
        json!({"search": ["Not a valid string."]}),
    );
    nested(
        json!({"machine_type": 5}),
        json!({"machine_type": [not_a_choice("5")]}),
    );
    // A thousand serials are fine, and DRF's spellings of booleans too.
    let thousand: Vec<String> = (0..1000).map(|n| format!("serial-{n}")).collect();
    let (count, _) = selected(&server, &alice.token, json!({"serials": thousand}));
    assert_eq!(count, 0);
    for spelling in [json!("yes"), json!("off"), json!(1), json!("True")] {
        selected(&server, &alice.token, json!({ "online": spelling }));
    }
    selected(&server, &alice.token, json!({"all": "true"}));
}
