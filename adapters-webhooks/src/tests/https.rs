//! Posts over HTTPS: the certificate is checked for the URL's host name.

use super::posts::ping;
use super::receiver::{Answer, Receiver};
use crate::HttpTransport;
use application::ports::{PostOutcome, WebhookTransport};
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::{RootCertStore, ServerConfig};
use std::sync::Arc;
use tokio_rustls::TlsAcceptor;

/// A receiver over TLS showing a certificate for `names`, signed by a new
/// authority, and a transport that trusts only that authority.
async fn tls_receiver(names: &[&str]) -> (Receiver, HttpTransport) {
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap();
    let key = KeyPair::generate().unwrap();
    let names = names
        .iter()
        .map(|name| name.to_string())
        .collect::<Vec<_>>();
    let certificate = CertificateParams::new(names)
        .unwrap()
        .signed_by(&key, &ca)
        .unwrap();
    let config =
        ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                vec![certificate.der().clone()],
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
            )
            .unwrap();
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let receiver = Receiver::start(Answer::Status(204, vec![]), move |stream| {
        let acceptor = acceptor.clone();
        async move { acceptor.accept(stream).await.ok() }
    })
    .await;
    let mut roots = RootCertStore::empty();
    roots.add(ca.der().clone()).unwrap();
    (receiver, HttpTransport::new(true).with_roots(roots))
}

#[tokio::test]
async fn a_certificate_for_the_host_name_is_trusted() {
    let (mut receiver, transport) = tls_receiver(&["localhost"]).await;
    let post = ping(&format!("https://localhost:{}/hook", receiver.port));
    assert_eq!(transport.post(&post).await, PostOutcome::Answered(204));
    assert_eq!(receiver.next().await.path, "/hook");
}

#[tokio::test]
async fn a_certificate_for_another_name_is_no_answer() {
    let (receiver, transport) = tls_receiver(&["hooks.example.com"]).await;
    for url in [
        format!("https://localhost:{}/", receiver.port),
        format!("https://127.0.0.1:{}/", receiver.port),
    ] {
        let PostOutcome::NoAnswer(reason) = transport.post(&ping(&url)).await else {
            panic!("{url}: a certificate for another name was trusted");
        };
        assert!(reason.contains("certificate"), "{reason}");
    }
}

#[tokio::test]
async fn a_certificate_of_an_untrusted_authority_is_no_answer() {
    let (receiver, _) = tls_receiver(&["localhost"]).await;
    let url = format!("https://localhost:{}/", receiver.port);
    let PostOutcome::NoAnswer(reason) = HttpTransport::new(true).post(&ping(&url)).await else {
        panic!("an unknown authority was trusted");
    };
    assert!(reason.contains("certificate"), "{reason}");
}
