//! Argon2id password hashing on a fixed set of threads, each reusing its
//! own Argon2 memory, with bounded concurrency and a bounded queue.

mod phc;
mod threads;

use application::StoreError;
use application::ports::PasswordHasher;
use argon2::Params;
use argon2::password_hash::SaltString;
use async_trait::async_trait;
use phc::Memory;
use rand::rngs::OsRng;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use threads::HashingThreads;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot};

/// How many hashes may wait for a slot by default.
pub const DEFAULT_MAX_QUEUE: usize = 32;

/// Argon2id with OWASP's recommended parameters (19 MiB, 2 passes, 1 lane).
///
/// Hashes run on `parallelism` threads of their own, one hash per thread at a
/// time, so a burst of logins queues here instead of occupying every core and
/// every async worker: other requests keep being served. Each thread hashes
/// in the same Argon2 memory every time, allocated on its first hash, so the
/// memory hashing takes is bounded by `parallelism` × 19 MiB however long a
/// login storm lasts. At most `max_queue` hashes wait for a slot; one more is
/// refused at once as [busy](StoreError::busy), so a flood of requests cannot
/// make every other login wait behind it.
#[derive(Clone)]
pub struct Argon2Hasher {
    params: Params,
    threads: Arc<HashingThreads>,
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

    /// How many Argon2 memories the hashing threads hold: one per thread
    /// that has hashed so far, never more than `parallelism`.
    pub fn memories(&self) -> usize {
        self.threads.allocations()
    }

    /// Cheap parameters, for this crate's tests.
    #[cfg(test)]
    fn fast_for_tests() -> Self {
        let params =
            Params::new(Params::MIN_M_COST, 1, 1, None).expect("minimum parameters are valid");
        Self::with_params(params, 2)
    }

    fn with_params(params: Params, parallelism: usize) -> Self {
        // The first thread's memory makes the dummy hash, then keeps serving.
        let mut first = Memory::new(&params, Arc::new(AtomicUsize::new(0)));
        let salt = SaltString::generate(&mut OsRng);
        let dummy_hash = phc::hash(&params, b"devmgr-dummy-password", &salt, &mut first)
            .expect("hashing a fixed password with valid parameters succeeds");
        let parallelism = parallelism.max(1);
        let threads = HashingThreads::start(parallelism, first)
            .expect("the password hashing threads can be started");
        Self {
            params,
            threads: Arc::new(threads),
            permits: Arc::new(Semaphore::new(parallelism)),
            waiting: Arc::new(AtomicUsize::new(0)),
            max_queue: DEFAULT_MAX_QUEUE,
            dummy_hash: dummy_hash.into(),
        }
    }

    /// A slot to hash in: at once when one is free, else after waiting in
    /// the queue, unless the queue is full.
    async fn slot(&self) -> Result<OwnedSemaphorePermit, StoreError> {
        if let Ok(permit) = self.permits.clone().try_acquire_owned() {
            return Ok(permit);
        }
        let queued = self.waiting.fetch_add(1, Ordering::AcqRel);
        let _leave = LeaveQueue(&self.waiting);
        if queued >= self.max_queue {
            return Err(StoreError::busy("the password hashing queue is full"));
        }
        self.permits
            .clone()
            .acquire_owned()
            .await
            .map_err(|e| StoreError::new("password hashing is shutting down", e))
    }

    /// Runs `work` on a hashing thread once a slot is free. The slot stays
    /// taken until the work is done, even if the request that asked for it
    /// is gone, so no more hashes run at once than there are threads.
    async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Params, &mut Memory) -> T + Send + 'static,
    ) -> Result<T, StoreError> {
        let permit = self.slot().await?;
        let params = self.params.clone();
        let (reply, answer) = oneshot::channel();
        self.threads
            .submit(Box::new(move |memory| {
                let _ = reply.send(work(&params, memory));
                drop(permit);
            }))
            .map_err(StoreError::message)?;
        answer
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
        self.run(move |params, memory| {
            let salt = SaltString::generate(&mut OsRng);
            phc::hash(params, password.as_bytes(), &salt, memory)
                .map_err(|e| StoreError::message(format!("password hashing failed: {e}")))
        })
        .await?
    }

    async fn verify(&self, password: &str, hash: Option<String>) -> Result<bool, StoreError> {
        let password = password.to_owned();
        let known = hash.is_some();
        // Unknown accounts check the dummy hash: the same work as a real one.
        let hash = hash.unwrap_or_else(|| self.dummy_hash.to_string());
        let matches = self
            .run(move |_, memory| phc::verify(password.as_bytes(), &hash, memory))
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

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_burst_of_hashes_reuses_one_memory_per_thread() {
        let hasher = Argon2Hasher::fast_for_tests().with_max_queue(64);
        assert_eq!(
            hasher.memories(),
            1,
            "the dummy hash's, kept by the first thread"
        );
        let burst: Vec<_> = (0..40)
            .map(|i| {
                let hasher = hasher.clone();
                tokio::spawn(async move {
                    let password = format!("password-{i}");
                    let hash = hasher.hash(&password).await.unwrap();
                    assert!(hasher.verify(&password, Some(hash.clone())).await.unwrap());
                    assert!(!hasher.verify("wrong", Some(hash)).await.unwrap());
                    assert!(!hasher.verify(&password, None).await.unwrap());
                })
            })
            .collect();
        for hashing in burst {
            hashing.await.unwrap();
        }
        let memories = hasher.memories();
        assert!(
            (1..=2).contains(&memories),
            "{memories} memories for 2 threads"
        );
    }

    #[tokio::test]
    async fn hashes_are_interchangeable_with_the_argon2_crate() {
        use argon2::password_hash::{PasswordHash, PasswordHasher as _, PasswordVerifier};
        let hasher = Argon2Hasher::fast_for_tests();
        let ours = hasher.hash("correct-horse").await.unwrap();
        let standard = argon2::Argon2::default();
        let parsed = PasswordHash::new(&ours).unwrap();
        assert!(standard.verify_password(b"correct-horse", &parsed).is_ok());
        assert!(standard.verify_password(b"wrong-horse", &parsed).is_err());
        // A hash stored with the crate's defaults (m = 19 MiB, more memory
        // than this hasher's threads hold) still verifies.
        let salt = SaltString::generate(&mut OsRng);
        let theirs = standard
            .hash_password(b"correct-horse", &salt)
            .unwrap()
            .to_string();
        assert!(
            hasher
                .verify("correct-horse", Some(theirs.clone()))
                .await
                .unwrap()
        );
        assert!(!hasher.verify("wrong-horse", Some(theirs)).await.unwrap());
    }

    #[tokio::test]
    async fn owasp_parameters_are_in_the_hash() {
        let hash = Argon2Hasher::owasp(1).hash("pw").await.unwrap();
        assert!(hash.contains("m=19456,t=2,p=1"), "{hash}");
    }
}
