//! The fixtures of the alert races: two instances on one scratch database
//! with an account and its webhooks, monitors made round by round, and the
//! verdicts each racer would record.

use adapters_postgres::PgStore;
use application::mail::Email;
use application::ports::{
    AccountRepository, AlertNotice, AlertRecord, AlertTransition, EventRecord, MonitorRepository,
    MonitorVerdict, NewMonitor, NewWebhook, Outbox, WebhookRepository, Window,
};
use chrono::Duration;
use domain::{
    AccountId, AfterSeconds, AlertId, AlertState, AuditAction, EventSet, MonitorId, MonitorKind,
    Selector, TargetUrl, Timestamp, WebhookEvent, WebhookId,
};
use store_contract::{fleet_serial, new_account, noted, t0, text};

/// Rounds of each race: each on a new monitor, an hour after the last.
pub const ROUNDS: u8 = 12;
/// The alert mail windows of these tests.
pub const MAIL_WINDOW: Duration = Duration::seconds(60);

/// Two instances on one fresh, migrated database, an account on it with
/// three webhooks (every event, `alert.opened` alone, `job.completed`
/// alone), and the database (dropped last).
pub struct Racing {
    pub a: PgStore,
    pub b: PgStore,
    pub ann: AccountId,
    /// Every event, `alert.opened`, `job.completed`.
    pub webhooks: [WebhookId; 3],
    _database: scratch_postgres::TestDatabase,
}

pub async fn racing() -> Racing {
    let database = tokio::task::spawn_blocking(scratch_postgres::TestDatabase::create)
        .await
        .expect("creating a PostgreSQL database panicked");
    let a = PgStore::connect(database.url()).await.unwrap();
    a.migrate().await.unwrap();
    let b = PgStore::connect(database.url()).await.unwrap();
    let ann = AccountRepository::create(
        &a,
        new_account("ann@example.com", None),
        &noted(AuditAction::AccountCreate),
    )
    .await
    .unwrap()
    .id;
    let sets = [
        EventSet::ALL,
        EventSet::new([WebhookEvent::AlertOpened]).unwrap(),
        EventSet::new([WebhookEvent::JobCompleted]).unwrap(),
    ];
    let webhooks = [0u8, 1, 2].map(|n| {
        WebhookId::from_random_bytes([0xee, n, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14])
    });
    for (id, events) in webhooks.iter().zip(sets) {
        let webhook = NewWebhook {
            id: id.clone(),
            owner: ann,
            target: TargetUrl::parse("https://hooks.example.com/devmgr").unwrap(),
            events,
            secret: "a secret of twenty characters".to_owned(),
            created_time: t0(),
        };
        a.create_webhook(&webhook, &noted(AuditAction::WebhookCreate))
            .await
            .unwrap();
    }
    let racing = Racing {
        a,
        b,
        ann,
        webhooks,
        _database: database,
    };
    // The account's confirmation.
    assert_eq!(racing.drain_mail().await.len(), 1);
    racing
}

impl Racing {
    /// The instance racer `i` uses: the two in turn.
    pub fn instance(&self, i: usize) -> PgStore {
        if i.is_multiple_of(2) {
            self.a.clone()
        } else {
            self.b.clone()
        }
    }

    /// A new device monitor of every device, for round `round`.
    pub async fn monitor(&self, round: u8) -> MonitorId {
        let id = MonitorId::from_random_bytes([
            0xa0, round, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
        ]);
        let monitor = NewMonitor {
            id: id.clone(),
            owner: self.ann,
            name: text(&format!("Round {round}")),
            kind: MonitorKind::DeviceOffline,
            selector: Selector::All,
            selector_json: r#"{"all": true}"#.to_owned(),
            after: AfterSeconds::from_stored(60),
            created_time: t0(),
        };
        self.a
            .create_monitor(&monitor, &noted(AuditAction::MonitorCreate))
            .await
            .unwrap();
        id
    }

    /// How many deliveries each webhook has.
    pub async fn deliveries(&self) -> [u64; 3] {
        let mut counts = [0; 3];
        for (count, id) in counts.iter_mut().zip(&self.webhooks) {
            let page = self.a.list_deliveries(self.ann, id, all()).await.unwrap();
            *count = page.expect("the webhook exists").count;
        }
        counts
    }

    /// The subjects of the mail queued so far, which leaves the outbox.
    pub async fn drain_mail(&self) -> Vec<String> {
        let far = t0() + Duration::days(1000);
        let mut subjects = Vec::new();
        while let Some(queued) = self.a.claim_due(far, far).await.unwrap() {
            subjects.push(queued.email.subject.clone());
            self.a.remove(&queued.email.id).await.unwrap();
        }
        subjects.sort();
        subjects
    }
}

pub fn all() -> Window {
    Window {
        limit: 1000,
        offset: 0,
    }
}

/// The hour of round `round`.
pub fn hour(round: u8) -> Timestamp {
    t0() + Duration::hours(i64::from(round))
}

/// An alert's change with its notice; `racer` makes its ids its own, as
/// each instance's engine mints its own.
pub fn transition(
    alert: AlertRecord,
    event: WebhookEvent,
    racer: usize,
    at: Timestamp,
) -> AlertTransition {
    let verb = if event == WebhookEvent::AlertOpened {
        "opened"
    } else {
        "resolved"
    };
    AlertTransition {
        notice: Some(AlertNotice {
            mail: Email {
                id: format!("{}{racer:02x}", alert.id.as_str().replace('-', "")),
                to: "ann@example.com".to_owned(),
                subject: format!("Alert {verb}: {}", alert.id),
                text: alert.reason.clone(),
                html: String::new(),
            },
            event: EventRecord {
                event,
                time: at,
                data: format!(r#"{{"id": "{}"}}"#, alert.id),
            },
        }),
        alert,
    }
}

/// Racer `racer`'s opening of alerts by `monitor` for devices `devices` at `at`.
pub fn opening(
    owner: AccountId,
    monitor: &MonitorId,
    devices: &[u16],
    racer: usize,
    at: Timestamp,
) -> MonitorVerdict {
    let opened = devices
        .iter()
        .map(|&n| {
            let [high, low] = n.to_be_bytes();
            let racer_byte = u8::try_from(racer).unwrap();
            let id = AlertId::from_random_bytes([
                0xa1,
                racer_byte,
                high,
                low,
                at.timestamp().to_be_bytes()[7],
                1,
                2,
                3,
                4,
                5,
                6,
                7,
                8,
                9,
                10,
                11,
            ]);
            let alert = AlertRecord {
                id,
                monitor: monitor.clone(),
                serial: Some(fleet_serial(n)),
                state: AlertState::Open,
                started_time: at,
                resolved_time: None,
                reason: format!("device {n} down"),
            };
            transition(alert, WebhookEvent::AlertOpened, racer, at)
        })
        .collect();
    MonitorVerdict {
        monitor: monitor.clone(),
        owner,
        above_since: None,
        opened,
        resolved: Vec::new(),
        calm: Vec::new(),
    }
}
