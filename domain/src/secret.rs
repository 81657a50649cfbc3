//! Secrets handed to clients (tokens, e-mailed keys) and the hashes they are
//! stored under. A secret is shown once; only its SHA-256 hash is kept.

use sha2::{Digest, Sha256};
use std::fmt;

/// The SHA-256 of a secret, in lowercase hex: what storage keeps and looks up by.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct SecretHash(String);

impl SecretHash {
    /// Hashes a secret as presented by a client.
    pub fn of(secret: &str) -> Self {
        Self(hex::encode(Sha256::digest(secret.as_bytes())))
    }

    /// Takes a hash read back from storage.
    pub fn from_stored(hash: String) -> Self {
        Self(hash)
    }

    /// The lowercase hex text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for SecretHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SecretHash(..)")
    }
}

/// An API token: 40 lowercase hex characters from 20 random bytes.
pub fn api_token(random: [u8; 20]) -> String {
    hex::encode(random)
}

/// An install token: 32 characters `[a-z0-9]`.
pub fn install_token(random: [u8; 32]) -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    // 256 is not a multiple of 36: the slight bias is irrelevant for a
    // 32-character token with over 160 bits of entropy.
    random
        .iter()
        .map(|b| char::from(ALPHABET[usize::from(*b) % ALPHABET.len()]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_sha256_hex() {
        assert_eq!(
            SecretHash::of("abc").as_str(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn tokens_have_the_contract_shape() {
        let token = api_token([0xab; 20]);
        assert_eq!(token.len(), 40);
        assert!(
            token
                .chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
        let install = install_token([200; 32]);
        assert_eq!(install.len(), 32);
        assert!(
            install
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        );
    }
}
