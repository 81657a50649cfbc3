//! Unit tests of [`super`], over mocked ports.

use crate::use_cases::test_support::{Harness, now};
use mockall::predicate::eq;

#[tokio::test]
async fn keys_expired_now_sessions_idle_14_days_and_commands_older_than_30_days_go() {
    let mut h = Harness::new();
    h.console_sessions
        .expect_purge_sessions()
        .with(eq(now() - chrono::Duration::days(14)))
        .times(1)
        .returning(|_| Ok(()));
    h.keys
        .expect_purge_keys()
        .with(eq(now()))
        .times(1)
        .returning(|_| Ok(()));
    h.commands
        .expect_purge_commands()
        .with(eq(now() - chrono::Duration::days(30)))
        .times(1)
        .returning(|_| Ok(()));
    h.app().housekeeping.purge_expired().await.unwrap();
}
