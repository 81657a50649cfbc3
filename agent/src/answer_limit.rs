//! The most the agent reads of an answer from the server.
//!
//! Its answers are small JSON objects; a server (or something posing as one)
//! must not make it read, or hold in memory, more than
//! [`MAX_ANSWER_BYTES`] of one.

/// The largest answer body the agent accepts: 1 MiB. Reading stops at the
/// first byte beyond it, and the request counts as failed.
pub const MAX_ANSWER_BYTES: usize = 1024 * 1024;

/// An answer body over the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooLarge;

/// The bytes of an answer body read so far, never more than a limit.
#[derive(Debug, Clone)]
pub struct AnswerBuffer {
    bytes: Vec<u8>,
    limit: usize,
}

impl AnswerBuffer {
    /// An empty body that may grow to `limit` bytes.
    pub fn new(limit: usize) -> Self {
        Self {
            bytes: Vec::new(),
            limit,
        }
    }

    /// Checks an announced length (`Content-Length`) before anything is read.
    pub fn expect_length(&mut self, length: u64) -> Result<(), TooLarge> {
        let length = usize::try_from(length).map_err(|_| TooLarge)?;
        if length > self.limit {
            return Err(TooLarge);
        }
        self.bytes.reserve_exact(length);
        Ok(())
    }

    /// Appends the next chunk read; refuses (keeping nothing of it) one that
    /// would take the body over the limit.
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), TooLarge> {
        if chunk.len() > self.limit - self.bytes.len() {
            return Err(TooLarge);
        }
        self.bytes.extend_from_slice(chunk);
        Ok(())
    }

    /// The whole body.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_up_to_the_limit_is_kept_whole() {
        let mut body = AnswerBuffer::new(10);
        body.expect_length(10).unwrap();
        body.push(b"0123").unwrap();
        body.push(b"").unwrap();
        body.push(b"456789").unwrap();
        assert_eq!(body.into_bytes(), b"0123456789");
    }

    #[test]
    fn one_byte_over_the_limit_is_too_large() {
        let mut body = AnswerBuffer::new(10);
        body.push(b"0123456789").unwrap();
        assert_eq!(body.push(b"x"), Err(TooLarge));
        assert_eq!(AnswerBuffer::new(10).push(&[0; 11]), Err(TooLarge));
    }

    #[test]
    fn an_announced_length_over_the_limit_is_refused_before_reading() {
        let mut body = AnswerBuffer::new(MAX_ANSWER_BYTES);
        assert_eq!(
            body.expect_length(MAX_ANSWER_BYTES as u64 + 1),
            Err(TooLarge)
        );
        assert_eq!(body.expect_length(u64::MAX), Err(TooLarge));
        assert_eq!(body.expect_length(MAX_ANSWER_BYTES as u64), Ok(()));
    }

    #[test]
    fn the_limit_is_one_mebibyte() {
        assert_eq!(MAX_ANSWER_BYTES, 1_048_576);
    }
}
