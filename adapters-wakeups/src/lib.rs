//! Waking long polls when a command is queued, within this process.
//!
//! A long poll subscribes to its device's channel before it looks for pending
//! commands; queuing a command sends on the channel after the commit (the
//! storage adapter calls [`Wakeups::wake`], directly or when the
//! database tells it another process queued one). So a command queued at any
//! moment after the subscription wakes the poll, and nothing ever polls the
//! database.

use application::ports::CommandListener;
use async_trait::async_trait;
use domain::Serial;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::watch;

/// One wake-up channel per device that has a long poll waiting.
#[derive(Default)]
pub struct Wakeups {
    channels: Mutex<HashMap<Serial, watch::Sender<()>>>,
}

impl Wakeups {
    fn channels(&self) -> MutexGuard<'_, HashMap<Serial, watch::Sender<()>>> {
        // A panic while holding the lock leaves the map consistent: every
        // operation on it is a single insert, lookup or removal.
        self.channels
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Subscribes to the device's channel, creating it if needed.
    pub fn listen(self: &Arc<Self>, serial: &Serial) -> Listener {
        let receiver = self
            .channels()
            .entry(serial.clone())
            .or_insert_with(|| watch::channel(()).0)
            .subscribe();
        Listener {
            signals: Arc::clone(self),
            serial: serial.clone(),
            receiver,
        }
    }

    /// Wakes every poll waiting for the device.
    pub fn wake(&self, serial: &Serial) {
        if let Some(sender) = self.channels().get(serial) {
            sender.send_replace(());
        }
    }

    /// Wakes every poll of every device: after wake-ups may have been missed
    /// (a lost database connection), each poll looks again.
    pub fn wake_all(&self) {
        for sender in self.channels().values() {
            sender.send_replace(());
        }
    }

    #[cfg(test)]
    fn channel_count(&self) -> usize {
        self.channels().len()
    }
}

/// A subscription of one long poll; the channel goes when its last one does.
pub struct Listener {
    signals: Arc<Wakeups>,
    serial: Serial,
    receiver: watch::Receiver<()>,
}

#[async_trait]
impl CommandListener for Listener {
    async fn wait(&mut self, timeout: Duration) {
        // An error means the sender is gone, which cannot happen while this
        // listener keeps the channel in the map; either way, stop waiting.
        let _ = tokio::time::timeout(timeout, self.receiver.changed()).await;
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let mut channels = self.signals.channels();
        if channels
            .get(&self.serial)
            .is_some_and(|sender| sender.receiver_count() <= 1)
        {
            channels.remove(&self.serial);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    fn serial(byte: u8) -> Serial {
        Serial::from_random_bytes([byte; 16])
    }

    #[tokio::test]
    async fn a_wake_after_listening_ends_the_wait() {
        let signals = Arc::new(Wakeups::default());
        let mut listener = signals.listen(&serial(1));
        signals.wake(&serial(1));
        let started = Instant::now();
        listener.wait(Duration::from_secs(30)).await;
        assert!(started.elapsed() < Duration::from_secs(30));
    }

    #[tokio::test]
    async fn other_devices_do_not_wake_the_wait() {
        let signals = Arc::new(Wakeups::default());
        let mut listener = signals.listen(&serial(1));
        signals.wake(&serial(2));
        let woken = tokio::time::timeout(Duration::from_millis(50), listener.receiver.changed());
        assert!(woken.await.is_err(), "woken by another device's command");
    }

    #[tokio::test]
    async fn waking_all_ends_every_wait() {
        let signals = Arc::new(Wakeups::default());
        let mut first = signals.listen(&serial(1));
        let mut second = signals.listen(&serial(2));
        signals.wake_all();
        let started = Instant::now();
        first.wait(Duration::from_secs(30)).await;
        second.wait(Duration::from_secs(30)).await;
        assert!(started.elapsed() < Duration::from_secs(30));
    }

    #[tokio::test]
    async fn a_wake_before_listening_is_not_remembered() {
        let signals = Arc::new(Wakeups::default());
        signals.wake(&serial(1));
        let mut listener = signals.listen(&serial(1));
        let woken = tokio::time::timeout(Duration::from_millis(50), listener.receiver.changed());
        assert!(woken.await.is_err());
    }

    #[test]
    fn channels_go_with_their_last_listener() {
        let signals = Arc::new(Wakeups::default());
        let first = signals.listen(&serial(1));
        let second = signals.listen(&serial(1));
        assert_eq!(signals.channel_count(), 1);
        drop(first);
        assert_eq!(signals.channel_count(), 1);
        drop(second);
        assert_eq!(signals.channel_count(), 0);
    }
}
