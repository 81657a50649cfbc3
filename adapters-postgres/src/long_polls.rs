//! The open long polls of every instance on the database, so that the cap
//! per device counts them all: a poll registers in `open_long_polls` when it
//! opens (one statement, which also ends the device's oldest polls beyond
//! the cap, wherever they are) and leaves when it ends (one statement).
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
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use tokio::sync::watch;

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
#[derive(Clone)]
pub struct PgLongPolls {
    store: PgStore,
    local: Arc<Local>,
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
    /// Polls registered and not yet ended.
    open: AtomicUsize,
    /// Numbers this instance's wakers.
    next: AtomicU64,
    /// Turns true when the server shuts down.
    closing: watch::Sender<bool>,
}

impl PgLongPolls {
    /// The registry of the instance that reaches the database through `store`.
    pub fn new(store: PgStore) -> Self {
        Self {
            store,
            local: Arc::new(Local {
                open: AtomicUsize::new(0),
                next: AtomicU64::new(0),
                closing: watch::Sender::new(false),
            }),
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
        let mut poll = PgPoll {
            id: None,
            woken,
            closing,
            store: self.store.clone(),
            local: Arc::clone(&self.local),
        };
        if *poll.closing.borrow() {
            return Ok(Box::new(poll));
        }
        let device = serial.as_str().to_owned();
        let cap = i32::try_from(MAX_LONG_POLLS_PER_DEVICE).unwrap_or(i32::MAX);
        let lifetime = LONG_POLL_LIFETIME.as_secs_f64();
        let id = self
            .store
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
            .await?;
        poll.id = Some(id);
        self.local.open.fetch_add(1, Ordering::Relaxed);
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

/// One poll registered in the database (or, once the server is closing,
/// never registered and ended at once).
struct PgPoll {
    /// Its row, once registered.
    id: Option<i64>,
    /// Woken by the notification that ends it.
    woken: Listener<Serial>,
    closing: watch::Receiver<bool>,
    store: PgStore,
    local: Arc<Local>,
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
    /// Leaves the registry: the row goes in the background (a request may
    /// be dropped mid-way when its client leaves); should that fail, the
    /// row stops counting at its lifetime's end.
    fn drop(&mut self) {
        let Some(id) = self.id else { return };
        self.local.open.fetch_sub(1, Ordering::Relaxed);
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let store = self.store.clone();
        runtime.spawn(async move {
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
        });
    }
}
