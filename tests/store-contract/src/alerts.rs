//! Fixtures of monitors, alerts and webhooks: ids, monitors and webhooks
//! to create, verdicts that open or resolve alerts with their notices, and
//! reading back what they queued (mail in the outbox, deliveries).

use crate::{Store, command_id, mail, minutes, t0};
use application::ports::{
    AlertNotice, AlertRecord, AlertTransition, EventRecord, MonitorVerdict, MonitorWatch,
    NewMonitor, NewWebhook, Window,
};
use domain::{
    AccountId, AfterSeconds, AlertId, AlertState, DeliveryId, EventSet, MonitorId, MonitorKind,
    OfflineRatio, Selector, Serial, TargetUrl, Timestamp, WebhookEvent, WebhookId,
};

/// The monitor id whose bytes spell `label`, as [`command_id`] does.
pub fn monitor_id(label: &str) -> MonitorId {
    MonitorId::parse(command_id(label).as_str()).expect("a canonical UUID")
}

/// The alert id whose bytes spell `label`.
pub fn alert_id(label: &str) -> AlertId {
    AlertId::parse(command_id(label).as_str()).expect("a canonical UUID")
}

/// The webhook id whose bytes spell `label`.
pub fn webhook_id(label: &str) -> WebhookId {
    WebhookId::parse(command_id(label).as_str()).expect("a canonical UUID")
}

/// The delivery id whose bytes spell `label`.
pub fn delivery_id(label: &str) -> DeliveryId {
    DeliveryId::parse(command_id(label).as_str()).expect("a canonical UUID")
}

/// A monitor `label` of `owner` of `kind` over `selector`, waiting `after`
/// seconds, created at [`t0`] (its JSON `{"label": …}`).
pub fn new_monitor(
    owner: AccountId,
    label: &str,
    kind: MonitorKind,
    selector: Selector,
    after: u32,
) -> NewMonitor {
    NewMonitor {
        id: monitor_id(label),
        owner,
        name: crate::text(&format!("monitor {label}")),
        kind,
        selector,
        selector_json: format!("{{\"label\": \"{label}\"}}"),
        after: AfterSeconds::from_stored(after),
        created_time: t0(),
    }
}

/// A fleet monitor's kind with the share `ratio`.
pub fn fleet_kind(ratio: f64) -> MonitorKind {
    MonitorKind::FleetOfflineRatio(OfflineRatio::new(ratio).expect("a ratio"))
}

/// Creates the device monitor `label` of `owner` over every device, waiting
/// 300 s; returns its id.
pub async fn device_monitor(store: &impl Store, owner: AccountId, label: &str) -> MonitorId {
    let monitor = new_monitor(owner, label, MonitorKind::DeviceOffline, Selector::All, 300);
    store
        .create_monitor(&monitor, &crate::noted(domain::AuditAction::MonitorCreate))
        .await
        .unwrap();
    monitor.id
}

/// Creates the webhook `label` of `owner` posting `events` to
/// `https://hooks.example.com/{label}`, created at [`t0`].
pub async fn webhook(
    store: &impl Store,
    owner: AccountId,
    label: &str,
    events: &[WebhookEvent],
) -> WebhookId {
    let hook = NewWebhook {
        id: webhook_id(label),
        owner,
        target: TargetUrl::parse(&format!("https://hooks.example.com/{label}")).unwrap(),
        events: EventSet::new(events.iter().copied()).expect("an event set"),
        secret: format!("secret-of-{label}-0123456789"),
        created_time: t0(),
    };
    store
        .create_webhook(&hook, &crate::noted(domain::AuditAction::WebhookCreate))
        .await
        .unwrap();
    hook.id
}

/// The event `event` at `at`, its data `{"label": …}`.
pub fn event(event: WebhookEvent, label: &str, at: Timestamp) -> EventRecord {
    EventRecord {
        event,
        time: at,
        data: format!("{{\"label\": \"{label}\"}}"),
    }
}

/// Alert `label` of `monitor` for `serial` (`None`: a fleet alert), open
/// since `at`.
pub fn open_alert(
    monitor: &MonitorId,
    label: &str,
    serial: Option<&Serial>,
    at: Timestamp,
) -> AlertRecord {
    AlertRecord {
        id: alert_id(label),
        monitor: monitor.clone(),
        serial: serial.cloned(),
        state: AlertState::Open,
        started_time: at,
        resolved_time: None,
        reason: format!("reason {label}"),
    }
}

/// `alert` told with its mail `mail-{label}` (subject `Alert {word}: …`)
/// and its event at `at`; `notified: false` leaves it untold (snoozed).
pub fn transition(
    alert: AlertRecord,
    word: &str,
    at: Timestamp,
    notified: bool,
) -> AlertTransition {
    let label = format!("{word}-{}", alert.id);
    let event_kind = if word == "opened" {
        WebhookEvent::AlertOpened
    } else {
        WebhookEvent::AlertResolved
    };
    let notice = notified.then(|| {
        let mut mail = mail(&format!("mail-{label}"));
        mail.subject = format!("Alert {word}: {}", alert.reason);
        AlertNotice {
            mail,
            event: event(event_kind, &label, at),
        }
    });
    AlertTransition { alert, notice }
}

/// A verdict of `monitor` of `owner` with nothing in it.
pub fn verdict(monitor: &MonitorId, owner: AccountId) -> MonitorVerdict {
    MonitorVerdict {
        monitor: monitor.clone(),
        owner,
        above_since: None,
        opened: Vec::new(),
        resolved: Vec::new(),
        calm: Vec::new(),
    }
}

/// A verdict opening `alerts` (notified) at `at`.
pub fn opening(
    monitor: &MonitorId,
    owner: AccountId,
    alerts: impl IntoIterator<Item = AlertRecord>,
    at: Timestamp,
) -> MonitorVerdict {
    MonitorVerdict {
        opened: alerts
            .into_iter()
            .map(|alert| transition(alert, "opened", at, true))
            .collect(),
        ..verdict(monitor, owner)
    }
}

/// A verdict resolving `alert` (notified) at `at`.
pub fn resolving(
    monitor: &MonitorId,
    owner: AccountId,
    alert: &AlertRecord,
    at: Timestamp,
) -> MonitorVerdict {
    let resolved = AlertRecord {
        state: AlertState::Resolved,
        resolved_time: Some(at),
        ..alert.clone()
    };
    MonitorVerdict {
        resolved: vec![transition(resolved, "resolved", at, true)],
        ..verdict(monitor, owner)
    }
}

/// Applies `verdict` at `at` with mail windows of a minute; the ids of
/// the alerts that opened and resolved.
pub async fn apply(
    store: &impl Store,
    verdict: &MonitorVerdict,
    at: Timestamp,
) -> (Vec<AlertId>, Vec<AlertId>) {
    let applied = store.apply_verdict(verdict, at, minutes(1)).await.unwrap();
    (applied.opened, applied.resolved)
}

/// The subjects of the mail in the outbox, in the order it is claimed at
/// `at` (each claimed mail is removed).
pub async fn outbox_subjects(store: &impl Store, at: Timestamp) -> Vec<String> {
    let mut subjects = Vec::new();
    while let Some(queued) = store.claim_due(at, at + minutes(1)).await.unwrap() {
        store.remove(&queued.email.id).await.unwrap();
        subjects.push(queued.email.subject);
    }
    subjects
}

/// Every page of the deliveries of `webhook` of `owner`: their events'
/// codes, newest first (`None` when `owner` has no such webhook).
pub async fn delivered_events(
    store: &impl Store,
    owner: AccountId,
    webhook: &WebhookId,
) -> Option<Vec<&'static str>> {
    let page = store
        .list_deliveries(owner, webhook, all())
        .await
        .unwrap()?;
    assert_eq!(page.count, page.deliveries.len() as u64);
    Some(page.deliveries.iter().map(|d| d.event.code()).collect())
}

/// A window holding everything.
pub fn all() -> Window {
    Window {
        limit: 1000,
        offset: 0,
    }
}

/// The watch of monitor `id` at `now`, online after 90 s before it.
pub async fn watch_of(store: &impl Store, id: &MonitorId, now: Timestamp) -> MonitorWatch {
    store
        .watch_monitors(now, now - chrono::Duration::seconds(90))
        .await
        .unwrap()
        .into_iter()
        .find(|watch| watch.monitor.id == *id)
        .expect("the monitor is watched")
}
