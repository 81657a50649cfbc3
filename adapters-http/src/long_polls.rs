//! The open long polls of each device on a lone instance, in memory. At
//! most [`MAX_LONG_POLLS_PER_DEVICE`] are open at once: a further poll answers
//! the oldest at once (with no commands), so one device token cannot hold an
//! unbounded number of connections open. When the server shuts down, every
//! open poll is answered at once. (Instances sharing a database count their
//! polls together in it instead: the [`LongPollRegistry`] port.)

use application::StoreError;
use application::ports::{LongPollRegistry, MAX_LONG_POLLS_PER_DEVICE, OpenPoll};
use async_trait::async_trait;
use domain::Serial;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

/// Every open long poll of this instance, by device serial; shared by all
/// workers (clones share it).
#[derive(Debug, Default, Clone)]
pub struct LongPolls {
    registry: Arc<Registry>,
}

#[derive(Debug, Default)]
struct Registry {
    open: Mutex<HashMap<String, VecDeque<Waiting>>>,
    next_id: AtomicU64,
    closing: AtomicBool,
}

#[derive(Debug)]
struct Waiting {
    id: u64,
    end: oneshot::Sender<()>,
}

/// One open long poll; it leaves the registry when dropped.
#[derive(Debug)]
struct MemoryPoll {
    registry: Arc<Registry>,
    serial: String,
    id: u64,
    ended: oneshot::Receiver<()>,
}

impl LongPolls {
    /// Registers a poll of the device; the oldest of its polls beyond
    /// [`MAX_LONG_POLLS_PER_DEVICE`] is told to end. Once the server is
    /// shutting down, a new poll is told to end at once.
    fn open_now(&self, serial: &str) -> MemoryPoll {
        let registry = &self.registry;
        let id = registry.next_id.fetch_add(1, Ordering::Relaxed);
        let (end, ended) = oneshot::channel();
        let poll = MemoryPoll {
            registry: Arc::clone(registry),
            serial: serial.to_owned(),
            id,
            ended,
        };
        let mut open = registry.lock();
        if registry.closing.load(Ordering::Acquire) {
            let _ = end.send(());
            return poll;
        }
        let polls = open.entry(serial.to_owned()).or_default();
        polls.push_back(Waiting { id, end });
        while polls.len() > MAX_LONG_POLLS_PER_DEVICE {
            if let Some(oldest) = polls.pop_front() {
                let _ = oldest.end.send(());
            }
        }
        poll
    }
}

#[async_trait]
impl LongPollRegistry for LongPolls {
    async fn open(&self, serial: &Serial) -> Result<Box<dyn OpenPoll>, StoreError> {
        Ok(Box::new(self.open_now(serial.as_str())))
    }

    fn close_all(&self) {
        let mut open = self.registry.lock();
        self.registry.closing.store(true, Ordering::Release);
        for (_, polls) in open.drain() {
            for poll in polls {
                let _ = poll.end.send(());
            }
        }
    }

    fn count(&self) -> usize {
        self.registry.lock().values().map(VecDeque::len).sum()
    }

    /// Nothing to forget: a poll leaves the registry with its request.
    async fn forget_stale(&self) -> Result<(), StoreError> {
        Ok(())
    }
}

impl Registry {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, VecDeque<Waiting>>> {
        self.open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[async_trait]
impl OpenPoll for MemoryPoll {
    async fn pushed_out(&mut self) {
        if (&mut self.ended).await.is_err() {
            // The registry dropped the sender without a word: never resolve.
            std::future::pending::<()>().await;
        }
    }
}

impl Drop for MemoryPoll {
    fn drop(&mut self) {
        let mut open = self.registry.lock();
        if let Some(polls) = open.get_mut(&self.serial) {
            polls.retain(|poll| poll.id != self.id);
            if polls.is_empty() {
                open.remove(&self.serial);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::FutureExt;

    fn serial(n: u8) -> Serial {
        Serial::from_random_bytes([n; 16])
    }

    async fn open(polls: &LongPolls, n: u8) -> Box<dyn OpenPoll> {
        polls.open(&serial(n)).await.unwrap()
    }

    #[tokio::test]
    async fn a_third_poll_of_a_device_pushes_out_the_oldest() {
        let polls = LongPolls::default();
        let mut first = open(&polls, 1).await;
        let mut second = open(&polls, 1).await;
        let mut other = open(&polls, 2).await;
        assert_eq!(polls.count(), 3);
        assert!(first.pushed_out().now_or_never().is_none());
        let mut third = open(&polls, 1).await;
        assert!(first.pushed_out().now_or_never().is_some());
        assert!(second.pushed_out().now_or_never().is_none());
        assert!(third.pushed_out().now_or_never().is_none());
        assert!(other.pushed_out().now_or_never().is_none());
        drop(first);
        assert_eq!(polls.count(), 3);
        drop((second, third, other));
        assert_eq!(polls.count(), 0);
        assert!(polls.registry.lock().is_empty());
    }

    #[tokio::test]
    async fn a_closed_poll_frees_its_place() {
        let polls = LongPolls::default();
        let mut first = open(&polls, 1).await;
        drop(open(&polls, 1).await);
        let _third = open(&polls, 1).await;
        assert!(first.pushed_out().now_or_never().is_none(), "two are open");
        polls.forget_stale().await.unwrap();
        assert_eq!(polls.count(), 2);
    }

    #[tokio::test]
    async fn closing_ends_every_poll_and_every_later_one() {
        let polls = LongPolls::default();
        let mut a = open(&polls, 1).await;
        let mut b = open(&polls, 2).await;
        polls.close_all();
        assert!(a.pushed_out().now_or_never().is_some());
        assert!(b.pushed_out().now_or_never().is_some());
        let mut late = open(&polls, 1).await;
        assert!(late.pushed_out().now_or_never().is_some());
        drop((a, b, late));
        assert_eq!(polls.count(), 0);
    }
}
