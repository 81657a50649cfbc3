//! Argon2id password hashing on the blocking pool, with bounded concurrency
//! and a bounded queue.

use application::StoreError;
use application::ports::PasswordHasher;
use argon2::password_hash::{PasswordHash, PasswordHasher as _, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use async_trait::async_trait;
use rand::rngs::OsRng;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio::sync::Semaphore;

/// How many hashes may wait for a free slot by default.
pub const DEFAULT_MAX_QUEUE: usize = 32;

/// Argon2id with OWASP's recommended parameters (19 MiB, 2 passes, 1 lane).
///
/// Hashes run on tokio's blocking pool, at most `parallelism` at a time, so a
/// burst of logins queues here instead of occupying every core and every
/// async worker: other requests keep being served. At most `max_queue`
/// hashes wait for a slot; one more is refused at once as
/// [busy](StoreError::busy), so a flood of requests cannot make every other
/// login wait behind it.
#[derive(Clone)]
pub struct Argon2Hasher {
    argon2: Argon2<'static>,
    permits: Arc<Semaphore>,
    waiting: Arc<AtomicUsize>,
    max_queue: usize,
    dummy_hash: Arc<str>,
}

impl Argon2Hasher {
    /// OWASP: m = 19 MiB, t = 2, p = 1; [`DEFAULT_MAX_QUEUE`] may wait.
    pub fn owasp(parallelism: usize) -> Self {
        let params = Params::new(19 * 1024, 2, 1, None).expect("OWASP parameters are valid");
        Self::with_params(params, parallelism)
    }

    /// The same hasher, with at most `max_queue` hashes waiting for a slot.
    pub fn with_max_queue(self, max_queue: usize) -> Self {
        Self { max_queue, ..self }
    }

    /// Hashes waiting for a slot now.
    pub fn queue_length(&self) -> usize {
        self.waiting.load(Ordering::Relaxed)
    }

    /// Cheap parameters, for this crate's tests.
    #[cfg(test)]
    fn fast_for_tests() -> Self {
        let params =
            Params::new(Params::MIN_M_COST, 1, 1, None).expect("minimum parameters are valid");
        Self::with_params(params, 2)
    }

    fn with_params(params: Params, parallelism: usize) -> Self {
        let argon2 = Argon2::new(Algorithm::Argon2id, Version::V0x13, params);
        let salt = SaltString::generate(&mut OsRng);
        let dummy_hash = argon2
            .hash_password(b"devmgr-dummy-password", &salt)
            .expect("hashing a fixed password with valid parameters succeeds")
            .to_string();
        Self {
            argon2,
            permits: Arc::new(Semaphore::new(parallelism.max(1))),
            waiting: Arc::new(AtomicUsize::new(0)),
            max_queue: DEFAULT_MAX_QUEUE,
            dummy_hash: dummy_hash.into(),
        }
    }

    /// A slot to hash in: at once when one is free, else after waiting in
    /// the queue, unless the queue is full.
    async fn slot(&self) -> Result<tokio::sync::SemaphorePermit<'_>, StoreError> {
        if let Ok(permit) = self.permits.try_acquire() {
            return Ok(permit);
        }
        let queued = self.waiting.fetch_add(1, Ordering::AcqRel);
        let _leave = LeaveQueue(&self.waiting);
        if queued >= self.max_queue {
            return Err(StoreError::busy("the password hashing queue is full"));
        }
        self.permits
            .acquire()
            .await
            .map_err(|e| StoreError::new("password hashing is shutting down", e))
    }

    async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Argon2<'static>) -> T + Send + 'static,
    ) -> Result<T, StoreError> {
        let _permit = self.slot().await?;
        let argon2 = self.argon2.clone();
        tokio::task::spawn_blocking(move || work(&argon2))
            .await
            .map_err(|e| StoreError::new("password hashing task failed", e))
    }
}

/// Leaves the queue when dropped (also when the waiting request is cancelled).
struct LeaveQueue<'a>(&'a AtomicUsize);

impl Drop for LeaveQueue<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

#[async_trait]
impl PasswordHasher for Argon2Hasher {
    async fn hash(&self, password: &str) -> Result<String, StoreError> {
        let password = password.to_owned();
        self.run(move |argon2| {
            let salt = SaltString::generate(&mut OsRng);
            argon2
                .hash_password(password.as_bytes(), &salt)
                .map(|hash| hash.to_string())
                .map_err(|e| StoreError::message(format!("password hashing failed: {e}")))
        })
        .await?
    }

    async fn verify(&self, password: &str, hash: Option<String>) -> Result<bool, StoreError> {
        let password = password.to_owned();
        let known = hash.is_some();
        let hash = hash.unwrap_or_else(|| self.dummy_hash.to_string());
        let matches = self
            .run(move |argon2| {
                PasswordHash::new(&hash)
                    .map(|parsed| argon2.verify_password(password.as_bytes(), &parsed).is_ok())
                    .unwrap_or(false)
            })
            .await?;
        Ok(known && matches)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn hashes_verify_and_wrong_passwords_do_not() {
        let hasher = Argon2Hasher::fast_for_tests();
        let hash = hasher.hash("correct-horse").await.unwrap();
        assert!(hash.starts_with("$argon2id$"));
        assert!(
            hasher
                .verify("correct-horse", Some(hash.clone()))
                .await
                .unwrap()
        );
        assert!(!hasher.verify("wrong-horse", Some(hash)).await.unwrap());
    }

    #[tokio::test]
    async fn no_hash_never_verifies_even_with_the_dummy_password() {
        let hasher = Argon2Hasher::fast_for_tests();
        assert!(!hasher.verify("devmgr-dummy-password", None).await.unwrap());
        assert!(
            !hasher
                .verify("x", Some("not a phc string".into()))
                .await
                .unwrap()
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_full_queue_refuses_at_once_and_frees_up_afterwards() {
        let hasher = Argon2Hasher::owasp(1).with_max_queue(2);
        // One hashing and two waiting fill it; the rest are refused.
        let attempts: Vec<_> = (0..8)
            .map(|_| {
                let hasher = hasher.clone();
                tokio::spawn(async move { hasher.hash("pw").await })
            })
            .collect();
        let mut busy = 0;
        for attempt in attempts {
            match attempt.await.unwrap() {
                Ok(hash) => assert!(hash.starts_with("$argon2id$")),
                Err(e) => {
                    assert!(e.is_busy(), "{e}");
                    busy += 1;
                }
            }
        }
        assert_eq!(busy, 5, "1 hashing + 2 queued of 8");
        assert_eq!(hasher.queue_length(), 0);
        assert!(hasher.hash("pw").await.is_ok());
    }

    #[tokio::test]
    async fn owasp_parameters_are_in_the_hash() {
        let hash = Argon2Hasher::owasp(1).hash("pw").await.unwrap();
        assert!(hash.contains("m=19456,t=2,p=1"), "{hash}");
    }
}
