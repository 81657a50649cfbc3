//! The open long polls of each device. At most [`MAX_PER_DEVICE`] are open
//! at once: a further poll answers the oldest at once (with no commands), so
//! one device token cannot hold an unbounded number of connections open.
//! When the server shuts down, every open poll is answered at once.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use tokio::sync::oneshot;

/// Long polls one device may hold open at once.
pub const MAX_PER_DEVICE: usize = 2;

/// Every open long poll, by device serial; shared by all workers.
#[derive(Debug, Default)]
pub struct LongPolls {
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
pub struct OpenPoll<'a> {
    polls: &'a LongPolls,
    serial: String,
    id: u64,
    ended: oneshot::Receiver<()>,
}

impl LongPolls {
    /// Registers a poll of the device; the oldest of its polls beyond
    /// [`MAX_PER_DEVICE`] is told to end. Once the server is shutting down,
    /// a new poll is told to end at once.
    pub fn open(&self, serial: &str) -> OpenPoll<'_> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (end, ended) = oneshot::channel();
        let mut open = self.lock();
        if self.closing.load(Ordering::Acquire) {
            let _ = end.send(());
            return OpenPoll {
                polls: self,
                serial: serial.to_owned(),
                id,
                ended,
            };
        }
        let polls = open.entry(serial.to_owned()).or_default();
        polls.push_back(Waiting { id, end });
        while polls.len() > MAX_PER_DEVICE {
            if let Some(oldest) = polls.pop_front() {
                let _ = oldest.end.send(());
            }
        }
        OpenPoll {
            polls: self,
            serial: serial.to_owned(),
            id,
            ended,
        }
    }

    /// Tells every open poll, and every poll opened from now on, to end:
    /// the server is shutting down.
    pub fn close_all(&self) {
        let mut open = self.lock();
        self.closing.store(true, Ordering::Release);
        for (_, polls) in open.drain() {
            for poll in polls {
                let _ = poll.end.send(());
            }
        }
    }

    /// Long polls open now, over all devices.
    pub fn count(&self) -> usize {
        self.lock().values().map(VecDeque::len).sum()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, VecDeque<Waiting>>> {
        self.open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl OpenPoll<'_> {
    /// Resolves when a newer poll of the same device pushed this one out.
    pub async fn pushed_out(&mut self) {
        if (&mut self.ended).await.is_err() {
            // The registry dropped the sender without a word: never resolve.
            std::future::pending::<()>().await;
        }
    }
}

impl Drop for OpenPoll<'_> {
    fn drop(&mut self) {
        let mut open = self.polls.lock();
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

    #[tokio::test]
    async fn a_third_poll_of_a_device_pushes_out_the_oldest() {
        let polls = LongPolls::default();
        let mut first = polls.open("a");
        let mut second = polls.open("a");
        let mut other = polls.open("b");
        assert_eq!(polls.count(), 3);
        assert!(first.pushed_out().now_or_never().is_none());
        let mut third = polls.open("a");
        assert!(first.pushed_out().now_or_never().is_some());
        assert!(second.pushed_out().now_or_never().is_none());
        assert!(third.pushed_out().now_or_never().is_none());
        assert!(other.pushed_out().now_or_never().is_none());
        drop(first);
        assert_eq!(polls.count(), 3);
        drop((second, third, other));
        assert_eq!(polls.count(), 0);
        assert!(polls.lock().is_empty());
    }

    #[tokio::test]
    async fn closing_ends_every_poll_and_every_later_one() {
        let polls = LongPolls::default();
        let mut a = polls.open("a");
        let mut b = polls.open("b");
        polls.close_all();
        assert!(a.pushed_out().now_or_never().is_some());
        assert!(b.pushed_out().now_or_never().is_some());
        let mut late = polls.open("a");
        assert!(late.pushed_out().now_or_never().is_some());
        drop((a, b, late));
        assert_eq!(polls.count(), 0);
    }
}
