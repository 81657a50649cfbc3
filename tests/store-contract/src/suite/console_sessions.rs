//! Console sessions: found by the hash of their secret while not idle too
//! long, marked used only now and then, ended one by one, all at once, or
//! when idle.

use crate::{Store, account, minutes, new_account, t0};
use application::ports::AccountRepository;
use chrono::Duration;
use domain::secret::SecretHash;
use domain::{Account, AccountId, Timestamp};

/// Opens the session `secret` of `owner`, last used `at`.
async fn open(store: &impl Store, owner: AccountId, secret: &str, at: Timestamp) {
    store
        .open_session(owner, &SecretHash::of(secret), at)
        .await
        .unwrap();
}

/// The account of the session `secret` if it was last used after
/// `idle_after`, without marking it used.
async fn peek(store: &impl Store, secret: &str, idle_after: Timestamp) -> Option<Account> {
    // Nothing found is last used before `idle_after`: nothing is touched.
    let (touch_before, now) = (idle_after, idle_after);
    store
        .session_account(&SecretHash::of(secret), idle_after, touch_before, now)
        .await
        .unwrap()
}

/// Whether the session `secret` was last used after `idle_after`.
async fn alive(store: &impl Store, secret: &str, idle_after: Timestamp) -> bool {
    peek(store, secret, idle_after).await.is_some()
}

/// A session finds its whole account, as its token does; no other secret finds it.
pub async fn an_open_session_finds_its_account(store: impl Store) {
    let ann = AccountRepository::create(
        &store,
        new_account("ann@example.com", Some("tok")),
        &crate::noted(domain::AuditAction::AccountCreate),
    )
    .await
    .unwrap();
    let bob = account(&store, "bob").await;
    open(&store, ann.id, "ann-session", t0()).await;
    open(&store, bob.id, "bob-session", t0()).await;

    let now = t0() + minutes(1);
    let found = store
        .session_account(
            &SecretHash::of("ann-session"),
            now - minutes(30),
            now - minutes(5),
            now,
        )
        .await
        .unwrap();
    let by_token = store.account_for(&SecretHash::of("tok")).await.unwrap();
    assert_eq!(found, Some(ann.clone()));
    assert_eq!(found, by_token);
    assert_eq!(
        peek(&store, "bob-session", t0() - minutes(1)).await,
        Some(bob)
    );
    assert_eq!(peek(&store, "tok", t0() - minutes(1)).await, None);
    assert_eq!(peek(&store, "unknown", t0() - minutes(1)).await, None);
}

/// A session last used at or before `idle_after` is expired.
pub async fn a_session_last_used_at_or_before_idle_after_is_expired(store: impl Store) {
    let ann = account(&store, "ann").await;
    open(&store, ann.id, "s", t0()).await;

    assert!(alive(&store, "s", t0() - Duration::seconds(1)).await);
    assert!(
        !alive(&store, "s", t0()).await,
        "expired at the very second"
    );
    assert!(!alive(&store, "s", t0() + minutes(1)).await);
    // Still there: an expired lookup touched nothing.
    assert!(alive(&store, "s", t0() - Duration::seconds(1)).await);
}

/// A lookup marks the session used `now` only when its last use is before
/// `touch_before`, and never marks an expired one.
pub async fn a_session_is_marked_used_only_when_its_last_use_is_older_than_touch_before(
    store: impl Store,
) {
    let ann = account(&store, "ann").await;
    open(&store, ann.id, "s", t0()).await;
    let lookup = |now: Timestamp, touch_before: Timestamp, idle_after: Timestamp| {
        let store = store.clone();
        async move {
            store
                .session_account(&SecretHash::of("s"), idle_after, touch_before, now)
                .await
                .unwrap()
        }
    };

    // Last used t0, which is not before t0: not marked.
    let now = t0() + minutes(3);
    assert!(lookup(now, t0(), now - minutes(30)).await.is_some());
    assert!(!alive(&store, "s", t0()).await, "marked used too soon");

    // Last used t0, before t0 + 1 min: marked used at t0 + 6 min.
    let now = t0() + minutes(6);
    assert!(
        lookup(now, t0() + minutes(1), now - minutes(30))
            .await
            .is_some()
    );
    assert!(alive(&store, "s", now - Duration::seconds(1)).await);
    assert!(!alive(&store, "s", now).await, "marked used later than now");

    // An expired lookup marks nothing, even with touch_before far ahead.
    let later = t0() + minutes(60);
    assert!(lookup(later, later, later - minutes(1)).await.is_none());
    assert!(alive(&store, "s", now - Duration::seconds(1)).await);
    assert!(
        !alive(&store, "s", now).await,
        "an expired session was marked used"
    );
}

/// Closing one session leaves the account's others, and others' sessions.
pub async fn closing_a_session_leaves_the_others(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    open(&store, ann.id, "ann-1", t0()).await;
    open(&store, ann.id, "ann-2", t0()).await;
    open(&store, bob.id, "bob-1", t0()).await;

    store.close_session(&SecretHash::of("ann-1")).await.unwrap();
    let idle_after = t0() - minutes(1);
    assert!(!alive(&store, "ann-1", idle_after).await);
    assert!(alive(&store, "ann-2", idle_after).await);
    assert!(alive(&store, "bob-1", idle_after).await);
    // Closing an unknown or closed session is no error.
    store.close_session(&SecretHash::of("ann-1")).await.unwrap();
}

/// Closing an account's sessions ends every one of them, and only them.
pub async fn closing_every_session_of_an_account_leaves_other_accounts(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    open(&store, ann.id, "ann-1", t0()).await;
    open(&store, ann.id, "ann-2", t0() + minutes(1)).await;
    open(&store, bob.id, "bob-1", t0()).await;

    store.close_sessions(ann.id).await.unwrap();
    let idle_after = t0() - minutes(1);
    assert!(!alive(&store, "ann-1", idle_after).await);
    assert!(!alive(&store, "ann-2", idle_after).await);
    assert!(alive(&store, "bob-1", idle_after).await);
}

/// Purging forgets the sessions last used before the cut, and only them.
pub async fn purging_forgets_sessions_idle_since_before_the_cut(store: impl Store) {
    let ann = account(&store, "ann").await;
    open(&store, ann.id, "old", t0()).await;
    open(&store, ann.id, "at-cut", t0() + minutes(10)).await;
    open(&store, ann.id, "new", t0() + minutes(20)).await;

    store.purge_sessions(t0() + minutes(10)).await.unwrap();
    let long_ago = t0() - Duration::days(1);
    assert!(!alive(&store, "old", long_ago).await);
    assert!(alive(&store, "at-cut", long_ago).await);
    assert!(alive(&store, "new", long_ago).await);
}
