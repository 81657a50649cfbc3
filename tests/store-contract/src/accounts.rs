//! Fixtures of accounts, e-mailed keys and mail.

use crate::{Store, t0, text};
use application::mail::Email;
use application::ports::{
    AccountRepository, CompletedReset, KeyPurpose, MailedKey, NewAccount, NewEmailKey,
};
use domain::secret::SecretHash;
use domain::{Account, EmailAddress, InstallToken, Timestamp};

/// The install token made from `label`: the first 32 hex digits of its SHA-256.
pub fn install_token(label: &str) -> InstallToken {
    InstallToken::parse(&SecretHash::of(label).as_str()[..InstallToken::LEN])
        .expect("hex digits are install token characters")
}

/// A verified account with a password, created at [`t0`]: its install token
/// is [`install_token`]`("install-{email}")`, its first API token `token` (when given), and its
/// verification key `key-{email}` (72 hours) goes out in the mail
/// `mail-{email}`.
pub fn new_account(email: &str, token: Option<&str>) -> NewAccount {
    NewAccount {
        email: EmailAddress::parse(email).unwrap(),
        name: text("Name"),
        password_hash: Some("$argon2id$fake".into()),
        email_verified: true,
        install_token: install_token(&format!("install-{email}")),
        created_time: t0(),
        first_token: token.map(SecretHash::of),
        verification: Some(MailedKey {
            key: NewEmailKey {
                hash: SecretHash::of(&format!("key-{email}")),
                purpose: KeyPurpose::VerifyEmail,
                expires: t0() + chrono::Duration::hours(72),
            },
            mail: Email {
                id: format!("mail-{email}"),
                to: email.into(),
                subject: "Confirm".into(),
                text: "text".into(),
                html: "html".into(),
            },
            created: t0(),
        }),
    }
}

/// Creates the verified account `{name}@example.com` (install token
/// [`install_token`]`("install-{name}")`), with no token, key or mail.
pub async fn account(store: &impl Store, name: &str) -> Account {
    AccountRepository::create(
        store,
        NewAccount {
            email: EmailAddress::parse(&format!("{name}@example.com")).unwrap(),
            name: text(name),
            password_hash: Some("$argon2id$fake".into()),
            email_verified: true,
            install_token: install_token(&format!("install-{name}")),
            created_time: t0(),
            first_token: None,
            verification: None,
        },
        &crate::noted(domain::AuditAction::AccountCreate),
    )
    .await
    .unwrap()
}

/// A mail to ann@example.com with the id `id`.
pub fn mail(id: &str) -> Email {
    Email {
        id: id.into(),
        to: "ann@example.com".into(),
        subject: format!("Subject {id}"),
        text: format!("text {id}"),
        html: format!("<p>{id}</p>"),
    }
}

/// The key `key`, made at `at` and lasting `lifetime`, with its mail `mail-{key}`.
pub fn mailed(
    key: &str,
    purpose: KeyPurpose,
    lifetime: chrono::Duration,
    at: Timestamp,
) -> MailedKey {
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

/// Creates ann@example.com unverified and without a password, its
/// verification key `verify` (72 hours) queued in the mail `mail-verify` at [`t0`].
pub async fn unverified(store: &impl Store) -> Account {
    AccountRepository::create(
        store,
        NewAccount {
            email: EmailAddress::parse("ann@example.com").unwrap(),
            name: text(""),
            password_hash: None,
            email_verified: false,
            install_token: install_token("i"),
            created_time: t0(),
            first_token: None,
            verification: Some(mailed(
                "verify",
                KeyPurpose::VerifyEmail,
                chrono::Duration::hours(72),
                t0(),
            )),
        },
        &crate::noted(domain::AuditAction::AccountCreate),
    )
    .await
    .unwrap()
}

/// Stores a 24-hour reset key for the account, made at `at`, with its mail `mail-{key}`.
pub async fn store_reset_key(store: &impl Store, account: &Account, key: &str, at: Timestamp) {
    let reset = mailed(
        key,
        KeyPurpose::ResetPassword,
        chrono::Duration::hours(24),
        at,
    );
    store.store(account.id, reset).await.unwrap();
}

/// A reset completed at `at` with the password hash `hash`; the new install
/// token is [`install_token`]`(hash)`.
pub fn completed(at: Timestamp, hash: &str) -> CompletedReset {
    CompletedReset {
        now: at,
        password_hash: hash.into(),
        install_token: install_token(hash),
    }
}

/// The account as stored now.
pub async fn reload(store: &impl Store, account: &Account) -> Account {
    store.find_by_email(&account.email).await.unwrap().unwrap()
}
