//! How a delivery is signed: `X-Devmgr-Signature: sha256=<hex>`, the
//! lowercase hex HMAC-SHA256 of the body's bytes keyed with the secret's
//! UTF-8 bytes (as GitHub signs its webhooks).

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The value of `X-Devmgr-Signature` for `body` under `secret`.
pub fn signature_header(secret: &str, body: &[u8]) -> String {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes a key of any length");
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_rfc_4231_test_case_2() {
        // RFC 4231, test case 2: key "Jefe".
        assert_eq!(
            signature_header("Jefe", b"what do ya want for nothing?"),
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }
}
