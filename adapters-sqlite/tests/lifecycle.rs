//! E-mailed keys, the mail outbox and failed-login locks against a real
//! SQLite file.

use adapters_sqlite::SqliteStore;
use application::mail::Email;
use application::ports::{
    AccountRepository, EmailKeyRepository, KeyPurpose, LockoutPolicy, LoginAttemptRepository,
    MailedKey, NewAccount, NewEmailKey, Outbox,
};
use chrono::{Duration, TimeZone, Utc};
use domain::secret::SecretHash;
use domain::{Account, EmailAddress, Timestamp};

fn t0() -> Timestamp {
    Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap()
}

struct Fixture {
    _dir: tempfile::TempDir,
    store: SqliteStore,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("db.sqlite")).unwrap();
    store.migrate().unwrap();
    Fixture { _dir: dir, store }
}

fn mail(id: &str) -> Email {
    Email {
        id: id.into(),
        to: "ann@example.com".into(),
        subject: format!("Subject {id}"),
        text: format!("text {id}"),
        html: format!("<p>{id}</p>"),
    }
}

fn mailed(key: &str, purpose: KeyPurpose, lifetime: Duration, at: Timestamp) -> MailedKey {
    MailedKey {
        key: NewEmailKey {
            hash: SecretHash::of(key),
            purpose,
            expires: at + lifetime,
        },
        mail: mail(&format!("mail-{key}")),
        created: at,
    }
}

/// An unverified account without a password, its verification mail queued.
async fn unverified(store: &SqliteStore) -> Account {
    AccountRepository::create(
        store,
        NewAccount {
            email: EmailAddress::parse("ann@example.com").unwrap(),
            name: String::new(),
            password_hash: None,
            email_verified: false,
            install_token: "i".repeat(32),
            created_time: t0(),
            first_token: None,
            verification: Some(mailed(
                "verify",
                KeyPurpose::VerifyEmail,
                Duration::hours(72),
                t0(),
            )),
        },
    )
    .await
    .unwrap()
}

/// Stores a 24-hour reset key for the account, made at `at`.
async fn store_reset_key(store: &SqliteStore, account: &Account, key: &str, at: Timestamp) {
    let reset = mailed(key, KeyPurpose::ResetPassword, Duration::hours(24), at);
    store.store(account.id, reset).await.unwrap();
}

async fn reload(store: &SqliteStore, account: &Account) -> Account {
    store.find_by_email(&account.email).await.unwrap().unwrap()
}

#[tokio::test]
async fn a_verification_key_works_until_it_expires_even_when_used() {
    let f = fixture();
    let account = unverified(&f.store).await;
    let key = SecretHash::of("verify");
    assert!(f.store.verify_email(&key, t0()).await.unwrap());
    assert!(reload(&f.store, &account).await.email_verified);
    assert!(
        f.store
            .verify_email(&key, t0() + Duration::hours(71))
            .await
            .unwrap()
    );
    assert!(
        !f.store
            .verify_email(&key, t0() + Duration::hours(72))
            .await
            .unwrap()
    );
    assert!(
        !f.store
            .verify_email(&SecretHash::of("other"), t0())
            .await
            .unwrap()
    );
}

#[tokio::test]
async fn keys_only_work_for_their_purpose() {
    let f = fixture();
    let account = unverified(&f.store).await;
    store_reset_key(&f.store, &account, "reset", t0()).await;
    assert!(
        !f.store
            .verify_email(&SecretHash::of("reset"), t0())
            .await
            .unwrap()
    );
    assert!(
        f.store
            .reset_account(&SecretHash::of("verify"), t0())
            .await
            .unwrap()
            .is_none()
    );
    assert!(!reload(&f.store, &account).await.email_verified);
}

#[tokio::test]
async fn a_reset_sets_the_password_verifies_and_ends_every_reset_key() {
    let f = fixture();
    let account = unverified(&f.store).await;
    for key in ["reset-1", "reset-2"] {
        store_reset_key(&f.store, &account, key, t0()).await;
    }
    let first = SecretHash::of("reset-1");
    let opened = f.store.reset_account(&first, t0()).await.unwrap();
    assert_eq!(opened.map(|a| a.id), Some(account.id));
    assert!(
        f.store
            .complete_reset(&first, t0(), "$argon2id$new")
            .await
            .unwrap()
    );
    let after = reload(&f.store, &account).await;
    assert_eq!(after.password_hash.as_deref(), Some("$argon2id$new"));
    assert!(after.email_verified);
    for key in ["reset-1", "reset-2"] {
        let key = SecretHash::of(key);
        assert!(f.store.reset_account(&key, t0()).await.unwrap().is_none());
        assert!(!f.store.complete_reset(&key, t0(), "$x").await.unwrap());
    }
}

#[tokio::test]
async fn an_expired_reset_key_opens_nothing() {
    let f = fixture();
    let account = unverified(&f.store).await;
    store_reset_key(&f.store, &account, "reset", t0()).await;
    let key = SecretHash::of("reset");
    let late = t0() + Duration::hours(24);
    assert!(f.store.reset_account(&key, late).await.unwrap().is_none());
    assert!(!f.store.complete_reset(&key, late, "$x").await.unwrap());
    assert!(reload(&f.store, &account).await.password_hash.is_none());
}

#[tokio::test]
async fn mail_is_queued_with_its_change_and_claimed_once_per_lease() {
    let f = fixture();
    unverified(&f.store).await;
    assert_eq!(f.store.next_due().await.unwrap(), Some(t0()));
    let lease = t0() + Duration::minutes(2);
    let claimed = f.store.claim_due(t0(), lease).await.unwrap().unwrap();
    assert_eq!(claimed.email, mail("mail-verify"));
    assert_eq!((claimed.attempts, claimed.queued_time), (0, t0()));
    // Hidden from other workers until the lease ends, then handed out again.
    assert!(f.store.claim_due(t0(), lease).await.unwrap().is_none());
    assert_eq!(f.store.next_due().await.unwrap(), Some(lease));
    let again = f.store.claim_due(lease, lease + Duration::minutes(2)).await;
    assert_eq!(
        again.unwrap().map(|q| q.email.id),
        Some("mail-verify".into())
    );
}

#[tokio::test]
async fn failed_mail_waits_for_its_retry_and_delivered_mail_is_gone() {
    let f = fixture();
    let account = unverified(&f.store).await;
    store_reset_key(&f.store, &account, "reset", t0() + Duration::seconds(1)).await;
    let lease = t0() + Duration::minutes(2);
    let first = f.store.claim_due(t0(), lease).await.unwrap().unwrap();
    assert_eq!(first.email.id, "mail-verify");
    let retry = t0() + Duration::seconds(30);
    f.store
        .retry_at(&first.email.id, 1, retry, "connection refused")
        .await
        .unwrap();
    let now = t0() + Duration::seconds(5);
    let second = f.store.claim_due(now, lease).await.unwrap().unwrap();
    assert_eq!(second.email.id, "mail-reset");
    f.store.remove(&second.email.id).await.unwrap();
    assert!(f.store.claim_due(now, lease).await.unwrap().is_none());
    let retried = f.store.claim_due(retry, lease).await.unwrap().unwrap();
    assert_eq!(
        (retried.email.id.as_str(), retried.attempts),
        ("mail-verify", 1)
    );
    f.store.remove("mail-verify").await.unwrap();
    assert_eq!(f.store.next_due().await.unwrap(), None);
}

#[tokio::test]
async fn committing_mail_wakes_the_worker() {
    let f = fixture();
    let waiting = {
        let store = f.store.clone();
        tokio::spawn(async move {
            store
                .wait_for_mail(std::time::Duration::from_secs(30))
                .await
        })
    };
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    unverified(&f.store).await;
    tokio::time::timeout(std::time::Duration::from_secs(5), waiting)
        .await
        .expect("the waiting worker was not woken")
        .unwrap();
}

const POLICY: LockoutPolicy = LockoutPolicy {
    max_failures: 3,
    period: Duration::minutes(15),
};

#[tokio::test]
async fn the_last_allowed_failure_locks_the_address_for_the_period() {
    let f = fixture();
    let address = "ann@example.com";
    for n in 0..2 {
        let at = t0() + Duration::seconds(n);
        assert_eq!(
            f.store.record_failure(address, at, POLICY).await.unwrap(),
            None
        );
        assert_eq!(f.store.locked_until(address, at).await.unwrap(), None);
    }
    let third = t0() + Duration::seconds(2);
    let until = third + Duration::minutes(15);
    assert_eq!(
        f.store
            .record_failure(address, third, POLICY)
            .await
            .unwrap(),
        Some(until)
    );
    assert_eq!(
        f.store.locked_until(address, third).await.unwrap(),
        Some(until)
    );
    assert_eq!(
        f.store
            .locked_until("bob@example.com", third)
            .await
            .unwrap(),
        None
    );
    assert_eq!(f.store.locked_until(address, until).await.unwrap(), None);
    // After the lock, counting starts again from zero.
    assert_eq!(
        f.store
            .record_failure(address, until, POLICY)
            .await
            .unwrap(),
        None
    );
}

#[tokio::test]
async fn old_failures_are_forgotten_and_success_clears_them() {
    let f = fixture();
    let address = "ann@example.com";
    f.store.record_failure(address, t0(), POLICY).await.unwrap();
    f.store.record_failure(address, t0(), POLICY).await.unwrap();
    // The window has passed: this failure is the first of a new one.
    let later = t0() + Duration::minutes(15);
    assert_eq!(
        f.store
            .record_failure(address, later, POLICY)
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        f.store
            .record_failure(address, later, POLICY)
            .await
            .unwrap(),
        None
    );
    f.store.clear(address).await.unwrap();
    assert_eq!(
        f.store
            .record_failure(address, later, POLICY)
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        f.store
            .record_failure(address, later, POLICY)
            .await
            .unwrap(),
        None
    );
    assert!(
        f.store
            .record_failure(address, later, POLICY)
            .await
            .unwrap()
            .is_some()
    );
    // Purging keeps a lock in force and forgets it once over.
    let until = later + Duration::minutes(15);
    f.store.purge(later, POLICY.period).await.unwrap();
    assert_eq!(
        f.store.locked_until(address, later).await.unwrap(),
        Some(until)
    );
    f.store.purge(until, POLICY.period).await.unwrap();
    assert_eq!(f.store.locked_until(address, later).await.unwrap(), None);
}
