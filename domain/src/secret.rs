//! Secrets handed to clients (tokens, e-mailed keys) and the hashes they are
//! stored under. A secret is shown once; only its SHA-256 hash is kept.

use sha2::{Digest, Sha256};
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// The SHA-256 of a secret, in lowercase hex: what storage keeps and looks up by.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct SecretHash(String);

impl SecretHash {
    /// Hashes a secret as presented by a client.
    pub fn of(secret: &str) -> Self {
        Self(sha256_hex(secret.as_bytes()))
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

/// The SHA-256 of `bytes` in lowercase hex. Written into a buffer:
/// `hex::encode` collects its characters one by one, a cost every
/// authenticated request and every audit entry paid.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    let mut text = [0u8; 64];
    hex::encode_to_slice(Sha256::digest(bytes), &mut text).expect("64 hex digits for 32 bytes");
    std::str::from_utf8(&text).expect("hex is ASCII").to_owned()
}

/// An API token: 40 lowercase hex characters from 20 random bytes.
pub fn api_token(random: [u8; 20]) -> String {
    hex::encode(random)
}

/// An account's install token: [`InstallToken::LEN`] characters `[a-z0-9]`
/// that enrol devices into the account. Its `Debug` hides it.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct InstallToken(String);

/// The text was not an install token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("not an install token ({len} characters a-z, 0-9)", len = InstallToken::LEN)]
pub struct InvalidInstallToken;

impl InstallToken {
    /// How many characters a token has.
    pub const LEN: usize = 32;

    /// The characters a token is made of.
    const ALPHABET: &'static [u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";

    /// Takes text of exactly [`Self::LEN`] characters `[a-z0-9]`.
    pub fn parse(raw: &str) -> Result<Self, InvalidInstallToken> {
        let shaped = raw.len() == Self::LEN
            && raw
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
        shaped
            .then(|| Self(raw.to_owned()))
            .ok_or(InvalidInstallToken)
    }

    /// Makes a token from 32 random bytes.
    pub fn from_random_bytes(random: [u8; 32]) -> Self {
        // 256 is not a multiple of 36: the slight bias is irrelevant for a
        // 32-character token with over 160 bits of entropy.
        Self(
            random
                .iter()
                .map(|b| char::from(Self::ALPHABET[usize::from(*b) % Self::ALPHABET.len()]))
                .collect(),
        )
    }

    /// Takes a token read back from storage as it is: only minted tokens
    /// are stored.
    pub fn from_stored(token: String) -> Self {
        Self(token)
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for InstallToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("InstallToken(..)")
    }
}

impl fmt::Display for InstallToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for InstallToken {
    type Err = InvalidInstallToken;

    fn from_str(raw: &str) -> Result<Self, InvalidInstallToken> {
        Self::parse(raw)
    }
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
    }

    #[test]
    fn install_tokens_are_32_lowercase_letters_and_digits() {
        for random in [[0; 32], [35; 32], [200; 32], [255; 32]] {
            let token = InstallToken::from_random_bytes(random);
            assert_eq!(token.as_str().len(), InstallToken::LEN);
            assert!(
                token
                    .as_str()
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
            );
            assert_eq!(InstallToken::parse(token.as_str()), Ok(token.clone()));
            assert_eq!(token.to_string().parse::<InstallToken>(), Ok(token));
        }
    }

    #[test]
    fn install_tokens_of_another_shape_are_refused() {
        let good = "k3x9q2m8v7b6n5c4z1a0s9d8f7g6h5j4";
        assert!(InstallToken::parse(good).is_ok());
        for raw in [
            "",
            &good[1..],
            &format!("{good}a"),
            &good.to_uppercase(),
            "k3x9q2m8v7b6n5c4z1a0s9d8f7g6h5j-",
            "k3x9q2m8v7b6n5c4z1a0s9d8f7g6h5é",
            " k3x9q2m8v7b6n5c4z1a0s9d8f7g6h5j",
        ] {
            assert_eq!(
                InstallToken::parse(raw),
                Err(InvalidInstallToken),
                "{raw:?}"
            );
        }
    }

    #[test]
    fn an_install_tokens_debug_hides_it() {
        let token = InstallToken::from_random_bytes([7; 32]);
        assert_eq!(format!("{token:?}"), "InstallToken(..)");
    }
}
