//! GET /devices/ with `limit` (docs/api.md, "List devices"): pages as DRF's
//! LimitOffsetPagination writes them, their count and their links.

use crate::fleet_listing_support::*;
use crate::support::*;
use serde_json::{Value, json};

/// Five devices of one account, in list order.
fn five(server: &Server, account: &Account) -> Vec<String> {
    let names = ["one", "two", "three", "four", "five"];
    names
        .iter()
        .map(|name| agent(server, account, name).serial)
        .collect()
}

e2e!(pages_count_every_match_and_link_the_pages_beside_them);
fn pages_count_every_match_and_link_the_pages_beside_them() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let all = five(&server, &alice);
    let base = format!("{}/devices/", server.expected_base());
    let first = page(&server, &alice.token, "limit=2");
    assert_eq!(first["count"], 5);
    assert_eq!(first["next"], format!("{base}?limit=2&offset=2"));
    assert_eq!(first["previous"], Value::Null);
    assert_eq!(serials(&first["results"]), all[..2]);
    let middle = page(&server, &alice.token, "limit=2&offset=2");
    assert_eq!(middle["next"], format!("{base}?limit=2&offset=4"));
    // The first page's link leaves `offset` out.
    assert_eq!(middle["previous"], format!("{base}?limit=2"));
    assert_eq!(serials(&middle["results"]), all[2..4]);
    let last = page(&server, &alice.token, "offset=4&limit=2");
    assert_eq!(last["next"], Value::Null);
    assert_eq!(last["previous"], format!("{base}?limit=2&offset=2"));
    assert_eq!(serials(&last["results"]), all[4..]);
    // An offset that is not a multiple of the limit, and one past the end.
    let odd = page(&server, &alice.token, "limit=2&offset=1");
    assert_eq!(odd["previous"], format!("{base}?limit=2"));
    assert_eq!(odd["next"], format!("{base}?limit=2&offset=3"));
    let past = page(&server, &alice.token, "limit=2&offset=9");
    assert_eq!(past["count"], 5);
    assert_eq!(past["results"], json!([]));
    assert_eq!(past["next"], Value::Null);
    assert_eq!(past["previous"], format!("{base}?limit=2&offset=7"));
    // The bounds of `limit`, and `offset` without `limit`: the whole array.
    assert_eq!(
        serials(&page(&server, &alice.token, "limit=1")["results"]),
        all[..1]
    );
    let widest = page(&server, &alice.token, "limit=1000");
    assert_eq!(serials(&widest["results"]), all);
    assert_eq!(widest["next"], Value::Null);
    assert_eq!(listed(&server, &alice.token, "offset=3"), all);
}

e2e!(links_keep_the_other_parameters_and_pages_follow_filters_and_order);
fn links_keep_the_other_parameters_and_pages_follow_filters_and_order() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let all = five(&server, &alice);
    for serial in &all[1..] {
        tag(&server, &alice.token, serial, &["site:berlin", "lab"]);
    }
    let base = format!("{}/devices/", server.expected_base());
    let query = "tag=site:berlin&ordering=-created_time&tag=LAB&search=&offset=1&limit=2";
    let body = page(&server, &alice.token, query);
    assert_eq!(body["count"], 4);
    assert_eq!(serials(&body["results"]), [all[3].clone(), all[2].clone()]);
    // Parameters sorted by name as DRF writes them, repeated ones in order.
    let kept = "ordering=-created_time&search=&tag=site%3Aberlin&tag=LAB";
    assert_eq!(body["next"], format!("{base}?limit=2&offset=3&{kept}"));
    assert_eq!(body["previous"], format!("{base}?limit=2&{kept}"));
    // Following `next` gives the rest.
    let next = body["next"].as_str().expect("a next link");
    let query = next.split_once('?').expect("a query").1;
    let rest = page(&server, &alice.token, query);
    assert_eq!(serials(&rest["results"]), [all[1].clone()]);
    assert_eq!(rest["next"], Value::Null);
}

e2e!(links_start_from_the_public_url_when_one_is_set);
fn links_start_from_the_public_url_when_one_is_set() {
    let server = Server::builder()
        .public_url("https://devices.example.org")
        .start();
    let alice = server.account("alice@example.com");
    five(&server, &alice);
    let body = page(&server, &alice.token, "limit=3");
    assert_eq!(
        body["next"],
        "https://devices.example.org/devices/?limit=3&offset=3"
    );
    let url = body["results"][0]["url"]
        .as_str()
        .expect("a url")
        .to_owned();
    assert!(
        url.starts_with("https://devices.example.org/devices/"),
        "{url}"
    );
}
