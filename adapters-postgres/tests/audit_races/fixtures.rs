//! The fixtures of the audit races: two instances on one scratch database
//! with an account and its fleet, and the changes the writers make.

use adapters_postgres::PgStore;
use application::ports::{AccountRepository, NewMonitor};
use domain::{
    AccountId, AfterSeconds, AuditAction, MonitorId, MonitorKind, Selector, Serial, Timestamp,
};
use store_contract::{
    create_devices, fleet_device, fleet_serial, minutes, new_account, noted, t0, text,
};

/// Concurrent writers, on the two instances in turn.
pub const WRITERS: usize = 24;
/// Devices in the account's fleet.
const FLEET: u16 = 16;

/// Two instances on one fresh, migrated database, an account with
/// [`FLEET`] devices on it (their entries already written), and the
/// database (dropped last).
pub struct Racing {
    pub a: PgStore,
    pub b: PgStore,
    pub ann: AccountId,
    pub fleet: Vec<Serial>,
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
    let devices: Vec<_> = (0..FLEET)
        .map(|n| fleet_device(ann, n, "kiosk", "", &[], None, i64::from(n)))
        .collect();
    create_devices(&a, &devices).await;
    Racing {
        a,
        b,
        ann,
        fleet: (0..FLEET).map(fleet_serial).collect(),
        _database: database,
    }
}

impl Racing {
    /// The instance writer `i` uses: the two in turn.
    pub fn instance(&self, i: usize) -> PgStore {
        if i.is_multiple_of(2) {
            self.a.clone()
        } else {
            self.b.clone()
        }
    }
}

/// The time of a writer's step: a minute apart.
pub fn at(step: u8) -> Timestamp {
    t0() + minutes(i64::from(step))
}

/// A new device monitor of every device, writer `writer`'s at step `step`.
pub fn monitor(owner: AccountId, writer: u8, step: u8) -> NewMonitor {
    NewMonitor {
        id: MonitorId::from_random_bytes([
            0xa0, writer, step, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
        ]),
        owner,
        name: text(&format!("Writer {writer}, step {step}")),
        kind: MonitorKind::DeviceOffline,
        selector: Selector::All,
        selector_json: r#"{"all": true}"#.to_owned(),
        after: AfterSeconds::from_stored(60),
        created_time: t0(),
    }
}
