//! The repository contract: what every storage adapter must do, written once
//! against the ports of [`application::ports`] and run against each adapter.
//!
//! - [`Store`] is every repository port at once, as one adapter value
//!   implements them.
//! - Each backend has a function that opens a fresh, migrated, empty store
//!   ([`sqlite`], [`postgres`]), returning it as an [`Opened`] that keeps alive whatever the
//!   store lives in (a scratch directory, a scratch database).
//! - [`contract_tests!`] turns generic test functions
//!   `async fn name(store: impl Store)` into one `#[tokio::test]` per function
//!   and backend.
//! - The rest are the fixtures the tests share: fixed times, accounts,
//!   devices, enrolments, reports, and [`race`] for concurrency tests.
//!
//! The tests themselves are in `tests/contract/`.

use adapters_postgres::PgStore;
use adapters_sqlite::SqliteStore;
use application::mail::Email;
use application::ports::{
    AccountRepository, CommandRepository, CompletedReset, DeviceRepository, EmailKeyRepository,
    Enrolment, KeyPurpose, LoginAttemptRepository, MailedKey, NewAccount, NewEmailKey, Outbox,
    TokenRepository,
};
use chrono::{TimeZone, Utc};
use domain::command::REDELIVERY_AFTER;
use domain::listening_port::normalize_ports;
use domain::secret::SecretHash;
use domain::{
    Account, AccountId, BoundedText, Command, CommandOutcome, CommandStatus, Device, DeviceFacts,
    EmailAddress, FactsReport, MachineType, Port, PortNumber, Protocol, Serial, Timestamp,
};
use std::any::Any;
use std::future::Future;
use std::sync::Arc;

// --- Stores -------------------------------------------------------------------

/// Every repository port, as one storage adapter implements them all; cheap
/// to clone (clones share the database), so concurrent tasks each hold one.
pub trait Store:
    AccountRepository
    + TokenRepository
    + EmailKeyRepository
    + DeviceRepository
    + CommandRepository
    + Outbox
    + LoginAttemptRepository
    + Clone
    + Send
    + Sync
    + 'static
{
}

impl<T> Store for T where
    T: AccountRepository
        + TokenRepository
        + EmailKeyRepository
        + DeviceRepository
        + CommandRepository
        + Outbox
        + LoginAttemptRepository
        + Clone
        + Send
        + Sync
        + 'static
{
}

/// A freshly opened, migrated, empty store, and whatever must outlive it
/// (its scratch directory or database). Derefs to the store.
pub struct Opened<S> {
    // Declared first, so dropped first: the store lets go of its database
    // before the guard removes it.
    store: S,
    _guard: Box<dyn Any + Send>,
}

impl<S> Opened<S> {
    /// A store and the guard of what it lives in, dropped after the store.
    pub fn new(store: S, guard: impl Any + Send) -> Self {
        Self {
            store,
            _guard: Box::new(guard),
        }
    }
}

impl<S> std::ops::Deref for Opened<S> {
    type Target = S;

    fn deref(&self) -> &S {
        &self.store
    }
}

/// A fresh SQLite store: a new file in a scratch directory, migrated. The
/// directory goes when the value does.
pub async fn sqlite() -> Opened<SqliteStore> {
    tokio::task::spawn_blocking(|| {
        let dir = tempfile::tempdir().expect("cannot make a scratch directory");
        let store = SqliteStore::open(&dir.path().join("db.sqlite"))
            .expect("cannot open a fresh SQLite database");
        store
            .migrate()
            .expect("cannot migrate a fresh SQLite database");
        Opened::new(store, dir)
    })
    .await
    .expect("opening a SQLite store panicked")
}

/// A fresh PostgreSQL store: a new database on the server of
/// `DEVMGR_TEST_POSTGRES_URL`, migrated. The database is dropped when the
/// value goes.
pub async fn postgres() -> Opened<PgStore> {
    let database = tokio::task::spawn_blocking(scratch_postgres::TestDatabase::create)
        .await
        .expect("creating a PostgreSQL database panicked");
    let store = PgStore::connect(database.url())
        .await
        .expect("cannot connect to a fresh PostgreSQL database");
    store
        .migrate()
        .await
        .expect("cannot migrate a fresh PostgreSQL database");
    Opened::new(store, database)
}

/// Generates, for each generic contract test `async fn name(store: impl Store)`
/// named in the list, one `#[tokio::test]` per backend, in a module named
/// after the backend (`sqlite::name`, `postgres::name`), that opens a fresh store, runs the
/// test on it and keeps the store's scratch files until the test ends.
///
/// ```text
/// async fn accounts_are_unique(store: impl Store) { /* … */ }
/// store_contract::contract_tests!(accounts_are_unique);
/// ```
///
/// Each backend is one line of the first arm below, naming the module, the
/// function that opens a fresh store of the backend, and the attributes its
/// tests carry besides `#[tokio::test]`. PostgreSQL's tests are ignored, with
/// the reason, unless the crate was built with `DEVMGR_TEST_POSTGRES_URL` set
/// (see `build.rs`).
#[macro_export]
macro_rules! contract_tests {
    ($($test:ident),+ $(,)?) => {
        $crate::contract_tests!(@backend sqlite, $crate::sqlite, [], [$($test),+]);
        $crate::contract_tests!(@backend postgres, $crate::postgres,
            [#[cfg_attr(
                not(postgres_tests),
                ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
            )]],
            [$($test),+]);
    };
    (@backend $backend:ident, $open:path, $attributes:tt, [$($test:ident),+]) => {
        mod $backend {
            $( $crate::contract_tests!(@test $open, $attributes, $test); )+
        }
    };
    (@test $open:path, [$(#[$attribute:meta])*], $test:ident) => {
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        $(#[$attribute])*
        async fn $test() {
            let opened = $open().await;
            super::$test(::std::clone::Clone::clone(&*opened)).await;
        }
    };
}

// --- Time ---------------------------------------------------------------------

/// Checked text: `value` must pass `T`'s rule.
pub fn text<T: BoundedText>(value: &str) -> T {
    T::parse(value).expect("text within its rule")
}

/// The fixed "now" of the tests: 2026-05-01 08:00:00 UTC.
pub fn t0() -> Timestamp {
    Utc.with_ymd_and_hms(2026, 5, 1, 8, 0, 0).unwrap()
}

/// `n` minutes.
pub fn minutes(n: i64) -> chrono::Duration {
    chrono::Duration::minutes(n)
}

/// How long an undelivered command stays pending, in these tests.
pub fn lapse() -> chrono::Duration {
    minutes(10)
}

// --- Accounts, keys and mail ----------------------------------------------------

/// A verified account with a password, created at [`t0`]: its install token
/// is `install-{email}`, its first API token `token` (when given), and its
/// verification key `key-{email}` (72 hours) goes out in the mail
/// `mail-{email}`.
pub fn new_account(email: &str, token: Option<&str>) -> NewAccount {
    NewAccount {
        email: EmailAddress::parse(email).unwrap(),
        name: text("Name"),
        password_hash: Some("$argon2id$fake".into()),
        email_verified: true,
        install_token: format!("install-{email}"),
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
/// `install-{name}`), with no token, key or mail.
pub async fn account(store: &impl Store, name: &str) -> Account {
    AccountRepository::create(
        store,
        NewAccount {
            email: EmailAddress::parse(&format!("{name}@example.com")).unwrap(),
            name: text(name),
            password_hash: Some("$argon2id$fake".into()),
            email_verified: true,
            install_token: format!("install-{name}"),
            created_time: t0(),
            first_token: None,
            verification: None,
        },
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
            install_token: "i".repeat(32),
            created_time: t0(),
            first_token: None,
            verification: Some(mailed(
                "verify",
                KeyPurpose::VerifyEmail,
                chrono::Duration::hours(72),
                t0(),
            )),
        },
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
/// token is `hash` padded to 32 characters.
pub fn completed(at: Timestamp, hash: &str) -> CompletedReset {
    CompletedReset {
        now: at,
        password_hash: hash.into(),
        install_token: format!("{hash:x>32}"),
    }
}

/// The account as stored now.
pub async fn reload(store: &impl Store, account: &Account) -> Account {
    store.find_by_email(&account.email).await.unwrap().unwrap()
}

// --- Devices --------------------------------------------------------------------

/// The serial made of sixteen times `byte`.
pub fn serial(byte: u8) -> Serial {
    Serial::from_random_bytes([byte; 16])
}

/// The Raspberry Pi 4 B.
pub fn rpi_4b() -> MachineType {
    MachineType::from_code("rpi_4b").unwrap()
}

/// A device of `owner` for `DeviceRepository::create`, with the serial
/// [`serial`]`(serial_byte)`, the slug `slug-{serial_byte}`, facts (disk use
/// unknown), last seen when created.
pub fn device(owner: AccountId, serial_byte: u8, created: Timestamp) -> Device {
    Device {
        serial: serial(serial_byte),
        owner,
        name: text(&format!("device-{serial_byte}")),
        description: text("desc"),
        wormhole_slug: format!("slug-{serial_byte}"),
        facts: DeviceFacts {
            agent_version: text("1.0"),
            operating_system: text("Debian"),
            uname: text("Linux"),
            machine_type: rpi_4b(),
            disk_capacity: Some(1 << 35),
            disk_used: None,
            processor_speed: 1500,
            ram_capacity: 4096,
        },
        last_seen: Some(created),
        created_time: created,
    }
}

/// A device made by `DeviceRepository::create` at [`t0`]: with every fact
/// (disk use too) and a description, the slug `created-{serial_byte}`, and
/// no token.
pub fn created_device(owner: AccountId, serial_byte: u8) -> Device {
    let mut made = device(owner, serial_byte, t0());
    made.description = text("made by hand");
    made.wormhole_slug = format!("created-{serial_byte}");
    made.facts.disk_used = Some(1 << 30);
    made
}

/// Creates ann@example.com (see [`new_account`]) and her device
/// [`device`]`(serial_byte)`, created at [`t0`].
pub async fn account_with_device(store: &impl Store, serial_byte: u8) -> Device {
    let ann = AccountRepository::create(store, new_account("ann@example.com", None))
        .await
        .unwrap();
    let pi = device(ann.id, serial_byte, t0());
    DeviceRepository::create(store, &pi).await.unwrap();
    pi
}

/// An enrolment at [`t0`] of `serial` into `owner` with the device token
/// `token`, named `pi-{token}`, slug `slug-{token}`, no machine type; a
/// device heard from in the 90 seconds before is online.
pub fn enrolment(owner: AccountId, serial: &Serial, token: &str) -> Enrolment {
    Enrolment {
        owner,
        serial: serial.clone(),
        name: text(&format!("pi-{token}")),
        machine_type: None,
        token: SecretHash::of(token),
        wormhole_slug: format!("slug-{token}"),
        now: t0(),
        online_after: t0() - chrono::Duration::seconds(90),
    }
}

/// Enrols `serial` into `owner` with the device token `token` (see [`enrolment`]).
pub async fn enrol(store: &impl Store, owner: AccountId, serial: &Serial, token: &str) -> Device {
    store
        .enroll(&enrolment(owner, serial, token))
        .await
        .unwrap()
}

/// Creates the account "ann" and enrols her device [`serial`]`(1)` with the
/// token `tok`; returns its serial.
pub async fn one_enrolled_device(store: &impl Store) -> Serial {
    let ann = account(store, "ann").await;
    let pi = serial(1);
    enrol(store, ann.id, &pi, "tok").await;
    pi
}

/// A port.
pub fn port(number: u16, protocol: Protocol, name: &str) -> Port {
    Port::new(
        PortNumber::new(number).expect("a port number"),
        protocol,
        text(name),
    )
}

/// A heartbeat report carrying every fact and no ports.
pub fn report() -> FactsReport {
    FactsReport {
        agent_version: Some(text("2.0")),
        operating_system: Some(text("Raspberry Pi OS 12")),
        uname: Some(text("Linux pi 6.1.0")),
        machine_type: Some(rpi_4b()),
        disk_capacity: Some(Some(64_000_000_000)),
        disk_used: Some(Some(8_000_000_000)),
        processor_speed: Some(1800),
        ram_capacity: Some(8192),
        ports: None,
    }
}

/// A report of only these ports (normalized, as the use case does).
pub fn ports_report(ports: Vec<Port>) -> FactsReport {
    FactsReport {
        ports: Some(normalize_ports(ports)),
        ..FactsReport::default()
    }
}

// --- Commands -------------------------------------------------------------------

/// A successful outcome.
pub fn done(detail: &str) -> CommandOutcome {
    CommandOutcome {
        status: CommandStatus::Done,
        detail: text(detail),
    }
}

/// A failed outcome.
pub fn failed(detail: &str) -> CommandOutcome {
    CommandOutcome {
        status: CommandStatus::Failed,
        detail: text(detail),
    }
}

/// Queues a reboot issued at `at`, lapsing [`lapse`] before; whether it was queued.
pub async fn queue(store: &impl Store, device: &Serial, id: &str, at: Timestamp) -> bool {
    store
        .queue_reboot(device, id, at, at - lapse())
        .await
        .unwrap()
}

/// Takes the due commands at `at`, lapsing [`lapse`] before, handed out
/// again after [`REDELIVERY_AFTER`].
pub async fn take(store: &impl Store, device: &Serial, at: Timestamp) -> Vec<Command> {
    store
        .take_due(device, at, at - lapse(), at - REDELIVERY_AFTER)
        .await
        .unwrap()
}

/// An acknowledgement of receipt.
pub fn received() -> CommandOutcome {
    CommandOutcome {
        status: CommandStatus::Received,
        detail: text(""),
    }
}

/// Acknowledges a command; whether the device has it.
pub async fn ack(
    store: &impl Store,
    device: &Serial,
    id: &str,
    outcome: CommandOutcome,
    at: Timestamp,
) -> bool {
    store.acknowledge(device, id, &outcome, at).await.unwrap()
}

/// The ids of the commands, in order.
pub fn ids(commands: &[Command]) -> Vec<&str> {
    commands.iter().map(|c| c.id.as_str()).collect()
}

// --- Concurrency ----------------------------------------------------------------

/// How many tasks race in the concurrency tests.
pub const RACERS: usize = 16;

/// Runs `n` tasks at once, each on its own tokio task, all released together
/// once every one has started; returns their results in the order of their
/// index. `task(i)` makes the `i`-th (give it its own clone of the store).
/// Panics if a task panics.
pub async fn race<T, F>(n: usize, mut task: impl FnMut(usize) -> F) -> Vec<T>
where
    F: Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    let start = Arc::new(tokio::sync::Barrier::new(n));
    let racers: Vec<_> = (0..n)
        .map(|i| {
            let (start, work) = (Arc::clone(&start), task(i));
            tokio::spawn(async move {
                start.wait().await;
                work.await
            })
        })
        .collect();
    let mut results = Vec::with_capacity(n);
    for racer in racers {
        results.push(racer.await.expect("a racing task panicked"));
    }
    results
}
