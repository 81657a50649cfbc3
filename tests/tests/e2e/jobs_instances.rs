//! Two `devmgr serve` processes on one PostgreSQL database run fleet jobs
//! as one server: each takes every step of every job it finds due, and the
//! store lets exactly one of them take each (docs/architecture.md,
//! "Background work"). Several jobs run at once while the agents poll and
//! acknowledge through both instances in turn; every wave of every job is
//! started exactly once (one "wave started" line across both logs), each
//! device is given exactly one reboot per job that targets it, and the
//! counts add up (docs/api.md, "Fleet jobs").

use crate::device_support::{Agent, install};
use crate::jobs_agents::*;
use crate::support::*;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

/// Devices: three disjoint jobs of four, then one job over all of them.
const DEVICES: usize = 12;
const GROUP: usize = 4;
/// The wave size of each of the three first jobs.
const FIRST_WAVE_SIZES: [usize; 3] = [1, 2, 1];
/// The wave size of the job over all devices.
const ALL_WAVE_SIZE: usize = 2;
const JOBS_WITHIN: Duration = Duration::from_secs(60);

/// A `devmgr serve` process (logging JSON lines) on `db`.
fn serve(db: Db) -> Server {
    Server::builder()
        .db(db)
        .env("DEVMGR_LOG_FORMAT", "json")
        .throttle_off()
        .process()
        .start()
}

/// A job of waves of `wave_size` over `selector` without pause, created on
/// `server`: its id.
fn reboot_in_waves(server: &Server, token: &str, selector: Value, wave_size: usize) -> String {
    let created = create_job(
        server,
        token,
        &json!({
            "action": "reboot",
            "selector": selector,
            "wave_size": wave_size,
            "wave_interval_seconds": 0,
        }),
    );
    assert_eq!(created["status"], "running", "{created:#}");
    string(&created, "id")
}

e2e!(two_instances_start_each_wave_of_each_job_once: postgres; instances 2);
fn two_instances_start_each_wave_of_each_job_once() {
    let db = Db::new();
    let a = serve(db.clone());
    let b = serve(db);
    let owner = a.account("ada@example.com");
    let devices: Vec<Agent> = (0..DEVICES)
        .map(|n| install(&a, &owner, &format!("pi-{n:02}")))
        .collect();
    let agents = SimulatedAgents::start(&[a.base(), b.base()], &devices);

    // Three jobs at once over disjoint devices, created on one instance.
    let serials: Vec<String> = devices.iter().map(|d| d.serial.clone()).collect();
    let mut jobs: Vec<(String, usize)> = serials
        .chunks(GROUP)
        .zip(FIRST_WAVE_SIZES)
        .map(|(group, size)| {
            let id = reboot_in_waves(&a, &owner.token, json!({"serials": group}), size);
            (id, size)
        })
        .collect();
    for (id, _) in &jobs {
        wait_for_job(&a, &owner.token, id, "completed", JOBS_WITHIN);
    }
    // Then one over every device: each is given a second reboot.
    let all = reboot_in_waves(&a, &owner.token, json!({"all": true}), ALL_WAVE_SIZE);
    wait_for_job(&b, &owner.token, &all, "completed", JOBS_WITHIN);
    jobs.push((all, ALL_WAVE_SIZE));
    let logs = agents.stop();

    // Each job: its targets all done, counts that add up, a command each.
    let mut given: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (id, _) in &jobs {
        let finished = job(&b, &owner.token, id);
        let targets = job_targets(&b, &owner.token, id);
        assert_eq!(
            finished["counts"],
            counts_all_done(targets.len()),
            "{finished:#}"
        );
        for target in &targets {
            assert_eq!(target["status"], "done", "job {id}: {target:#}");
            let command = string(target, "command_id");
            let fresh = given
                .entry(string(target, "serial"))
                .or_default()
                .insert(command.clone());
            assert!(
                fresh,
                "job {id}: {command} is the command of another target"
            );
        }
    }
    assert_eq!(
        jobs.iter()
            .map(|(id, _)| job_targets(&b, &owner.token, id).len())
            .collect::<Vec<_>>(),
        [GROUP, GROUP, GROUP, DEVICES],
        "the targets of each job"
    );
    // Each device: one command per job that targeted it, and no other.
    for (index, device) in devices.iter().enumerate() {
        let history: BTreeSet<String> = device_commands(&a, &owner.token, &device.serial)
            .iter()
            .map(|command| string(command, "id"))
            .collect();
        let expected = &given[&device.serial];
        assert_eq!(&history, expected, "{}: its commands", device.serial);
        assert_eq!(expected.len(), 2, "{}: two jobs targeted it", device.serial);
        let log = &logs[index];
        let handed: BTreeSet<String> = log.distinct_given().into_iter().collect();
        assert_eq!(&handed, expected, "{}: {log:#?}", device.serial);
        assert_eq!(log.carried_out.len(), 2, "{}: {log:#?}", device.serial);
        assert!(log.problems.is_empty(), "{}: {log:#?}", device.serial);
    }

    // Each wave of each job was started once, by one of the two.
    let (on_a, on_b) = (
        log_events(&a, "wave started"),
        log_events(&b, "wave started"),
    );
    println!(
        "waves started: {} by one instance, {} by the other",
        on_a.len(),
        on_b.len()
    );
    let mut started: BTreeMap<(String, u64), usize> = BTreeMap::new();
    for event in on_a.into_iter().chain(on_b) {
        let job = event["job"].as_str().unwrap_or_default().to_owned();
        let wave = event["wave"].as_u64().unwrap_or_default();
        *started.entry((job, wave)).or_default() += 1;
    }
    let mut expected: BTreeMap<(String, u64), usize> = BTreeMap::new();
    for (id, size) in &jobs {
        let targets = job_targets(&b, &owner.token, id).len();
        for wave in 1..=targets.div_ceil(*size) {
            expected.insert((id.clone(), wave as u64), 1);
        }
    }
    assert_eq!(
        started,
        expected,
        "\"wave started\" once per wave across both logs\nlog of one:\n{}\nof the other:\n{}",
        a.log(),
        b.log()
    );
}
