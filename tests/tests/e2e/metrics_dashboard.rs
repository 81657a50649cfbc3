//! The Grafana dashboard, `docs/grafana/devmgr.json`, imports into Grafana
//! and charts only what the server exports: every metric its queries read is
//! in the scrape of a real `devmgr serve --metrics-bind` process (a process:
//! the metrics recorder is global to it) that has served a login, an
//! enrolled device's heartbeat and long poll, and a reboot carried out
//! (docs/operations.md, Health, metrics and logs).

use crate::device_support::*;
use crate::support::metrics::{Scrape, scrape};
use crate::support::*;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::thread;
use std::time::{Duration, Instant};

/// The dashboard, from the repository.
const DASHBOARD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/grafana/devmgr.json");

/// The route of the long poll, which lasts up to its wait: latency panels
/// leave it out.
const LONG_POLL_ROUTE: &str = "/agent/commands/";

/// The prefixes of the metric names the server exports.
const PREFIXES: [&str; 2] = ["devmgr_", "process_"];

/// The series PromQL reads of a histogram `name`: `name_bucket`, …
const HISTOGRAM_SUFFIXES: [&str; 3] = ["_bucket", "_sum", "_count"];

/// How long the scraped metrics may take to show the requests made.
const SCRAPE_WITHIN: Duration = Duration::from_secs(10);

fn dashboard() -> Value {
    let text = std::fs::read_to_string(DASHBOARD)
        .unwrap_or_else(|error| panic!("{DASHBOARD} cannot be read: {error}"));
    serde_json::from_str(&text).unwrap_or_else(|error| panic!("{DASHBOARD} is not JSON: {error}"))
}

/// Every panel, those inside rows included.
fn panels(dashboard: &Value) -> Vec<&Value> {
    fn walk<'a>(list: &'a Value, into: &mut Vec<&'a Value>) {
        for panel in list.as_array().into_iter().flatten() {
            into.push(panel);
            walk(&panel["panels"], into);
        }
    }
    let mut all = Vec::new();
    walk(&dashboard["panels"], &mut all);
    all
}

/// The template variables.
fn variables(dashboard: &Value) -> &[Value] {
    dashboard["templating"]["list"]
        .as_array()
        .map_or(&[], Vec::as_slice)
}

/// Every PromQL query with where it is: each panel target's `expr`, and the
/// query of each query variable (a string, or Grafana 10's object).
fn queries(dashboard: &Value) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for panel in panels(dashboard) {
        for target in panel["targets"].as_array().into_iter().flatten() {
            if let Some(expr) = target["expr"].as_str() {
                let title = panel["title"].as_str().unwrap_or_default();
                let place = format!("panel {title:?}, target {}", target["refId"]);
                found.push((place, expr.to_owned()));
            }
        }
    }
    for variable in variables(dashboard) {
        if variable["type"] != "query" {
            continue;
        }
        let query = &variable["query"];
        let expr = query
            .as_str()
            .or_else(|| query["query"].as_str())
            .unwrap_or_else(|| panic!("variable {:?} has no query", variable["name"]));
        found.push((format!("variable {:?}", variable["name"]), expr.to_owned()));
    }
    found
}

/// The metric names a PromQL expression reads: its identifiers that start
/// with one of [`PREFIXES`], outside string literals, not Grafana variables.
fn metric_names(expr: &str) -> BTreeSet<String> {
    let chars: Vec<char> = expr.chars().collect();
    let mut names = BTreeSet::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if matches!(c, '"' | '\'' | '`') {
            i += 1;
            while i < chars.len() && chars[i] != c {
                i += if chars[i] == '\\' && c != '`' { 2 } else { 1 };
            }
            i += 1;
        } else if c.is_ascii_alphabetic() || c == '_' || c == ':' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_alphanumeric() || matches!(chars[i], '_' | ':'))
            {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let variable = start > 0 && matches!(chars[start - 1], '$' | '{');
            if !variable && PREFIXES.iter().any(|prefix| word.starts_with(prefix)) {
                names.insert(word);
            }
        } else {
            i += 1;
        }
    }
    names
}

/// The values a PromQL expression matches the `route` label with exactly
/// (`route="…"`, `route!="…"`).
fn exact_routes(expr: &str) -> Vec<String> {
    let mut routes = Vec::new();
    for (at, _) in expr.match_indices("route") {
        let rest = &expr[at + "route".len()..];
        let Some(value) = rest
            .strip_prefix("=\"")
            .or_else(|| rest.strip_prefix("!=\""))
        else {
            continue;
        };
        routes.push(value.split('"').next().unwrap_or_default().to_owned());
    }
    routes
}

/// The `${name}` (or `$name`) of the dashboard's Prometheus data source: a
/// data-source variable or an import input.
fn datasource_references(dashboard: &Value) -> BTreeSet<String> {
    let variables = variables(dashboard)
        .iter()
        .filter(|v| v["type"] == "datasource" && v["query"] == "prometheus")
        .filter_map(|v| v["name"].as_str());
    let inputs = dashboard["__inputs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|input| input["type"] == "datasource" && input["pluginId"] == "prometheus")
        .filter_map(|input| input["name"].as_str());
    variables
        .chain(inputs)
        .flat_map(|name| [format!("${{{name}}}"), format!("${name}")])
        .collect()
}

#[test]
fn the_dashboard_is_well_formed_for_grafana() {
    let dashboard = dashboard();
    let schema = dashboard["schemaVersion"].as_u64().unwrap_or_default();
    assert!(
        (36..=41).contains(&schema),
        "schemaVersion {schema}: Grafana 10 and 11 write 36–41"
    );
    for key in ["title", "uid"] {
        let text = dashboard[key].as_str().unwrap_or_default();
        assert!(!text.is_empty() && text.len() <= 40, "{key}: {text:?}");
    }
    let sources = datasource_references(&dashboard);
    assert!(
        !sources.is_empty(),
        "no Prometheus data-source variable or import input"
    );
    let instance = variables(&dashboard)
        .iter()
        .find(|v| v["name"] == "instance")
        .expect("an `instance` template variable");
    assert_eq!(instance["type"], "query", "{instance:#}");
    assert!(
        instance["datasource"]["uid"]
            .as_str()
            .is_some_and(|uid| sources.contains(uid)),
        "the instance variable queries the dashboard's data source: {instance:#}"
    );

    let mut ids = BTreeSet::new();
    let mut charts = 0;
    for panel in panels(&dashboard) {
        let title = panel["title"].as_str().unwrap_or_default();
        assert!(!title.is_empty(), "a panel without a title: {panel:#}");
        assert!(
            panel["type"].as_str().is_some_and(|t| !t.is_empty()),
            "{title}: no type"
        );
        let id = panel["id"]
            .as_u64()
            .unwrap_or_else(|| panic!("{title}: no id"));
        assert!(ids.insert(id), "{title}: id {id} is taken");
        let grid = &panel["gridPos"];
        let [x, w, h] = ["x", "w", "h"].map(|k| grid[k].as_u64().unwrap_or_default());
        assert!(
            grid["y"].is_u64() && (1..=24).contains(&w) && x + w <= 24 && h >= 1,
            "{title}: gridPos {grid}"
        );
        if panel["type"] == "row" {
            continue;
        }
        charts += 1;
        let source = &panel["datasource"];
        assert!(
            source["type"] == "prometheus"
                && source["uid"]
                    .as_str()
                    .is_some_and(|uid| sources.contains(uid)),
            "{title}: the data source is not the dashboard's Prometheus ({source})"
        );
        let targets = panel["targets"].as_array().map_or(&[][..], Vec::as_slice);
        assert!(!targets.is_empty(), "{title}: no targets");
        let mut refs = BTreeSet::new();
        for target in targets {
            let reference = target["refId"].as_str().unwrap_or_default();
            assert!(
                !reference.is_empty() && refs.insert(reference),
                "{title}: a target without a refId of its own: {target}"
            );
            assert!(
                target["expr"]
                    .as_str()
                    .is_some_and(|e| !e.trim().is_empty()),
                "{title} {reference}: no expr"
            );
            assert!(
                target.get("datasource").is_none_or(|own| own == source),
                "{title} {reference}: another data source than its panel's"
            );
        }
    }
    assert!(charts >= 12, "only {charts} panels with queries");

    for (place, expr) in queries(&dashboard) {
        assert!(
            !metric_names(&expr).is_empty(),
            "{place} reads no metric of the server: {expr}"
        );
        if place.starts_with("panel") {
            assert!(
                expr.contains("instance=~\"$instance\""),
                "{place} ignores the instance variable: {expr}"
            );
        }
        for range in expr.split('[').skip(1) {
            assert!(
                range.starts_with("$__rate_interval]"),
                "{place}: a range other than [$__rate_interval]: {expr}"
            );
        }
        if expr.contains("devmgr_http_request_duration_seconds") {
            assert!(
                expr.contains(&format!("route!=\"{LONG_POLL_ROUTE}\"")),
                "{place}: a latency query that counts the long poll: {expr}"
            );
        }
    }
}

/// The metrics address `serve` printed beside the listening one.
fn metrics_url(server: &Server) -> String {
    let line = server.first_stdout_line();
    let printed: Value = serde_json::from_str(line)
        .unwrap_or_else(|error| panic!("the first line is not JSON ({error}): {line}"));
    let url = string(&printed, "metrics");
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/metrics"),
        "{line}"
    );
    url
}

/// Each metric family of a scrape by its name, with its kind, and each of
/// its samples' names (a histogram's `_bucket`, `_sum` and `_count`, a
/// counter's `_total`) with the family's kind.
fn exported(scrape: &Scrape) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    for family in &scrape.families {
        names.insert(family.name.clone(), family.kind.clone());
        for sample in &family.samples {
            names.insert(sample.name.clone(), family.kind.clone());
        }
    }
    names
}

/// The routes the scraped requests were counted under.
fn counted_routes(scrape: &Scrape) -> BTreeSet<String> {
    scrape
        .families
        .iter()
        .flat_map(|family| &family.samples)
        .filter_map(|sample| sample.labels.get("route").cloned())
        .collect()
}

/// Why the dashboard's `name` is not readable from these metrics, if it is not.
fn unreadable(name: &str, exported: &BTreeMap<String, String>) -> Option<String> {
    let histogram = HISTOGRAM_SUFFIXES
        .iter()
        .find_map(|suffix| name.strip_suffix(suffix));
    let kind = |name: &str| exported.get(name).map(String::as_str);
    match (histogram, kind(name)) {
        (Some(base), Some("histogram")) if kind(base) == Some("histogram") => None,
        (Some(base), _) => Some(format!(
            "{name}: no histogram {base} (it is {:?})",
            kind(base)
        )),
        (None, Some("histogram")) => Some(format!(
            "{name} is a histogram: read {name}_bucket, _sum or _count"
        )),
        (None, Some(_)) => None,
        (None, None) => Some(format!("{name} is not exported")),
    }
}

e2e!(every_metric_the_dashboard_reads_is_exported);
fn every_metric_the_dashboard_reads_is_exported() {
    let dashboard = dashboard();
    let mut wanted: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut routes = BTreeSet::new();
    for (place, expr) in queries(&dashboard) {
        for name in metric_names(&expr) {
            wanted.entry(name).or_default().push(place.clone());
        }
        routes.extend(exact_routes(&expr));
    }
    assert!(wanted.len() >= 15, "the dashboard reads only {wanted:?}");

    let server = Server::builder()
        .process()
        .args(&["--metrics-bind", "127.0.0.1:0"])
        .start();
    let url = metrics_url(&server);
    // A login (a password hash), an enrolled device's heartbeat, a reboot it
    // takes from its long poll and carries out, and a path of no route.
    let owner = server.account("grafana@example.com");
    server.login_token(&owner.email, PASSWORD);
    let agent = install(&server, &owner, "pi-charted");
    heartbeat(&server, &agent.token, &json!({}));
    reboot(&server, &owner.token, &agent.serial);
    let id = one_reboot(&poll(&server, &agent.token, 0));
    for status in ["received", "done"] {
        ack_call(&server, &agent.token, &id, &json!({ "status": status })).expect_empty(204);
    }
    assert_eq!(poll(&server, &agent.token, 0), Vec::<Value>::new());
    server.get("/no-such-route/").send().expect_status(404);

    let deadline = Instant::now() + SCRAPE_WITHIN;
    loop {
        let scrape = scrape(&url);
        let exported = exported(&scrape);
        let counted = counted_routes(&scrape);
        let mut missing: Vec<String> = wanted
            .iter()
            .filter_map(|(name, places)| {
                unreadable(name, &exported).map(|why| format!("{why} (read by {places:?})"))
            })
            .collect();
        missing.extend(
            routes
                .iter()
                .filter(|route| !counted.contains(*route))
                .map(|route| format!("no series with route=\"{route}\"")),
        );
        if missing.is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the dashboard reads what the server does not export:\n{}\n\nexported: {exported:#?}\n\nserver log:\n{}",
            missing.join("\n"),
            server.log()
        );
        thread::sleep(Duration::from_millis(200));
    }
}
