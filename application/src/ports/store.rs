//! The umbrella of the repository ports: everything one storage adapter is.

use super::{
    AccountRepository, AuditLog, Clock, CommandRepository, ConsoleSessionRepository,
    DeviceRepository, EmailKeyRepository, EventData, FleetSignals, JobRepository,
    LoginAttemptRepository, MailLinks, Mailer, MonitorRepository, Outbox, PasswordHasher, Ports,
    RandomSource, StoreProbe, TokenRepository, WebhookRepository, WebhookTransport,
};
use std::sync::Arc;

/// Every repository port at once, as one storage adapter implements them all
/// over one database (`SqliteStore`, `PgStore`).
///
/// This is the one list of the repository ports: the composition root, the
/// store contract suite and the tests that run the application over a real
/// store ask for a `Store` and nothing more, so a new repository port is
/// added here (and, for the use cases, to [`Ports`], which
/// [`Ports::over_store`] fills). Any type that implements every one of them
/// is a `Store`; nothing implements it by hand.
pub trait Store:
    AccountRepository
    + AuditLog
    + TokenRepository
    + EmailKeyRepository
    + DeviceRepository
    + CommandRepository
    + JobRepository
    + MonitorRepository
    + WebhookRepository
    + Outbox
    + LoginAttemptRepository
    + ConsoleSessionRepository
    + FleetSignals
    + StoreProbe
    + Send
    + Sync
    + 'static
{
}

impl<T> Store for T where
    T: AccountRepository
        + AuditLog
        + TokenRepository
        + EmailKeyRepository
        + DeviceRepository
        + CommandRepository
        + JobRepository
        + MonitorRepository
        + WebhookRepository
        + Outbox
        + LoginAttemptRepository
        + ConsoleSessionRepository
        + FleetSignals
        + StoreProbe
        + Send
        + Sync
        + 'static
{
}

impl Ports {
    /// Every port, with `store` behind all the repositories and the given
    /// adapters behind the rest.
    pub fn over_store<S: Store>(
        store: Arc<S>,
        mailer: Arc<dyn Mailer>,
        links: Arc<dyn MailLinks>,
        hasher: Arc<dyn PasswordHasher>,
        clock: Arc<dyn Clock>,
        random: Arc<dyn RandomSource>,
        webhooks: (Arc<dyn WebhookTransport>, Arc<dyn EventData>),
    ) -> Self {
        let (transport, event_data) = webhooks;
        Self {
            accounts: store.clone(),
            audit: store.clone(),
            tokens: store.clone(),
            keys: store.clone(),
            devices: store.clone(),
            commands: store.clone(),
            jobs: store.clone(),
            monitors: store.clone(),
            webhooks: store.clone(),
            outbox: store.clone(),
            login_attempts: store.clone(),
            console_sessions: store.clone(),
            fleet_signals: store.clone(),
            probe: store,
            mailer,
            links,
            hasher,
            clock,
            random,
            transport,
            event_data,
        }
    }
}
