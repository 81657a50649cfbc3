//! The job engine's steps racing on PostgreSQL, from two instances (two
//! `PgStore`s, each with its own pool and listening session) on one
//! database: of racers for one step exactly one takes it, and a wave racing
//! reboot requests never gives a device two reboots. Without
//! `DEVMGR_TEST_POSTGRES_URL` at build time the tests are reported as
//! ignored (see `build.rs`).

use adapters_postgres::PgStore;
use application::ports::{
    AccountRepository, CommandRepository, JobRepository, NewJob, Settlement, SettlementNotices,
    TargetRecord, Window,
};
use domain::{
    AccountId, Action, AuditAction, CommandId, CommandRecord, CommandStatus, HaltFailureRatio,
    JobId, JobSettings, JobStatus, Selector, Serial, TargetStatus, Timestamp, WaveInterval,
    WaveSize,
};
use std::time::Duration;
use store_contract::{
    RACERS, create_devices, done, fleet_device, fleet_serial, lapse, minutes, new_account, noted,
    online_after, origin, race, t0,
};

/// Devices in the fleet of these tests.
const FLEET: u16 = 24;
/// Rounds of the wave races: each a new job on the same fleet.
const ROUNDS: u8 = 12;
/// How soon a notification reaches the other instance.
const ACROSS: Duration = Duration::from_secs(2);

/// Two instances on one fresh, migrated database, an account with
/// [`FLEET`] devices on it, and the database (dropped last).
async fn two_instances() -> (PgStore, PgStore, AccountId, scratch_postgres::TestDatabase) {
    let database = tokio::task::spawn_blocking(scratch_postgres::TestDatabase::create)
        .await
        .expect("creating a PostgreSQL database panicked");
    let a = PgStore::connect(database.url()).await.unwrap();
    a.migrate().await.unwrap();
    let b = PgStore::connect(database.url()).await.unwrap();
    let ann = AccountRepository::create(
        &a,
        new_account("ann@example.com", None),
        &noted(AuditAction::AccountCreate),
    )
    .await
    .unwrap();
    let fleet: Vec<_> = (0..FLEET)
        .map(|n| fleet_device(ann.id, n, "kiosk", "", &[], None, i64::from(n)))
        .collect();
    create_devices(&a, &fleet).await;
    (a, b, ann.id, database)
}

/// The instance racer `i` uses: the two in turn.
fn instance<'a>(a: &'a PgStore, b: &'a PgStore, i: usize) -> PgStore {
    if i.is_multiple_of(2) {
        a.clone()
    } else {
        b.clone()
    }
}

/// A reboot job of every device of `owner`, started at `at` (or scheduled
/// for then), in waves of `wave_size`.
fn job(owner: AccountId, n: u8, status: JobStatus, at: Timestamp, wave_size: u32) -> NewJob {
    NewJob {
        id: JobId::from_random_bytes([n; 16]),
        owner,
        action: Action::Reboot,
        selector: Selector::All,
        selector_json: r#"{"all": true}"#.to_owned(),
        settings: JobSettings {
            wave_size: Some(WaveSize::new(u64::from(wave_size)).unwrap()),
            wave_interval: WaveInterval::default(),
            halt_failure_ratio: HaltFailureRatio::DEFAULT,
        },
        start_time: at,
        status,
        created_time: at,
    }
}

/// The command ids racer `racer` offers for wave `round`'s targets, none
/// shared with another racer or round.
fn offered(round: u8, racer: usize) -> Vec<CommandId> {
    (0..FLEET)
        .map(|k| {
            let [high, low] = k.to_be_bytes();
            let racer = u8::try_from(racer).unwrap();
            CommandId::from_random_bytes([
                round, racer, high, low, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
            ])
        })
        .collect()
}

/// Every target of a job, in list order.
async fn targets(
    store: &PgStore,
    owner: AccountId,
    id: &JobId,
    at: Timestamp,
) -> Vec<TargetRecord> {
    let window = Window {
        limit: 1000,
        offset: 0,
    };
    store
        .job_targets(owner, id, window, at - lapse())
        .await
        .unwrap()
        .expect("the job exists")
        .targets
}

/// The device's reboots that are unfinished at `at`: pending, delivered or
/// received, issued within the lapse.
async fn unfinished(store: &PgStore, serial: &Serial, at: Timestamp) -> Vec<CommandRecord> {
    store
        .history(serial, 100)
        .await
        .unwrap()
        .into_iter()
        .filter(|c| {
            matches!(c.status, None | Some(CommandStatus::Received))
                && c.command.issued_time > at - lapse()
        })
        .collect()
}

/// Acknowledges every target's command as done.
async fn finish(store: &PgStore, targets: &[TargetRecord], at: Timestamp) {
    for target in targets {
        let id = target.command_id.as_ref().expect("a target with a command");
        store
            .acknowledge(&target.serial, id, &done(""), at)
            .await
            .unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
)]
async fn racing_begins_start_a_scheduled_job_once() {
    let (a, b, ann, _database) = two_instances().await;
    for round in 1..=ROUNDS {
        let scheduled = job(ann, round, JobStatus::Scheduled, t0(), 10);
        a.create_job(&scheduled, online_after(), &noted(AuditAction::JobCreate))
            .await
            .unwrap();
        let id = scheduled.id.clone();
        let begun = race(RACERS, |i| {
            let (store, id) = (instance(&a, &b, i), id.clone());
            async move { store.begin_job(&id, t0(), online_after()).await.unwrap() }
        })
        .await;
        assert_eq!(
            begun.iter().filter(|&&b| b).count(),
            1,
            "round {round}: {begun:?}"
        );
        let active = a.active_job(&id, t0() - lapse()).await.unwrap().unwrap();
        assert_eq!(active.status, JobStatus::Running);
        assert_eq!(active.targets, u64::from(FLEET), "resolved once");
        assert_eq!(active.next_wave_time, Some(t0()));
        let listed = targets(&b, ann, &id, t0()).await;
        let serials: Vec<Serial> = listed.iter().map(|t| t.serial.clone()).collect();
        let fleet: Vec<Serial> = (0..FLEET).map(fleet_serial).collect();
        assert_eq!(serials, fleet, "round {round}: in list order, once each");
        let waves: Vec<u32> = listed.iter().map(|t| t.wave).collect();
        let expected: Vec<u32> = (0..u32::from(FLEET)).map(|i| i / 10 + 1).collect();
        assert_eq!(waves, expected);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
)]
async fn racing_wave_starts_give_every_device_exactly_one_command() {
    let (a, b, ann, _database) = two_instances().await;
    for round in 1..=ROUNDS {
        let now = t0() + minutes(i64::from(round) * 20);
        let running = job(ann, round, JobStatus::Running, now, u32::from(FLEET));
        a.create_job(&running, online_after(), &noted(AuditAction::JobCreate))
            .await
            .unwrap();
        let id = running.id.clone();
        let started = race(RACERS, |i| {
            let (store, id) = (instance(&a, &b, i), id.clone());
            async move {
                let ids = offered(round, i);
                store
                    .start_wave(&id, 1, &ids, now, now - lapse())
                    .await
                    .unwrap()
            }
        })
        .await;
        let winners: Vec<usize> = (0..RACERS).filter(|&i| started[i]).collect();
        assert_eq!(winners.len(), 1, "round {round}: {started:?}");
        let listed = targets(&a, ann, &id, now).await;
        let given: Vec<Option<CommandId>> = listed.iter().map(|t| t.command_id.clone()).collect();
        let winner: Vec<Option<CommandId>> =
            offered(round, winners[0]).into_iter().map(Some).collect();
        assert_eq!(
            given, winner,
            "round {round}: the winner's ids, in list order"
        );
        for target in &listed {
            assert_eq!(target.status, TargetStatus::Pending, "{}", target.serial);
            let commands = unfinished(&b, &target.serial, now).await;
            assert_eq!(commands.len(), 1, "round {round}: {}", target.serial);
            assert_eq!(Some(&commands[0].command.id), target.command_id.as_ref());
        }
        finish(&b, &listed, now).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
)]
async fn racing_settlements_settle_a_wave_once() {
    let (a, b, ann, _database) = two_instances().await;
    for round in 1..=ROUNDS {
        let now = t0() + minutes(i64::from(round) * 20);
        // Two waves: the first settles to a halt or to the next wave.
        let running = job(ann, round, JobStatus::Running, now, u32::from(FLEET / 2));
        a.create_job(&running, online_after(), &noted(AuditAction::JobCreate))
            .await
            .unwrap();
        let id = running.id.clone();
        assert!(
            a.start_wave(&id, 1, &offered(round, 0), now, now - lapse())
                .await
                .unwrap()
        );
        let first: Vec<TargetRecord> = targets(&a, ann, &id, now)
            .await
            .into_iter()
            .filter(|t| t.wave == 1)
            .collect();
        finish(&a, &first, now).await;
        let next = now + minutes(1);
        let settled = race(RACERS, |i| {
            let (store, id) = (instance(&a, &b, i), id.clone());
            let settlement = if i.is_multiple_of(3) {
                Settlement::Halt
            } else {
                Settlement::NextWaveAt(next)
            };
            async move {
                let notices = SettlementNotices::default();
                let taken = store
                    .settle_wave(&id, 1, settlement, now, now - lapse(), &notices)
                    .await
                    .unwrap();
                (taken, settlement)
            }
        })
        .await;
        let winners: Vec<Settlement> = settled.iter().filter(|s| s.0).map(|s| s.1).collect();
        assert_eq!(winners.len(), 1, "round {round}: {settled:?}");
        let job = a.find_job(ann, &id, now - lapse()).await.unwrap().unwrap();
        let active = a.active_job(&id, now - lapse()).await.unwrap();
        match winners[0] {
            Settlement::Halt => {
                assert_eq!(job.status, JobStatus::Halted);
                assert_eq!(active, None);
            }
            _ => {
                assert_eq!(job.status, JobStatus::Running);
                assert_eq!(active.unwrap().next_wave_time, Some(next));
            }
        }
        assert_eq!(job.counts.get(TargetStatus::Done), u64::from(FLEET / 2));
        assert_eq!(job.counts.get(TargetStatus::Waiting), u64::from(FLEET / 2));
    }
    // The settled waves' statuses were kept: purging every command changes none.
    a.purge_commands(t0() + minutes(24 * 60)).await.unwrap();
    let page = a
        .list_jobs(
            ann,
            Window {
                limit: 100,
                offset: 0,
            },
            t0(),
        )
        .await
        .unwrap();
    assert_eq!(page.count, u64::from(ROUNDS));
    for job in page.jobs {
        assert_eq!(
            job.counts.get(TargetStatus::Done),
            u64::from(FLEET / 2),
            "{}",
            job.id
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(postgres_tests),
    ignore = "PostgreSQL tests skipped: set DEVMGR_TEST_POSTGRES_URL=postgres://USER@HOST:PORT/DB (a server where USER may create databases) and build again"
)]
async fn a_wave_racing_reboot_requests_gives_no_device_two_reboots() {
    let (a, b, ann, _database) = two_instances().await;
    let fleet: Vec<Serial> = (0..FLEET).map(fleet_serial).collect();
    for round in 1..=ROUNDS {
        let now = t0() + minutes(i64::from(round) * 20);
        let running = job(ann, round, JobStatus::Running, now, u32::from(FLEET));
        a.create_job(&running, online_after(), &noted(AuditAction::JobCreate))
            .await
            .unwrap();
        let id = running.id.clone();
        // A poll of a device no request names waits on the other instance.
        let mut poll = b.listen(&fleet[usize::from(FLEET) / 2]);
        // One racer starts the wave on A; the others request reboots of
        // the devices on B, the even ones from the fleet's start, the odd
        // ones from its end.
        let outcomes = race(RACERS, |i| {
            let (a, b, id, fleet) = (a.clone(), b.clone(), id.clone(), fleet.clone());
            async move {
                if i == 0 {
                    let ids = offered(round, 0);
                    let started = a
                        .start_wave(&id, 1, &ids, now, now - lapse())
                        .await
                        .unwrap();
                    return vec![(started, None)];
                }
                let mut order = fleet;
                if i % 2 == 1 {
                    order.reverse();
                }
                let mut requested = Vec::new();
                for (k, serial) in order.iter().enumerate().take(6) {
                    let label = u8::try_from(k).unwrap();
                    let racer = u8::try_from(i).unwrap();
                    let command = CommandId::from_random_bytes([
                        round, racer, label, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9,
                    ]);
                    let queued = b
                        .queue_reboot(serial, &command, now, now - lapse(), Some(&origin()))
                        .await
                        .unwrap();
                    requested.push((
                        queued.queued,
                        Some((serial.clone(), queued.command.command.id)),
                    ));
                }
                requested
            }
        })
        .await;
        assert_eq!(
            outcomes[0],
            vec![(true, None)],
            "round {round}: the wave started"
        );
        let listed = targets(&a, ann, &id, now).await;
        for target in &listed {
            let commands = unfinished(&a, &target.serial, now).await;
            assert_eq!(
                commands.len(),
                1,
                "round {round}: {} has {commands:?}",
                target.serial
            );
            let command = &commands[0].command.id;
            assert_eq!(
                target.command_id.as_ref(),
                Some(command),
                "{}",
                target.serial
            );
            for requests in &outcomes[1..] {
                for (_, request) in requests {
                    let (serial, answered) = request.as_ref().unwrap();
                    if *serial == target.serial {
                        assert_eq!(answered, command, "a request joined or was joined");
                    }
                }
            }
        }
        tokio::time::timeout(ACROSS, poll.wait(Duration::from_secs(30)))
            .await
            .expect("the device's poll on the other instance was woken");
        finish(&b, &listed, now).await;
    }
}
