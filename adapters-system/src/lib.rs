//! Adapters for what the operating system provides: time, randomness, and
//! CPU for password hashing.

mod clock;
mod hasher;
mod random;

pub use clock::SystemClock;
pub use hasher::{Argon2Hasher, DEFAULT_MAX_QUEUE};
pub use random::OsRandom;
