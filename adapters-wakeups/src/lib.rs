//! Waking waiters within this process: long polls when a command is queued
//! for their device, open consoles when their account's fleet changed.
//!
//! A waiter subscribes to the channel of its key (a device's serial, an
//! account's id) before it looks at the state it waits on; a change sends on
//! the channel after the commit (the storage adapter calls [`Wakeups::wake`],
//! directly or when the database tells it another process made the change).
//! So a change made at any moment after the subscription wakes the waiter,
//! and nothing ever polls the database.
//!
//! A store keeps one [`Wakeups<Serial>`] for commands, whose [`Listener`] is
//! a [`CommandListener`], and one [`Wakeups<AccountId>`] for fleets, whose
//! [`Listener`] is a [`FleetListener`].

use application::ports::{CommandListener, FleetListener};
use async_trait::async_trait;
use domain::{AccountId, Serial};
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::watch;

/// What a channel can be keyed by.
pub trait Key: Eq + Hash + Clone + Send + Sync + 'static {}

impl<K: Eq + Hash + Clone + Send + Sync + 'static> Key for K {}

/// One wake-up channel per key that has a waiter.
pub struct Wakeups<K: Key = Serial> {
    channels: Mutex<HashMap<K, watch::Sender<()>>>,
}

impl<K: Key> Default for Wakeups<K> {
    fn default() -> Self {
        Self {
            channels: Mutex::default(),
        }
    }
}

impl<K: Key> Wakeups<K> {
    fn channels(&self) -> MutexGuard<'_, HashMap<K, watch::Sender<()>>> {
        // A panic while holding the lock leaves the map consistent: every
        // operation on it is a single insert, lookup or removal.
        self.channels
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Subscribes to the key's channel, creating it if needed. Only wakes
    /// from now on count.
    pub fn listen(self: &Arc<Self>, key: &K) -> Listener<K> {
        let receiver = self
            .channels()
            .entry(key.clone())
            .or_insert_with(|| watch::channel(()).0)
            .subscribe();
        Listener {
            signals: Arc::clone(self),
            key: key.clone(),
            receiver,
        }
    }

    /// Wakes every waiter of the key.
    pub fn wake(&self, key: &K) {
        if let Some(sender) = self.channels().get(key) {
            sender.send_replace(());
        }
    }

    /// Wakes every waiter of every key: after wake-ups may have been missed
    /// (a lost database connection), each waiter looks again.
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

/// A subscription of one waiter; the channel goes when its last one does.
pub struct Listener<K: Key = Serial> {
    signals: Arc<Wakeups<K>>,
    key: K,
    receiver: watch::Receiver<()>,
}

impl<K: Key> Listener<K> {
    /// Returns once the key was woken since the listener was made or last
    /// returned, or after `timeout`. Several wakes meanwhile count as one.
    pub async fn woken(&mut self, timeout: Duration) {
        // `changed` marks the wake seen, so the next call waits for a new one.
        // An error means the sender is gone, which cannot happen while this
        // listener keeps the channel in the map; either way, stop waiting.
        let _ = tokio::time::timeout(timeout, self.receiver.changed()).await;
    }
}

#[async_trait]
impl CommandListener for Listener<Serial> {
    async fn wait(&mut self, timeout: Duration) {
        self.woken(timeout).await;
    }
}

#[async_trait]
impl FleetListener for Listener<AccountId> {
    async fn wait(&mut self, timeout: Duration) {
        self.woken(timeout).await;
    }
}

impl<K: Key> Drop for Listener<K> {
    fn drop(&mut self) {
        let mut channels = self.signals.channels();
        if channels
            .get(&self.key)
            .is_some_and(|sender| sender.receiver_count() <= 1)
        {
            channels.remove(&self.key);
        }
    }
}

#[cfg(test)]
mod tests;
