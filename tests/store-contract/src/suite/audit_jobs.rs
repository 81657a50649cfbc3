//! The audited changes to jobs, monitors and webhooks (docs/audit.md):
//! each writes exactly one entry, in the owner's log, when its change
//! happens, and none when it does not (a job already finished or not
//! halted, a wave already settled, a monitor or webhook that is not there).

use crate::{
    Store, account, device_monitor, fleet_of, job_id, lapse, minutes, monitor_id, new_job, note_on,
    start_wave, t0, webhook, webhook_id, written_by,
};
use application::ports::{JobChange, Settlement, SettlementNotices};
use domain::audit::Actor;
use domain::{AuditAction, AuditEntry, AuditNote, AuditTarget, Origin, Selector, WebhookEvent};

/// `(action, target, detail)` of each entry.
fn written(entries: &[AuditEntry]) -> Vec<(&str, &str, &str)> {
    entries
        .iter()
        .map(|e| (e.action.as_str(), e.target.as_str(), e.detail.as_str()))
        .collect()
}

/// A job is created, halted by the server, resumed, and cancelled, one
/// entry each; a second cancel, a resume of a running job, a wave settled
/// twice and changes to another account's job write none.
pub async fn job_changes_are_recorded_when_they_happen(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    fleet_of(&store, ann.id, 1, 2).await;
    let job = new_job(
        ann.id,
        "j",
        Selector::All,
        crate::in_waves(Some(1)),
        t0(),
        None,
    );
    let target = AuditTarget::job(&job.id);
    let note = |action| note_on(action, target.clone());
    let t = format!("job:{}", job.id.as_str());
    let create = note(AuditAction::JobCreate);
    let (_, entries) = written_by(&store, store.create_job(&job, t0(), &create)).await;
    assert_eq!(written(&entries), [("job.create", t.as_str(), "{}")]);

    let resume = note(AuditAction::JobResume);
    let (change, entries) =
        written_by(&store, store.resume_job(ann.id, &job.id, t0(), &resume)).await;
    assert_eq!(change.unwrap(), JobChange::Refused);
    assert!(entries.is_empty(), "a running job is not resumed");

    assert!(start_wave(&store, &job.id, 1, "w", 1, t0()).await);
    let at = t0() + lapse();
    let halt = SettlementNotices {
        event: None,
        audit: Some(AuditNote::new(
            Origin::system(at),
            AuditAction::JobHalt,
            target.clone(),
        )),
    };
    let settle = || store.settle_wave(&job.id, 1, Settlement::Halt, at, at - lapse(), &halt);
    let (settled, entries) = written_by(&store, settle()).await;
    assert!(settled.unwrap());
    assert_eq!(written(&entries), [("job.halt", t.as_str(), "{}")]);
    assert_eq!(entries[0].actor_kind, Actor::system().kind().as_str());
    assert_eq!(entries[0].ip, None);
    let (settled, entries) = written_by(&store, settle()).await;
    assert!(!settled.unwrap());
    assert!(entries.is_empty(), "already settled");

    let (change, entries) =
        written_by(&store, store.resume_job(bob.id, &job.id, at, &resume)).await;
    assert_eq!(change.unwrap(), JobChange::Missing);
    assert!(entries.is_empty());
    let (change, entries) =
        written_by(&store, store.resume_job(ann.id, &job.id, at, &resume)).await;
    assert_eq!(change.unwrap(), JobChange::Changed);
    assert_eq!(written(&entries), [("job.resume", t.as_str(), "{}")]);

    let cancel = note(AuditAction::JobCancel);
    let later = at + minutes(1);
    let (change, entries) =
        written_by(&store, store.cancel_job(ann.id, &job.id, later, &cancel)).await;
    assert_eq!(change.unwrap(), JobChange::Changed);
    assert_eq!(written(&entries), [("job.cancel", t.as_str(), "{}")]);
    let (change, entries) =
        written_by(&store, store.cancel_job(ann.id, &job.id, later, &cancel)).await;
    assert_eq!(change.unwrap(), JobChange::Refused);
    assert!(entries.is_empty(), "a finished job is not cancelled again");
    let missing = job_id("missing");
    let (change, entries) =
        written_by(&store, store.cancel_job(ann.id, &missing, later, &cancel)).await;
    assert_eq!(change.unwrap(), JobChange::Missing);
    assert!(entries.is_empty());
}

/// A completed wave without a note writes nothing; with one, its entry.
pub async fn a_job_completing_is_recorded_when_given_its_note(store: impl Store) {
    let ann = account(&store, "ann").await;
    // Without targets a job completes without a wave.
    let id = crate::running_job(&store, ann.id, "j", None).await;
    let at = t0() + lapse();
    let (settled, entries) = written_by(
        &store,
        store.settle_wave(
            &id,
            0,
            Settlement::Complete,
            at,
            at - lapse(),
            &SettlementNotices::default(),
        ),
    )
    .await;
    assert!(settled.unwrap());
    assert!(entries.is_empty(), "no note, no entry");

    let other = crate::running_job(&store, ann.id, "k", None).await;
    let done = AuditNote::new(
        Origin::system(at),
        AuditAction::JobComplete,
        AuditTarget::job(&other),
    );
    let (settled, entries) = written_by(
        &store,
        store.settle_wave(
            &other,
            0,
            Settlement::Complete,
            at,
            at - lapse(),
            &SettlementNotices {
                event: None,
                audit: Some(done.clone()),
            },
        ),
    )
    .await;
    assert!(settled.unwrap());
    let t = format!("job:{}", other.as_str());
    assert_eq!(written(&entries), [("job.complete", t.as_str(), "{}")]);
}

/// Monitors created, snoozed and deleted, webhooks created and deleted,
/// one entry each; a snooze or delete of one that is not the account's, or
/// no longer there, writes none.
pub async fn monitor_and_webhook_changes_are_recorded_when_they_happen(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    let (monitor, entries) = written_by(&store, device_monitor(&store, ann.id, "m")).await;
    assert_eq!(monitor, monitor_id("m"));
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].action, "monitor.create");

    let target = AuditTarget::monitor(&monitor);
    let t = format!("monitor:{}", monitor.as_str());
    let until = t0() + minutes(60);
    let snooze = AuditNote::with_detail(
        crate::origin(),
        AuditAction::MonitorSnooze,
        target.clone(),
        domain::AuditDetail::Until(Some(until)),
    );
    let snoozing = |owner| store.snooze_monitor(owner, &monitor, Some(until), &snooze);
    let (found, entries) = written_by(&store, snoozing(bob.id)).await;
    assert!(found.unwrap().is_none());
    assert!(entries.is_empty(), "not bob's monitor");
    let (found, entries) = written_by(&store, snoozing(ann.id)).await;
    assert_eq!(found.unwrap().unwrap().snoozed_until, Some(until));
    let until_text = r#"{"until":"2026-05-01T09:00:00"}"#;
    assert_eq!(
        written(&entries),
        [("monitor.snooze", t.as_str(), until_text)]
    );

    let delete = note_on(AuditAction::MonitorDelete, target);
    let deleting = |owner| store.delete_monitor(owner, &monitor, &delete);
    let (gone, entries) = written_by(&store, deleting(bob.id)).await;
    assert!(!gone.unwrap());
    assert!(entries.is_empty());
    let (gone, entries) = written_by(&store, deleting(ann.id)).await;
    assert!(gone.unwrap());
    assert_eq!(written(&entries), [("monitor.delete", t.as_str(), "{}")]);
    let (gone, entries) = written_by(&store, deleting(ann.id)).await;
    assert!(!gone.unwrap());
    assert!(entries.is_empty(), "already deleted");
    let (found, entries) = written_by(&store, snoozing(ann.id)).await;
    assert!(found.unwrap().is_none());
    assert!(entries.is_empty(), "no such monitor any more");

    let events = [WebhookEvent::JobHalted];
    let (hook, entries) = written_by(&store, webhook(&store, ann.id, "h", &events)).await;
    assert_eq!(hook, webhook_id("h"));
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].action, "webhook.create");
    let t = format!("webhook:{}", hook.as_str());
    let delete = note_on(AuditAction::WebhookDelete, AuditTarget::webhook(&hook));
    let deleting = |owner| store.delete_webhook(owner, &hook, &delete);
    let (gone, entries) = written_by(&store, deleting(bob.id)).await;
    assert!(!gone.unwrap());
    assert!(entries.is_empty());
    let (gone, entries) = written_by(&store, deleting(ann.id)).await;
    assert!(gone.unwrap());
    assert_eq!(written(&entries), [("webhook.delete", t.as_str(), "{}")]);
    let (gone, entries) = written_by(&store, deleting(ann.id)).await;
    assert!(!gone.unwrap());
    assert!(entries.is_empty());
    let page = store
        .audit_page(bob.id, &Default::default(), crate::all())
        .await
        .unwrap();
    assert_eq!(page.count, 1, "bob's log holds his account's creation only");
}
