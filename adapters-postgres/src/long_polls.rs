//! The open long polls of every instance on the database, so that the cap
//! per device counts them all: a poll registers in `open_long_polls` once it
//! opens (one statement, which also ends the device's oldest polls beyond
//! the cap, wherever they are) and leaves when it ends (one statement);
//! both are written by the instance's registrar, off the request's path.
//!
//! A poll is ended through the wake-ups of long polls: the same channel
//! that wakes a device's polls when a command is queued (its payload a
//! serial) carries the poll's own waker (`poll:<instance>-<n>`, which no
//! serial can be), and every instance wakes the poll of that name if it has
//! it. Rows of an instance that stopped without closing its polls stop
//! counting once older than [`LONG_POLL_LIFETIME`], and housekeeping deletes
//! them.

use crate::notifications::COMMANDS_CHANNEL;
use crate::prepared;
use crate::store::PgStore;
use adapters_wakeups::Listener;
use application::StoreError;
use application::ports::{
    LONG_POLL_LIFETIME, LongPollRegistry, MAX_LONG_POLLS_PER_DEVICE, OpenPoll,
};
use async_trait::async_trait;
use domain::Serial;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, oneshot, watch};

/// Registers poll `$2` of device `$1` and ends the device's oldest beyond
/// `$3`, ignoring rows older than `$4` seconds; notifies on `$5`. Returns
/// the poll's id (the migration's `open_long_poll` says how).
const OPEN: &str = "SELECT open_long_poll($1, $2, $3, $4::FLOAT8 * INTERVAL '1 second', $5)";
/// A poll ended.
const CLOSE: &str = "DELETE FROM open_long_polls WHERE id = $1";
/// Polls older than `$1` seconds were left by an instance that stopped.
const FORGET_STALE: &str = "DELETE FROM open_long_polls WHERE opened_at < clock_timestamp() - $1::FLOAT8 * INTERVAL '1 second'";

/// The long-poll registry of one instance on a shared database. Clones
/// share it.
///
/// A poll waits from the moment it opens; its row is written by one
/// registrar task per instance, in the order the polls opened, on one
/// pooled connection at a time. So a burst of polls (a fleet reconnecting
/// after a restart) costs the pool one connection, never starves the
/// requests that need it, and cannot fail a poll: a row that cannot be
/// written only leaves that poll out of the count across instances.
#[derive(Clone)]
pub struct PgLongPolls {
    store: PgStore,
    local: Arc<Local>,
    jobs: mpsc::UnboundedSender<Job>,
}

impl std::fmt::Debug for PgLongPolls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgLongPolls")
            .field("open", &self.local.open.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

/// What this instance knows of its own polls.
#[derive(Debug)]
struct Local {
    /// Polls opened and not yet ended.
    open: AtomicUsize,
    /// Numbers this instance's wakers.
    next: AtomicU64,
    /// Turns true when the server shuts down.
    closing: watch::Sender<bool>,
}

/// Where a poll's row stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Row {
    /// Waiting for the registrar.
    Waiting,
    /// Written, with this id.
    Written(i64),
    /// The poll ended before its row was written: none is written.
    Ended,
}

/// Work for the registrar.
enum Job {
    /// Write the row of a poll (unless it ended meanwhile).
    Open {
        device: String,
        waker: String,
        row: Arc<Mutex<Row>>,
    },
    /// Delete the row of a poll that ended.
    Close(i64),
    /// Tell once every earlier job is done.
    Settled(oneshot::Sender<()>),
}

impl PgLongPolls {
    /// The registry of the instance that reaches the database through
    /// `store`. Its registrar runs on the current tokio runtime (it must be
    /// called on one) until the registry and its polls are gone.
    pub fn new(store: PgStore) -> Self {
        let (jobs, queue) = mpsc::unbounded_channel();
        tokio::spawn(registrar(store.clone(), queue));
        Self {
            store,
            local: Arc::new(Local {
                open: AtomicUsize::new(0),
                next: AtomicU64::new(0),
                closing: watch::Sender::new(false),
            }),
            jobs,
        }
    }

    /// Waits until the rows of every poll opened so far are written (or
    /// given up), so that polls opened next count after them.
    pub async fn settled(&self) {
        let (done, settled) = oneshot::channel();
        if self.jobs.send(Job::Settled(done)).is_ok() {
            let _ = settled.await;
        }
    }
}

#[async_trait]
impl LongPollRegistry for PgLongPolls {
    async fn open(&self, serial: &Serial) -> Result<Box<dyn OpenPoll>, StoreError> {
        let n = self.local.next.fetch_add(1, Ordering::Relaxed);
        let waker = format!("poll:{:x}-{n}", self.store.origin);
        // Listening before registering: a push-out that follows at once is heard.
        let woken = self
            .store
            .wakeups
            .listen(&Serial::from_stored(waker.clone()));
        let closing = self.local.closing.subscribe();
        let row = Arc::new(Mutex::new(Row::Ended));
        let mut poll = PgPoll {
            row: Arc::clone(&row),
            woken,
            closing,
            jobs: self.jobs.clone(),
            local: None,
        };
        if *poll.closing.borrow() {
            return Ok(Box::new(poll));
        }
        *lock(&row) = Row::Waiting;
        let job = Job::Open {
            device: serial.as_str().to_owned(),
            waker,
            row,
        };
        if self.jobs.send(job).is_err() {
            tracing::debug!(
                "the long-poll registrar has stopped; the poll is not counted across instances"
            );
        }
        self.local.open.fetch_add(1, Ordering::Relaxed);
        poll.local = Some(Arc::clone(&self.local));
        Ok(Box::new(poll))
    }

    fn close_all(&self) {
        self.local.closing.send_replace(true);
    }

    fn count(&self) -> usize {
        self.local.open.load(Ordering::Relaxed)
    }

    async fn forget_stale(&self) -> Result<(), StoreError> {
        let lifetime = LONG_POLL_LIFETIME.as_secs_f64();
        self.store
            .run("forget stale long polls", |c| {
                Box::pin(async move {
                    prepared::execute(c, FORGET_STALE, &[&lifetime]).await?;
                    Ok(())
                })
            })
            .await
    }
}

fn lock(row: &Mutex<Row>) -> std::sync::MutexGuard<'_, Row> {
    row.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Writes and deletes the rows of this instance's polls, one at a time, in
/// the order they were asked for; failures are logged at debug (a row not
/// written leaves its poll uncounted elsewhere, a row not deleted stops
/// counting at its lifetime's end).
async fn registrar(store: PgStore, mut queue: mpsc::UnboundedReceiver<Job>) {
    while let Some(job) = queue.recv().await {
        match job {
            Job::Open { device, waker, row } => {
                if *lock(&row) == Row::Ended {
                    continue;
                }
                match register(&store, device, waker).await {
                    Ok(id) => {
                        let ended = {
                            let mut row = lock(&row);
                            let ended = *row == Row::Ended;
                            *row = Row::Written(id);
                            ended
                        };
                        if ended {
                            close(&store, id).await;
                        }
                    }
                    Err(error) => {
                        tracing::debug!(%error, "cannot register a long poll; other instances do not count it");
                    }
                }
            }
            Job::Close(id) => close(&store, id).await,
            Job::Settled(done) => {
                let _ = done.send(());
            }
        }
    }
}

async fn register(store: &PgStore, device: String, waker: String) -> Result<i64, StoreError> {
    let cap = i32::try_from(MAX_LONG_POLLS_PER_DEVICE).unwrap_or(i32::MAX);
    let lifetime = LONG_POLL_LIFETIME.as_secs_f64();
    store
        .run("register a long poll", |c| {
            let (device, waker) = (device.clone(), waker.clone());
            Box::pin(async move {
                let params: prepared::Params<'_> =
                    &[&device, &waker, &cap, &lifetime, &COMMANDS_CHANNEL];
                Ok(prepared::query_one(c, OPEN, params)
                    .await?
                    .try_get::<_, i64>(0)?)
            })
        })
        .await
}

async fn close(store: &PgStore, id: i64) {
    let closed = store
        .run("close a long poll", |c| {
            Box::pin(async move {
                prepared::execute(c, CLOSE, &[&id]).await?;
                Ok(())
            })
        })
        .await;
    if let Err(error) = closed {
        tracing::debug!(%error, "cannot close a long poll; it lapses");
    }
}

/// One open poll (or, once the server is closing, one ended at once).
struct PgPoll {
    /// Its row in the database.
    row: Arc<Mutex<Row>>,
    /// Woken by the notification that ends it.
    woken: Listener<Serial>,
    closing: watch::Receiver<bool>,
    jobs: mpsc::UnboundedSender<Job>,
    /// The registry that counts it, unless it was never opened.
    local: Option<Arc<Local>>,
}

#[async_trait]
impl OpenPoll for PgPoll {
    /// Also resolves when the notification session was lost and found again
    /// (every waiter is woken then, as every long poll is): answering with
    /// no commands is always safe. No poll outlives [`LONG_POLL_LIFETIME`].
    async fn pushed_out(&mut self) {
        tokio::select! {
            () = self.woken.woken(LONG_POLL_LIFETIME) => {}
            _ = self.closing.wait_for(|closing| *closing) => {}
        }
    }
}

impl Drop for PgPoll {
    /// Leaves the registry: its row is deleted by the registrar (or never
    /// written, if the registrar has not come to it yet).
    fn drop(&mut self) {
        if let Some(local) = &self.local {
            local.open.fetch_sub(1, Ordering::Relaxed);
        }
        let written = {
            let mut row = lock(&self.row);
            let before = *row;
            if before == Row::Waiting {
                *row = Row::Ended;
            }
            before
        };
        if let Row::Written(id) = written {
            let _ = self.jobs.send(Job::Close(id));
        }
    }
}
