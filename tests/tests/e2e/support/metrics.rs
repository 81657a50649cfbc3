//! Reading the server's metrics as Prometheus does: the text of `GET
//! /metrics`, parsed by Prometheus's own Python client library
//! (`prometheus_client.parser`, pinned in
//! `tests/python/metrics-requirements.txt`).

use python_tools::{Packages, Python};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::io::Write;
use std::process::Stdio;
use std::sync::OnceLock;

/// prometheus-client, pinned.
const METRICS_PACKAGES: Packages = Packages {
    name: "metrics",
    imports: &["prometheus_client"],
    requirements: include_str!("../../../python/metrics-requirements.txt"),
};

/// Reads exposition text on stdin; writes its families as JSON.
const PARSE: &str = r#"
import json, math, sys
from prometheus_client.parser import text_string_to_metric_families
families = [
    {"name": f.name, "type": f.type, "samples": [
        {"name": s.name, "labels": s.labels,
         "value": s.value if math.isfinite(s.value) else str(s.value)}
        for s in f.samples]}
    for f in text_string_to_metric_families(sys.stdin.read())
]
json.dump(families, sys.stdout)
"#;

fn python() -> &'static Python {
    static PYTHON: OnceLock<Result<Python, String>> = OnceLock::new();
    match PYTHON.get_or_init(|| python_tools::prepare(METRICS_PACKAGES)) {
        Ok(python) => python,
        Err(problem) => panic!("{problem}"),
    }
}

/// One metric family: its name (a counter's without `_total`), its type and
/// its samples.
#[derive(Debug, Deserialize)]
pub struct Family {
    /// The family's name.
    pub name: String,
    /// `counter`, `gauge`, `histogram`, …
    #[serde(rename = "type")]
    pub kind: String,
    /// Its samples.
    pub samples: Vec<Sample>,
}

/// One sample: its full name (`…_total`, `…_bucket`, `…_count`), labels and value.
#[derive(Debug, Deserialize)]
pub struct Sample {
    /// The sample's name.
    pub name: String,
    /// Its labels.
    pub labels: BTreeMap<String, String>,
    /// Its value (`+Inf` and the like are kept as text).
    pub value: serde_json::Value,
}

/// One scrape, parsed.
#[derive(Debug)]
pub struct Scrape {
    /// Every family.
    pub families: Vec<Family>,
}

impl Scrape {
    /// Parses exposition text; panics, with the text, when Prometheus's
    /// parser refuses it.
    #[track_caller]
    pub fn parse(text: &str) -> Self {
        let mut child = python()
            .command()
            .args(["-c", PARSE])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("python3 runs");
        child
            .stdin
            .take()
            .expect("a stdin")
            .write_all(text.as_bytes())
            .expect("the text is written");
        let output = child.wait_with_output().expect("the parser ends");
        assert!(
            output.status.success(),
            "Prometheus's parser refused the metrics: {}\n{text}",
            String::from_utf8_lossy(&output.stderr)
        );
        Self {
            families: serde_json::from_slice(&output.stdout).expect("the parser's JSON"),
        }
    }

    /// The value of the sample named `name` whose labels include `labels`.
    pub fn value(&self, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
        self.families
            .iter()
            .flat_map(|family| &family.samples)
            .find(|sample| {
                sample.name == name
                    && labels.iter().all(|(key, value)| {
                        sample.labels.get(*key).map(String::as_str) == Some(value)
                    })
            })
            .and_then(|sample| sample.value.as_f64())
    }

    /// The type of the family named `name`.
    pub fn kind(&self, name: &str) -> Option<&str> {
        self.families
            .iter()
            .find(|family| family.name == name)
            .map(|family| family.kind.as_str())
    }
}

/// Scrapes `url` (the server's `…/metrics`), checks it is Prometheus text,
/// and parses it.
#[track_caller]
pub fn scrape(url: &str) -> Scrape {
    let reply = reqwest::blocking::get(url).expect("the metrics listener answers");
    assert_eq!(reply.status().as_u16(), 200, "GET {url}");
    let content_type = reply
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert!(
        content_type.starts_with("text/plain; version=0.0.4"),
        "{content_type}"
    );
    Scrape::parse(&reply.text().expect("a body"))
}
