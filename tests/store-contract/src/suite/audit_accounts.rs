//! The audited changes to accounts and their sign-ins (docs/audit.md):
//! each writes exactly one entry, in its owner's log, when its change
//! happens, and none when it does not.

use crate::{
    Store, account, completed, new_account, note_on, origin, store_reset_key, t0, written_by,
};
use application::ports::AccountRepository;
use domain::secret::SecretHash;
use domain::{Account, AuditAction, AuditEntry, AuditNote, AuditTarget};

/// A note of `action` on `account`.
fn on(account: &Account, action: AuditAction) -> AuditNote {
    note_on(action, AuditTarget::account(&account.email))
}

/// The one entry written, which must be `note` sealed.
fn only(entries: &[AuditEntry], note: &AuditNote) -> AuditEntry {
    assert_eq!(entries.len(), 1, "exactly one entry: {entries:?}");
    let entry = entries[0].clone();
    assert_eq!(entry.action, note.action.as_str());
    assert_eq!(entry.target, note.target.as_str());
    assert_eq!(entry.actor_label, note.origin.actor.label());
    entry
}

/// Whether the newest entry of `owner`'s log is `entry`.
async fn shown_to(store: &impl Store, owner: &Account, entry: &AuditEntry) -> bool {
    let page = store
        .audit_page(owner.id, &Default::default(), crate::all())
        .await
        .unwrap();
    page.entries.first() == Some(entry)
}

/// Creating an account writes its entry, in the new account's log; a
/// duplicate address writes none.
pub async fn an_account_created_is_recorded_once(store: impl Store) {
    let first = account(&store, "ann").await;
    let again = new_account("ANN@example.com", None);
    let note = on(&first, AuditAction::AccountRegister);
    let (outcome, written) =
        written_by(&store, AccountRepository::create(&store, again, &note)).await;
    assert!(outcome.is_err());
    assert!(written.is_empty());
    let fresh = new_account("bob@example.com", Some("t"));
    let email = fresh.email.clone();
    let note = note_on(AuditAction::AccountRegister, AuditTarget::account(&email));
    let (bob, written) = written_by(&store, AccountRepository::create(&store, fresh, &note)).await;
    let bob = bob.unwrap();
    let entry = only(&written, &note);
    assert!(shown_to(&store, &bob, &entry).await);
    assert!(!shown_to(&store, &first, &entry).await);
}

/// A rename is recorded only when the name was another; password changes
/// and install token rotations always, when given a note.
pub async fn profile_changes_are_recorded_when_they_change_something(store: impl Store) {
    let ann = account(&store, "ann").await;
    let note = on(&ann, AuditAction::ProfileUpdate);
    let same = ann.name.clone();
    let (_, written) = written_by(&store, store.update_name(ann.id, &same, &note)).await;
    assert!(written.is_empty(), "the same name changes nothing");
    let other = crate::text("Ann B.");
    let (renamed, written) = written_by(&store, store.update_name(ann.id, &other, &note)).await;
    assert_eq!(renamed.unwrap().name, other);
    only(&written, &note);

    let note = on(&ann, AuditAction::PasswordChange);
    let (_, written) = written_by(&store, store.set_password(ann.id, "h1", Some(&note))).await;
    let entry = only(&written, &note);
    assert!(shown_to(&store, &ann, &entry).await);
    let (_, written) = written_by(&store, store.set_password(ann.id, "h2", None)).await;
    assert!(written.is_empty(), "no note, no entry");

    let note = on(&ann, AuditAction::InstallTokenRotate);
    let token = crate::install_token("rotated");
    let rotate = store.replace_install_token(ann.id, &token, &note);
    let (_, written) = written_by(&store, rotate).await;
    only(&written, &note);
}

/// Issuing a token and revoking one or all are recorded when given a note;
/// revoking a token that does not exist writes nothing, and a revoked
/// token's entry goes to its account's log.
pub async fn sign_ins_and_outs_are_recorded_when_they_happen(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    let (a, b) = (SecretHash::of("ann-token"), SecretHash::of("bob-token"));
    let login = on(&ann, AuditAction::AuthLogin);
    let (_, written) = written_by(&store, store.issue(ann.id, &a, t0(), Some(&login))).await;
    only(&written, &login);
    let (_, written) = written_by(&store, store.issue(bob.id, &b, t0(), None)).await;
    assert!(written.is_empty());

    let logout = on(&bob, AuditAction::AuthLogout);
    let unknown = SecretHash::of("nobody's");
    let (_, written) = written_by(&store, store.revoke(&unknown, Some(&logout))).await;
    assert!(written.is_empty(), "no such token");
    let (_, written) = written_by(&store, store.revoke(&b, Some(&logout))).await;
    let entry = only(&written, &logout);
    assert!(shown_to(&store, &bob, &entry).await);
    assert!(!shown_to(&store, &ann, &entry).await);
    let (_, written) = written_by(&store, store.revoke(&b, Some(&logout))).await;
    assert!(written.is_empty(), "already revoked");

    let all = on(&ann, AuditAction::AuthLogoutAll);
    let (_, written) = written_by(&store, store.revoke_all(ann.id, Some(&all))).await;
    only(&written, &all);
    assert!(store.account_for(&a).await.unwrap().is_none());
    let (_, written) = written_by(&store, store.revoke_all(ann.id, None)).await;
    assert!(written.is_empty());
}

/// A completed reset is recorded once; a key already used, or unknown,
/// writes nothing.
pub async fn a_completed_reset_is_recorded_once(store: impl Store) {
    let ann = account(&store, "ann").await;
    store_reset_key(&store, &ann, "reset", t0()).await;
    let note = AuditNote::new(
        domain::Origin::new(t0(), domain::Actor::anonymous(), origin().ip),
        AuditAction::PasswordReset,
        AuditTarget::account(&ann.email),
    );
    let key = SecretHash::of("reset");
    let reset = completed(t0(), "new-hash");
    let (done, written) = written_by(&store, store.complete_reset(&key, &reset, &note)).await;
    assert!(done.unwrap());
    let entry = only(&written, &note);
    assert_eq!(entry.actor_kind, "anonymous");
    assert!(shown_to(&store, &ann, &entry).await);
    let (done, written) = written_by(&store, store.complete_reset(&key, &reset, &note)).await;
    assert!(!done.unwrap());
    assert!(written.is_empty(), "the key was used");
    let unknown = SecretHash::of("never");
    let (done, written) = written_by(&store, store.complete_reset(&unknown, &reset, &note)).await;
    assert!(!done.unwrap());
    assert!(written.is_empty());
}
