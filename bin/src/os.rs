//! What `devmgr` asks of the operating system for itself: private files and
//! enough file descriptors.

use rustix::fs::Mode;
use rustix::process::{Resource, Rlimit, getrlimit, setrlimit, umask};

/// The open-file limit used when the hard limit is "unlimited".
const UNLIMITED_FALLBACK: u64 = 1 << 20;

/// Files devmgr creates from now on are readable by its own user only (0600,
/// folders 0700): the database holds install tokens, mail files hold live
/// reset links.
pub fn create_files_privately() {
    umask(Mode::from_bits_truncate(0o077));
}

/// Raises the soft open-file limit to the hard limit and returns the limit
/// now in force (each connection and each database file takes one).
pub fn raise_open_file_limit() -> u64 {
    let limit = getrlimit(Resource::Nofile);
    let hard = limit.maximum.unwrap_or(UNLIMITED_FALLBACK);
    if limit.current.is_some_and(|soft| soft >= hard) {
        return hard;
    }
    let raised = Rlimit {
        current: Some(hard),
        maximum: limit.maximum,
    };
    match setrlimit(Resource::Nofile, raised) {
        Ok(()) => hard,
        Err(error) => {
            let soft = limit.current.unwrap_or(hard);
            tracing::warn!(%error, soft, hard, "cannot raise the open-file limit");
            soft
        }
    }
}

/// The default of `--max-connections`: 90 % of the open-file limit, leaving
/// room for the database, mail and the listener.
pub fn default_max_connections(open_file_limit: u64) -> usize {
    usize::try_from(open_file_limit / 10 * 9)
        .unwrap_or(usize::MAX)
        .max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_soft_limit_is_raised_to_the_hard_one() {
        let limit = raise_open_file_limit();
        let now = getrlimit(Resource::Nofile);
        assert_eq!(now.current, Some(limit));
        assert_eq!(now.maximum.unwrap_or(UNLIMITED_FALLBACK), limit);
    }

    #[test]
    fn ninety_percent_of_the_limit_may_be_connections() {
        assert_eq!(default_max_connections(1024), 918);
        assert_eq!(default_max_connections(1_048_576), 943_713);
        assert_eq!(default_max_connections(0), 1);
    }
}
