//! A fixed set of threads that hash passwords, each in its own reused
//! [`Memory`]: however many logins arrive, hashing never holds more than one
//! Argon2 memory per thread, and never grows a pool of threads.

use super::phc::Memory;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread;

/// Work for a hashing thread, done in that thread's memory.
pub(super) type Job = Box<dyn FnOnce(&mut Memory) + Send>;

/// The hashing threads; they end once this (and every clone of the
/// hasher holding it) is dropped and they have finished their work.
pub(super) struct HashingThreads {
    jobs: Sender<Job>,
    allocations: Arc<AtomicUsize>,
}

impl HashingThreads {
    /// Starts `count` threads (at least one); the first gets `first`, the
    /// others memory like it, allocated on their first hash.
    pub(super) fn start(count: usize, first: Memory) -> std::io::Result<Self> {
        let (jobs, queue) = channel::<Job>();
        let queue = Arc::new(Mutex::new(queue));
        let allocations = first.allocations();
        let others: Vec<Memory> = (1..count.max(1)).map(|_| first.sibling()).collect();
        for (index, memory) in std::iter::once(first).chain(others).enumerate() {
            let queue = queue.clone();
            thread::Builder::new()
                .name(format!("argon2-{index}"))
                .spawn(move || work(&queue, memory))?;
        }
        Ok(Self { jobs, allocations })
    }

    /// Hands `job` to the first free thread. At most as many jobs as there
    /// are threads should be given at once (the hasher's permits see to
    /// that), so none waits here.
    pub(super) fn submit(&self, job: Job) -> Result<(), &'static str> {
        self.jobs
            .send(job)
            .map_err(|_| "the password hashing threads have stopped")
    }

    /// How many Argon2 memories the threads have allocated so far.
    pub(super) fn allocations(&self) -> usize {
        self.allocations.load(Ordering::Relaxed)
    }
}

/// One thread's loop: the next job, in this thread's memory, until the
/// hasher is gone. A job that panics is dropped (its caller sees the hash
/// fail) and the thread carries on.
fn work(queue: &Mutex<Receiver<Job>>, mut memory: Memory) {
    loop {
        let next = match queue.lock() {
            Ok(queue) => queue.recv(),
            Err(_) => return,
        };
        let Ok(job) = next else { return };
        let _ = catch_unwind(AssertUnwindSafe(|| job(&mut memory)));
    }
}
