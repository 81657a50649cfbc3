use application::ports::RandomSource;
use rand::RngCore;
use rand::rngs::OsRng;

/// The operating system's CSPRNG.
#[derive(Debug, Clone, Copy, Default)]
pub struct OsRandom;

impl RandomSource for OsRandom {
    fn bytes(&self, len: usize) -> Vec<u8> {
        let mut out = vec![0u8; len];
        OsRng.fill_bytes(&mut out);
        out
    }
}
