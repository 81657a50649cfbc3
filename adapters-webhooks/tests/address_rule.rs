//! The address rule as `check` applies it: literal addresses, names that
//! resolve to private addresses, names that do not resolve, and the server's
//! choice to allow private targets.

use adapters_webhooks::HttpTransport;
use application::ports::{AddressRefusal, WebhookTransport};
use domain::TargetUrl;

async fn check(allow_private: bool, url: &str) -> Result<(), AddressRefusal> {
    HttpTransport::new(allow_private)
        .check(&TargetUrl::parse(url).unwrap())
        .await
}

const FORBIDDEN: [&str; 22] = [
    "http://127.0.0.1/",
    "http://127.255.255.254:8080/",
    "http://10.0.0.1/",
    "http://172.16.0.1/",
    "http://172.31.255.255/",
    "http://192.168.1.1/",
    "http://169.254.169.254/latest/meta-data/",
    "http://0.0.0.0/",
    "http://100.64.0.1/",
    "http://224.0.0.1/",
    "http://255.255.255.255/",
    "http://[::1]/",
    "http://[::]/",
    "http://[fc00::1]/",
    "http://[fd12:3456::1]/",
    "http://[fe80::1]/",
    "http://[ff02::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:10.0.0.1]/",
    "http://[::ffff:169.254.169.254]/",
    "https://localhost/",
    "https://localhost:8443/hook",
];

#[tokio::test]
async fn every_private_range_is_refused_literal_or_resolved() {
    for url in FORBIDDEN {
        assert_eq!(
            check(false, url).await,
            Err(AddressRefusal::Forbidden),
            "{url}"
        );
    }
}

#[tokio::test]
async fn public_addresses_are_allowed() {
    for url in [
        "http://1.1.1.1/",
        "https://8.8.8.8:8443/hook",
        "http://100.128.0.1/",
        "http://172.32.0.1/",
        "http://[2001:4860:4860::8888]/",
        "http://[::ffff:8.8.8.8]/",
    ] {
        assert_eq!(check(false, url).await, Ok(()), "{url}");
    }
}

#[tokio::test]
async fn a_name_that_does_not_resolve_is_unresolved_even_with_private_allowed() {
    for allow_private in [false, true] {
        assert_eq!(
            check(allow_private, "https://no-such-host.invalid/hook").await,
            Err(AddressRefusal::Unresolved)
        );
    }
}

#[tokio::test]
async fn allowing_private_targets_lifts_the_rule() {
    for url in FORBIDDEN {
        assert_eq!(check(true, url).await, Ok(()), "{url}");
    }
}
