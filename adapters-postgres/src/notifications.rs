//! LISTEN/NOTIFY: how one process hears what another process on the same
//! database did. A transaction that queues a command or a mail sends a
//! notification, which PostgreSQL delivers to every listening session when
//! it commits; each process keeps one session listening and turns those
//! notifications into local wake-ups.

use adapters_wakeups::Wakeups;
use domain::Serial;
use futures_util::StreamExt;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;
use tokio::task::JoinHandle;
use tokio_postgres::{AsyncMessage, Client, Config, NoTls, Notification};

/// The channel of queued commands; the payload is the device's serial.
pub(crate) const COMMANDS_CHANNEL: &str = "devmgr_commands";
/// The channel of queued mail; no payload.
pub(crate) const MAIL_CHANNEL: &str = "devmgr_mail";

/// The longest pause between attempts to listen again after the session was lost.
const MAX_RECONNECT_PAUSE: Duration = Duration::from_secs(5);

/// The listening session of this process, kept up until dropped.
pub(crate) struct Notifications {
    task: JoinHandle<()>,
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
    signals: Arc<Wakeups>,
    mail: Arc<Notify>,
) -> Result<Notifications, tokio_postgres::Error> {
    let session = Session::open(config, &signals, &mail).await?;
    let task = tokio::spawn(keep_listening(config.clone(), session, signals, mail));
    Ok(Notifications { task })
}

/// Listens again whenever the session is lost. Whatever was sent meanwhile
/// is lost too, so every waiter is woken to look for itself.
async fn keep_listening(
    config: Config,
    mut session: Session,
    signals: Arc<Wakeups>,
    mail: Arc<Notify>,
) {
    loop {
        let _ = (&mut session.driver).await;
        let mut pause = Duration::from_millis(100);
        session = loop {
            match Session::open(&config, &signals, &mail).await {
                Ok(session) => break session,
                Err(error) => {
                    tracing::warn!(%error, "cannot listen for PostgreSQL notifications; retrying");
                    tokio::time::sleep(pause).await;
                    pause = (pause * 2).min(MAX_RECONNECT_PAUSE);
                }
            }
        };
        tracing::info!("listening for PostgreSQL notifications again");
        signals.wake_all();
        mail.notify_one();
    }
}

/// One connection that listens on both channels.
struct Session {
    /// Dropping the client would close the connection.
    _client: Client,
    /// Reads the connection and delivers notifications; ends with it.
    driver: JoinHandle<()>,
}

impl Session {
    async fn open(
        config: &Config,
        signals: &Arc<Wakeups>,
        mail: &Arc<Notify>,
    ) -> Result<Self, tokio_postgres::Error> {
        let (client, mut connection) = config.connect(NoTls).await?;
        let (signals, mail) = (signals.clone(), mail.clone());
        let driver = tokio::spawn(async move {
            let mut messages = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
            while let Some(message) = messages.next().await {
                match message {
                    Ok(AsyncMessage::Notification(note)) => deliver(&note, &signals, &mail),
                    Ok(_) => {}
                    Err(error) => {
                        tracing::warn!(%error, "lost the PostgreSQL notification session");
                        return;
                    }
                }
            }
        });
        let listening = client
            .batch_execute(&format!("LISTEN {COMMANDS_CHANNEL}; LISTEN {MAIL_CHANNEL}"))
            .await;
        if let Err(error) = listening {
            driver.abort();
            return Err(error);
        }
        Ok(Session {
            _client: client,
            driver,
        })
    }
}

fn deliver(note: &Notification, signals: &Wakeups, mail: &Notify) {
    match note.channel() {
        COMMANDS_CHANNEL => signals.wake(&Serial::from_stored(note.payload().to_owned())),
        MAIL_CHANNEL => mail.notify_one(),
        _ => {}
    }
}
