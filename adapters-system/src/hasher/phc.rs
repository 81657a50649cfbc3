//! Argon2 hashes in PHC strings, computed in memory the caller keeps and
//! reuses, instead of the 19 MiB that `argon2`'s own `hash_password`
//! allocates and frees for every hash (and that glibc's allocator keeps, per
//! thread, once freed).

use argon2::password_hash::{self, Output, ParamsString, PasswordHash, Salt, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The working memory of one hash at a time: as many Argon2 blocks as the
/// hasher's parameters need, allocated on first use and then reused by every
/// hash, whatever it held before (Argon2 writes each block before it reads it).
pub(super) struct Memory {
    blocks: Vec<Block>,
    size: usize,
    allocations: Arc<AtomicUsize>,
}

impl Memory {
    /// Room for hashes with `params`, not allocated yet; every allocation of
    /// it is counted in `allocations`.
    pub(super) fn new(params: &Params, allocations: Arc<AtomicUsize>) -> Self {
        Self {
            blocks: Vec::new(),
            size: params.block_count(),
            allocations,
        }
    }

    /// Another memory of the same size, counted in the same place.
    pub(super) fn sibling(&self) -> Self {
        Self {
            blocks: Vec::new(),
            size: self.size,
            allocations: self.allocations.clone(),
        }
    }

    /// Where its allocations are counted.
    pub(super) fn allocations(&self) -> Arc<AtomicUsize> {
        self.allocations.clone()
    }

    /// Runs `hash` on at least `needed` blocks: this memory's own when they
    /// are enough; for a stored hash made with more memory than the hasher's
    /// parameters, blocks for that hash alone.
    fn with<T>(&mut self, needed: usize, hash: impl FnOnce(&mut [Block]) -> T) -> T {
        if needed > self.size {
            return hash(&mut vec![Block::default(); needed]);
        }
        if self.blocks.is_empty() {
            self.blocks = vec![Block::default(); self.size];
            self.allocations.fetch_add(1, Ordering::Relaxed);
        }
        hash(&mut self.blocks)
    }
}

/// Argon2id (version 0x13) of `password` with `params` and `salt`, as a PHC
/// string: the same string `argon2`'s `PasswordHasher::hash_password` makes.
pub(super) fn hash(
    params: &Params,
    password: &[u8],
    salt: &SaltString,
    memory: &mut Memory,
) -> password_hash::Result<String> {
    let (algorithm, version) = (Algorithm::Argon2id, Version::V0x13);
    let salt = salt.as_salt();
    let output = output(algorithm, version, params.clone(), password, salt, memory)?;
    let phc = PasswordHash {
        algorithm: algorithm.ident(),
        version: Some(version.into()),
        params: ParamsString::try_from(params)?,
        salt: Some(salt),
        hash: Some(output),
    };
    Ok(phc.to_string())
}

/// Whether `password` matches the PHC string `stored`, checked with the
/// algorithm, version and parameters written in it and compared in constant
/// time. A string that is not an Argon2 PHC hash matches nothing.
pub(super) fn verify(password: &[u8], stored: &str, memory: &mut Memory) -> bool {
    matches(password, stored, memory).unwrap_or(false)
}

fn matches(password: &[u8], stored: &str, memory: &mut Memory) -> password_hash::Result<bool> {
    let stored = PasswordHash::new(stored)?;
    let algorithm = Algorithm::try_from(stored.algorithm)?;
    let version = stored
        .version
        .map(Version::try_from)
        .transpose()?
        .unwrap_or_default();
    let params = Params::try_from(&stored)?;
    let (Some(salt), Some(expected)) = (stored.salt, stored.hash) else {
        return Ok(false);
    };
    let computed = output(algorithm, version, params, password, salt, memory)?;
    // `Output`'s equality is constant-time.
    Ok(computed == expected)
}

/// The raw Argon2 output, computed in `memory`.
fn output(
    algorithm: Algorithm,
    version: Version,
    params: Params,
    password: &[u8],
    salt: Salt<'_>,
    memory: &mut Memory,
) -> password_hash::Result<Output> {
    let mut decoded = [0u8; Salt::MAX_LENGTH];
    let salt = salt.decode_b64(&mut decoded)?;
    let length = params.output_len().unwrap_or(Params::DEFAULT_OUTPUT_LEN);
    let needed = params.block_count();
    let argon2 = Argon2::new(algorithm, version, params);
    Output::init_with(length, |out| {
        memory.with(needed, |blocks| {
            argon2
                .hash_password_into_with_memory(password, salt, out, blocks)
                .map_err(password_hash::Error::from)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use argon2::password_hash::{PasswordHasher, PasswordVerifier};
    use rand::rngs::OsRng;

    fn params(m_cost: u32) -> Params {
        Params::new(m_cost, 1, 1, None).unwrap()
    }

    fn standard(params: &Params) -> Argon2<'static> {
        Argon2::new(Algorithm::Argon2id, Version::V0x13, params.clone())
    }

    fn memory(params: &Params) -> (Memory, Arc<AtomicUsize>) {
        let allocations = Arc::new(AtomicUsize::new(0));
        (Memory::new(params, allocations.clone()), allocations)
    }

    #[test]
    fn reused_memory_makes_the_same_string_as_the_standard_api() {
        let params = params(64);
        let (mut memory, allocations) = memory(&params);
        // Dirty the memory with other hashes first.
        for password in ["first", "second"] {
            let salt = SaltString::generate(&mut OsRng);
            hash(&params, password.as_bytes(), &salt, &mut memory).unwrap();
        }
        let salt = SaltString::generate(&mut OsRng);
        let ours = hash(&params, b"correct-horse", &salt, &mut memory).unwrap();
        let theirs = standard(&params)
            .hash_password(b"correct-horse", &salt)
            .unwrap()
            .to_string();
        assert_eq!(ours, theirs);
        assert!(ours.starts_with("$argon2id$v=19$m=64,t=1,p=1$"), "{ours}");
        assert_eq!(allocations.load(Ordering::Relaxed), 1, "one buffer, reused");
    }

    #[test]
    fn hashes_made_in_reused_memory_pass_the_standard_check() {
        let params = params(32);
        let (mut memory, _) = memory(&params);
        for round in 0..3 {
            let password = format!("password-{round}");
            let salt = SaltString::generate(&mut OsRng);
            let ours = hash(&params, password.as_bytes(), &salt, &mut memory).unwrap();
            let parsed = PasswordHash::new(&ours).unwrap();
            let argon2 = Argon2::default();
            assert!(argon2.verify_password(password.as_bytes(), &parsed).is_ok());
            assert!(argon2.verify_password(b"wrong", &parsed).is_err());
        }
    }

    #[test]
    fn standard_hashes_pass_the_check_in_reused_memory() {
        let params = params(32);
        let (mut memory, allocations) = memory(&params);
        for round in 0..3 {
            let password = format!("password-{round}");
            let salt = SaltString::generate(&mut OsRng);
            let theirs = standard(&params)
                .hash_password(password.as_bytes(), &salt)
                .unwrap()
                .to_string();
            assert!(verify(password.as_bytes(), &theirs, &mut memory));
            assert!(!verify(b"wrong", &theirs, &mut memory));
        }
        assert_eq!(allocations.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn stored_parameters_are_used_whatever_the_memory_size() {
        let (mut memory, allocations) = memory(&params(32));
        // Less memory, more passes, two lanes, Argon2i: all from the string.
        let smaller = Params::new(16, 3, 2, None).unwrap();
        let argon2i = Argon2::new(Algorithm::Argon2i, Version::V0x13, smaller);
        let salt = SaltString::generate(&mut OsRng);
        let stored = argon2i.hash_password(b"pw", &salt).unwrap().to_string();
        assert!(verify(b"pw", &stored, &mut memory));
        assert!(!verify(b"pw2", &stored, &mut memory));
        // More memory than the buffer holds: blocks for that hash alone.
        let larger = params(128);
        let stored = standard(&larger)
            .hash_password(b"pw", &salt)
            .unwrap()
            .to_string();
        assert!(verify(b"pw", &stored, &mut memory));
        assert!(!verify(b"pw2", &stored, &mut memory));
        assert_eq!(allocations.load(Ordering::Relaxed), 1);
        assert_eq!(memory.blocks.len(), 32, "the buffer kept its size");
    }

    #[test]
    fn what_is_not_an_argon2_hash_matches_nothing() {
        let (mut memory, _) = memory(&params(32));
        for stored in [
            "",
            "not a phc string",
            "$argon2id$v=19$m=32,t=1,p=1$c2FsdHNhbHQ",
            "$scrypt$ln=4,r=8,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
        ] {
            assert!(!verify(b"pw", stored, &mut memory), "{stored}");
        }
    }
}
