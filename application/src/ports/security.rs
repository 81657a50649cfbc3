//! The ports of security: password hashing and randomness.

use async_trait::async_trait;
#[cfg(any(test, feature = "mocks"))]
use mockall::automock;

use super::StoreError;

/// Hashes and checks passwords (slowly, by design).
#[cfg_attr(any(test, feature = "mocks"), automock)]
#[async_trait]
pub trait PasswordHasher: Send + Sync {
    /// Hashes a password into a PHC string.
    async fn hash(&self, password: &str) -> Result<String, StoreError>;
    /// Checks a password against a hash. With no hash, checks it against a
    /// dummy one and returns `false`, so both take the same time.
    async fn verify(&self, password: &str, hash: Option<String>) -> Result<bool, StoreError>;
}

/// Cryptographically secure random bytes.
#[cfg_attr(any(test, feature = "mocks"), automock)]
pub trait RandomSource: Send + Sync {
    /// Exactly `len` random bytes.
    fn bytes(&self, len: usize) -> Vec<u8>;
}
