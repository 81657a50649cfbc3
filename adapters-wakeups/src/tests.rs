use super::*;
use std::time::Instant;

/// Long enough that a woken wait always finishes well within it.
const LONG: Duration = Duration::from_secs(30);
/// A wait that is not woken must still be waiting after this.
const QUIET: Duration = Duration::from_millis(50);

fn serial(byte: u8) -> Serial {
    Serial::from_random_bytes([byte; 16])
}

/// Whether `listener` is woken within [`QUIET`].
async fn woken_soon<K: Key>(listener: &mut Listener<K>) -> bool {
    tokio::time::timeout(QUIET, listener.receiver.changed())
        .await
        .is_ok()
}

// --- Commands, by serial ----------------------------------------------------------

#[tokio::test]
async fn a_wake_after_listening_ends_the_wait() {
    let signals = Arc::new(Wakeups::default());
    let mut listener = signals.listen(&serial(1));
    signals.wake(&serial(1));
    let started = Instant::now();
    CommandListener::wait(&mut listener, LONG).await;
    assert!(started.elapsed() < LONG);
}

#[tokio::test]
async fn other_devices_do_not_wake_the_wait() {
    let signals = Arc::new(Wakeups::default());
    let mut listener = signals.listen(&serial(1));
    signals.wake(&serial(2));
    assert!(
        !woken_soon(&mut listener).await,
        "woken by another device's command"
    );
}

#[tokio::test]
async fn waking_all_ends_every_wait() {
    let signals = Arc::new(Wakeups::default());
    let mut first = signals.listen(&serial(1));
    let mut second = signals.listen(&serial(2));
    signals.wake_all();
    let started = Instant::now();
    CommandListener::wait(&mut first, LONG).await;
    CommandListener::wait(&mut second, LONG).await;
    assert!(started.elapsed() < LONG);
}

#[tokio::test]
async fn a_wake_before_listening_is_not_remembered() {
    let signals = Arc::new(Wakeups::default());
    signals.wake(&serial(1));
    let mut listener = signals.listen(&serial(1));
    assert!(!woken_soon(&mut listener).await);
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

// --- Fleets, by account -----------------------------------------------------------

#[tokio::test]
async fn a_wake_of_the_account_ends_the_fleet_wait() {
    let fleets = Arc::new(Wakeups::<AccountId>::default());
    let mut listener: Box<dyn FleetListener> = Box::new(fleets.listen(&AccountId(1)));
    fleets.wake(&AccountId(1));
    let started = Instant::now();
    listener.wait(LONG).await;
    assert!(started.elapsed() < LONG);
}

#[tokio::test]
async fn other_accounts_do_not_wake_the_fleet_wait() {
    let fleets = Arc::new(Wakeups::<AccountId>::default());
    let mut listener = fleets.listen(&AccountId(1));
    fleets.wake(&AccountId(2));
    assert!(!woken_soon(&mut listener).await, "woken by another account");
}

#[tokio::test]
async fn a_seen_wake_does_not_end_the_next_wait_but_a_new_one_does() {
    let fleets = Arc::new(Wakeups::<AccountId>::default());
    let mut listener = fleets.listen(&AccountId(1));
    fleets.wake(&AccountId(1));
    fleets.wake(&AccountId(1));
    FleetListener::wait(&mut listener, LONG).await;

    // Both wakes came before the wait returned: they were one.
    let started = Instant::now();
    FleetListener::wait(&mut listener, QUIET).await;
    assert!(started.elapsed() >= QUIET, "a seen wake ended the wait");

    // A wake between waits is kept for the next one.
    fleets.wake(&AccountId(1));
    let started = Instant::now();
    FleetListener::wait(&mut listener, LONG).await;
    assert!(started.elapsed() < LONG);
}

#[tokio::test]
async fn a_wake_ends_a_fleet_wait_in_progress() {
    let fleets = Arc::new(Wakeups::<AccountId>::default());
    let mut listener = fleets.listen(&AccountId(1));
    let waiting = tokio::spawn(async move {
        tokio::time::timeout(
            Duration::from_secs(5),
            FleetListener::wait(&mut listener, LONG),
        )
        .await
    });
    tokio::time::sleep(QUIET).await;
    fleets.wake(&AccountId(1));
    assert!(waiting.await.unwrap().is_ok(), "the wait was not woken");
}

#[tokio::test]
async fn a_fleet_wake_before_listening_is_not_remembered_and_all_are_woken_at_once() {
    let fleets = Arc::new(Wakeups::<AccountId>::default());
    fleets.wake(&AccountId(1));
    let mut first = fleets.listen(&AccountId(1));
    let mut second = fleets.listen(&AccountId(2));
    assert!(!woken_soon(&mut first).await);
    fleets.wake_all();
    assert!(woken_soon(&mut first).await);
    assert!(woken_soon(&mut second).await);
    drop((first, second));
    assert_eq!(fleets.channel_count(), 0);
}
