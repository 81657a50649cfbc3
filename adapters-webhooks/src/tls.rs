//! TLS for posts: rustls on ring (the provider devmgr's PostgreSQL TLS
//! already uses, so the binary carries one), checking the target's
//! certificate for the URL's host name.

use rustls::{ClientConfig, RootCertStore};
use std::sync::{Arc, OnceLock};

/// The configuration on the system's authorities, built at the process's
/// first post and shared by every attempt after it (reading the
/// authorities and building a configuration are too costly per attempt).
pub(crate) fn system_config() -> &'static Arc<ClientConfig> {
    static CONFIG: OnceLock<Arc<ClientConfig>> = OnceLock::new();
    CONFIG.get_or_init(|| Arc::new(client_config(system_roots())))
}

/// A client configuration trusting `roots`, with rustls' safe defaults.
pub(crate) fn client_config(roots: RootCertStore) -> ClientConfig {
    ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .expect("ring supports rustls' default protocol versions")
        .with_root_certificates(roots)
        .with_no_client_auth()
}

/// The system's trusted authorities, or Mozilla's when it has none.
fn system_roots() -> RootCertStore {
    let mut store = RootCertStore::empty();
    let found = rustls_native_certs::load_native_certs();
    for error in &found.errors {
        tracing::debug!(%error, "skipping a system root certificate");
    }
    store.add_parsable_certificates(found.certs);
    if store.is_empty() {
        store.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    }
    store
}
