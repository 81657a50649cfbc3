//! LISTEN/NOTIFY: how one process hears what another process on the same
//! database did. A transaction that queues a command or a mail sends a
//! notification, which PostgreSQL delivers to every listening session when
//! it commits (as does an announcement of a fleet change); each process
//! keeps one session listening and turns those notifications into local
//! wake-ups.

use crate::tls::Tls;
use adapters_wakeups::Wakeups;
use domain::{AccountId, Serial};
use futures_util::StreamExt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::sync::Notify;
use tokio::task::JoinHandle;
use tokio::time::{Instant, timeout_at};
use tokio_postgres::{AsyncMessage, Client, Config, Notification};

/// The channel of queued commands; the payload is the device's serial.
pub(crate) const COMMANDS_CHANNEL: &str = "devmgr_commands";
/// The channel of queued mail; no payload.
pub(crate) const MAIL_CHANNEL: &str = "devmgr_mail";
/// The channel of fleet changes; the payload is [`fleet_payload`].
pub(crate) const FLEET_CHANNEL: &str = "devmgr_fleet";

/// The first pause between attempts to listen again after the session was
/// lost; it doubles after each failed attempt, up to [`MAX_RECONNECT_PAUSE`].
const FIRST_RECONNECT_PAUSE: Duration = Duration::from_millis(100);
/// The longest pause between attempts to listen again: once the database is
/// back, this process hears notifications again within about a second.
const MAX_RECONNECT_PAUSE: Duration = Duration::from_secs(1);
/// The longest an attempt to listen may take (connecting, starting the
/// session, `LISTEN`): a database that accepts connections but never answers
/// (cut off by the network) must not hold up the next attempt.
const OPEN_TIMEOUT: Duration = Duration::from_secs(2);
/// TCP keepalives of the listening session, which never sends anything by
/// itself: after this much silence the system probes the server, every
/// [`KEEPALIVE_INTERVAL`], and gives up after [`KEEPALIVE_RETRIES`]
/// unanswered probes. So a session that died unseen (the server restarted
/// while the network was cut) is found out within about half a minute, not
/// the system's two hours.
const KEEPALIVE_IDLE: Duration = Duration::from_secs(15);
/// See [`KEEPALIVE_IDLE`].
const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(5);
/// See [`KEEPALIVE_IDLE`].
const KEEPALIVE_RETRIES: u32 = 3;

/// Whom a notification wakes in this process.
#[derive(Clone)]
pub(crate) struct Waiters {
    /// Long polls, by device.
    pub(crate) commands: Arc<Wakeups<Serial>>,
    /// Consoles, by account.
    pub(crate) fleets: Arc<Wakeups<AccountId>>,
    /// The outbox worker.
    pub(crate) mail: Arc<Notify>,
    /// Tells this process's fleet notifications from others': it wakes its
    /// own consoles directly when it announces, and ignores the echo.
    pub(crate) origin: u64,
}

impl Waiters {
    /// Wakes everyone: notifications may have been missed.
    fn wake_all(&self) {
        self.commands.wake_all();
        self.fleets.wake_all();
        self.mail.notify_one();
    }

    fn deliver(&self, note: &Notification) {
        match note.channel() {
            COMMANDS_CHANNEL => self
                .commands
                .wake(&Serial::from_stored(note.payload().to_owned())),
            MAIL_CHANNEL => self.mail.notify_one(),
            FLEET_CHANNEL => match parse_fleet_payload(note.payload()) {
                Some((_, origin)) if origin == self.origin => {}
                Some((owner, _)) => self.fleets.wake(&owner),
                None => tracing::debug!(
                    payload = note.payload(),
                    "ignoring a malformed fleet notification"
                ),
            },
            _ => {}
        }
    }
}

/// The payload of a fleet notification: the owner's account id and the
/// announcing process's origin, in decimal and hex: `"42 9f3a…"`.
pub(crate) fn fleet_payload(owner: AccountId, origin: u64) -> String {
    format!("{} {origin:x}", owner.0)
}

/// Reads a [`fleet_payload`].
fn parse_fleet_payload(payload: &str) -> Option<(AccountId, u64)> {
    let (owner, origin) = payload.split_once(' ')?;
    Some((
        AccountId(owner.parse().ok()?),
        u64::from_str_radix(origin, 16).ok()?,
    ))
}

/// The listening session of this process, kept up until dropped.
pub(crate) struct Notifications {
    task: JoinHandle<()>,
    /// The session's client while it listens, for [`answers`](Self::answers).
    client: Current,
}

/// The client of the session that listens now.
type Current = Arc<Mutex<Option<Arc<Client>>>>;

impl Notifications {
    /// Whether the database answers a round trip on the listening session
    /// by `deadline` (`LISTEN` on a channel it listens on already, which
    /// changes nothing; the session goes on showing `LISTEN` as its last
    /// statement); `None` while no session listens. The session is a
    /// connection of its own, always open and idle: asking there needs no
    /// pooled connection, which a busy pool may only have by opening one.
    pub(crate) async fn answers(&self, deadline: Instant) -> Option<bool> {
        let client = self
            .client
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()?;
        let statement = format!("LISTEN {COMMANDS_CHANNEL}");
        let asked = client.batch_execute(&statement);
        Some(matches!(timeout_at(deadline, asked).await, Ok(Ok(()))))
    }
}

impl Drop for Notifications {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Starts listening; returns once the session listens, so that whatever
/// commits from then on wakes this process.
pub(crate) async fn listen(
    config: &Config,
    tls: &Tls,
    waiters: Waiters,
) -> Result<Notifications, OpenFailed> {
    let mut config = config.clone();
    config
        .keepalives(true)
        .keepalives_idle(KEEPALIVE_IDLE)
        .keepalives_interval(KEEPALIVE_INTERVAL)
        .keepalives_retries(KEEPALIVE_RETRIES);
    let session = Session::open(&config, tls, &waiters).await?;
    let client = Arc::new(Mutex::new(Some(Arc::clone(&session.client))));
    let task = tokio::spawn(keep_listening(
        config,
        tls.clone(),
        session,
        waiters,
        Arc::clone(&client),
    ));
    Ok(Notifications { task, client })
}

/// Listens again whenever the session is lost. Whatever was sent meanwhile
/// is lost too, so every waiter is woken to look for itself.
async fn keep_listening(
    config: Config,
    tls: Tls,
    mut session: Session,
    waiters: Waiters,
    current: Current,
) {
    loop {
        let _ = (&mut session.driver).await;
        *current.lock().unwrap_or_else(PoisonError::into_inner) = None;
        let mut pause = FIRST_RECONNECT_PAUSE;
        session = loop {
            match Session::open(&config, &tls, &waiters).await {
                Ok(session) => break session,
                Err(error) => {
                    let error = error.explain(&tls);
                    tracing::warn!(%error, "cannot listen for PostgreSQL notifications; retrying");
                    tokio::time::sleep(pause).await;
                    pause = (pause * 2).min(MAX_RECONNECT_PAUSE);
                }
            }
        };
        *current.lock().unwrap_or_else(PoisonError::into_inner) = Some(Arc::clone(&session.client));
        tracing::info!("listening for PostgreSQL notifications again");
        waiters.wake_all();
    }
}

/// One connection that listens on every channel.
struct Session {
    /// Dropping the client would close the connection.
    client: Arc<Client>,
    /// Reads the connection and delivers notifications; ends with it.
    driver: JoinHandle<()>,
}

/// Why a session could not be opened.
#[derive(Debug, thiserror::Error)]
pub(crate) enum OpenFailed {
    /// PostgreSQL refused, or the connection failed.
    #[error(transparent)]
    Postgres(#[from] tokio_postgres::Error),
    /// No answer within [`OPEN_TIMEOUT`].
    #[error("no answer from PostgreSQL within {} s", OPEN_TIMEOUT.as_secs())]
    TimedOut,
}

impl OpenFailed {
    /// Why, in plain words (certificate checks explained).
    pub(crate) fn explain(&self, tls: &Tls) -> String {
        match self {
            OpenFailed::Postgres(error) => tls.explain(error),
            OpenFailed::TimedOut => self.to_string(),
        }
    }
}

impl Session {
    /// Connects and listens, within [`OPEN_TIMEOUT`].
    async fn open(config: &Config, tls: &Tls, waiters: &Waiters) -> Result<Self, OpenFailed> {
        let deadline = tokio::time::Instant::now() + OPEN_TIMEOUT;
        let connecting = tokio::time::timeout_at(deadline, config.connect(tls.connector())).await;
        let (client, mut connection) = connecting.map_err(|_| OpenFailed::TimedOut)??;
        let waiters = waiters.clone();
        let driver = tokio::spawn(async move {
            let mut messages = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
            while let Some(message) = messages.next().await {
                match message {
                    Ok(AsyncMessage::Notification(note)) => waiters.deliver(&note),
                    Ok(_) => {}
                    Err(error) => {
                        tracing::warn!(%error, "lost the PostgreSQL notification session");
                        return;
                    }
                }
            }
        });
        let listening = tokio::time::timeout_at(
            deadline,
            client.batch_execute(&format!(
                "LISTEN {COMMANDS_CHANNEL}; LISTEN {MAIL_CHANNEL}; LISTEN {FLEET_CHANNEL}"
            )),
        )
        .await;
        match listening {
            Ok(Ok(())) => {}
            Ok(Err(error)) => {
                driver.abort();
                return Err(error.into());
            }
            Err(_) => {
                driver.abort();
                return Err(OpenFailed::TimedOut);
            }
        }
        Ok(Session {
            client: Arc::new(client),
            driver,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fleet_payload_reads_back_and_malformed_ones_do_not() {
        let payload = fleet_payload(AccountId(42), 0x9f3a);
        assert_eq!(payload, "42 9f3a");
        assert_eq!(parse_fleet_payload(&payload), Some((AccountId(42), 0x9f3a)));
        for malformed in ["", "42", "x 9f3a", "42 x", "42 9f3a extra", " 9f3a"] {
            assert_eq!(parse_fleet_payload(malformed), None, "{malformed:?}");
        }
    }
}
