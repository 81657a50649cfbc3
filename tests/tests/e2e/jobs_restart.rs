//! A fleet job survives its server being killed (SIGKILL, no clean-up of
//! any kind): its state lives in the store (docs/architecture.md,
//! "Background work"), so a new server on the same database carries the job
//! on from where it stands. Killed once while a wave is in flight (its
//! commands handed out, not all acknowledged) and once during the pause
//! between two waves, the job still completes with every target `done`;
//! each device was given exactly one reboot, the one its target names
//! (docs/api.md, "Fleet jobs"), and the wave after the pause started no
//! earlier than `wave_interval_seconds` allows (times are kept to the
//! second, so up to 1 s early).

use crate::device_support::{Agent, install};
use crate::jobs_agents::*;
use crate::support::*;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// Devices, and so targets: three waves of two.
const DEVICES: usize = 6;
const WAVE_SIZE: usize = 2;
/// The pause between waves, in seconds: longer than a restart takes.
const INTERVAL: i64 = 3;
/// Generous deadlines for what the contract wants within a second or two.
const SOON: Duration = Duration::from_secs(5);
const JOB_WITHIN: Duration = Duration::from_secs(40);

/// A `devmgr serve` process (logging JSON lines) on `db`.
fn serve(db: Db) -> Server {
    Server::builder()
        .db(db)
        .env("DEVMGR_LOG_FORMAT", "json")
        .throttle_off()
        .process()
        .start()
}

e2e!(a_job_carries_on_after_its_server_is_killed_mid_wave_and_mid_pause);
fn a_job_carries_on_after_its_server_is_killed_mid_wave_and_mid_pause() {
    let server = serve(Db::new());
    let owner = server.account("ada@example.com");
    let devices: Vec<Agent> = (0..DEVICES)
        .map(|n| install(&server, &owner, &format!("pi-{n}")))
        .collect();
    let index_of: BTreeMap<String, usize> = devices
        .iter()
        .enumerate()
        .map(|(index, device)| (device.serial.clone(), index))
        .collect();
    let agents = SimulatedAgents::start(&[server.base()], &devices);
    // Every agent holds what it is handed until the test knows which
    // devices are in the first wave.
    (0..DEVICES).for_each(|index| agents.hold(index));

    let created = create_job(
        &server,
        &owner.token,
        &json!({
            "action": "reboot",
            "selector": {"all": true},
            "wave_size": WAVE_SIZE,
            "wave_interval_seconds": INTERVAL,
        }),
    );
    let id = string(&created, "id");
    assert_eq!(created["status"], "running", "{created:#}");
    let targets = job_targets(&server, &owner.token, &id);
    let first_wave: Vec<usize> = targets
        .iter()
        .filter(|target| target["wave"] == 1)
        .map(|target| index_of[&string(target, "serial")])
        .collect();
    assert_eq!(first_wave.len(), WAVE_SIZE, "{targets:#?}");
    let (finishing, unfinished) = (first_wave[0], first_wave[1]);
    // One device of the first wave carries its reboot out, the other is
    // handed its command and says nothing yet; the others wait their wave.
    (0..DEVICES)
        .filter(|index| *index != unfinished)
        .for_each(|index| agents.release(index));
    agents.wait_until(
        "the first wave: one device done, the other handed its command",
        SOON,
        |logs| logs[finishing].done.len() == 1 && !logs[unfinished].given.is_empty(),
    );
    let in_flight = job(&server, &owner.token, &id);
    assert_eq!(in_flight["status"], "running", "{in_flight:#}");
    assert_eq!(
        in_flight["counts"]["waiting"],
        DEVICES - WAVE_SIZE,
        "{in_flight:#}"
    );

    // (a) Killed with the first wave in flight.
    let server = serve(server.kill());
    agents.talk_to(&[server.base()]);
    agents.release(unfinished);
    // The new server settles the first wave, and the pause begins.
    let settled = Instant::now() + SOON;
    while !log_events(&server, "wave settled")
        .iter()
        .any(|event| event["job"] == id.as_str() && event["wave"] == 1)
    {
        assert!(
            Instant::now() < settled,
            "the restarted server did not settle the first wave: {:#}\nlog:\n{}",
            job(&server, &owner.token, &id),
            server.log()
        );
        std::thread::sleep(Duration::from_millis(20));
    }

    // (b) Killed during the pause before the second wave.
    let server = serve(server.kill());
    agents.talk_to(&[server.base()]);
    let finished = wait_for_job(&server, &owner.token, &id, "completed", JOB_WITHIN);
    let logs = agents.stop();

    assert_eq!(
        finished["counts"],
        counts_all_done(DEVICES),
        "every target done: {finished:#}"
    );
    let targets = job_targets(&server, &owner.token, &id);
    assert_eq!(targets.len(), DEVICES, "{targets:#?}");
    let mut waves: BTreeMap<u64, Vec<Value>> = BTreeMap::new();
    for (position, target) in targets.iter().enumerate() {
        assert_eq!(target["status"], "done", "{target:#}");
        assert_eq!(
            target["wave"],
            position / WAVE_SIZE + 1,
            "target {position}'s wave: {targets:#?}"
        );
        let serial = string(target, "serial");
        let index = index_of[&serial];
        // Exactly one reboot for the device: the target's, carried out once.
        let commands = device_commands(&server, &owner.token, &serial);
        assert_eq!(commands.len(), 1, "{serial}: one command: {commands:#?}");
        let command = &commands[0];
        assert_eq!(
            target["command_id"], command["id"],
            "{target:#}\n{command:#}"
        );
        assert_eq!(command["status"], "done", "{command:#}");
        let log = &logs[index];
        assert_eq!(
            log.distinct_given(),
            [string(command, "id")],
            "{serial}: {log:#?}"
        );
        assert_eq!(log.carried_out.len(), 1, "{serial}: {log:#?}");
        assert!(log.problems.is_empty(), "{serial}: {log:#?}");
        let wave = target["wave"].as_u64().expect("a wave number");
        waves.entry(wave).or_default().push(command.clone());
    }
    // Each wave started no earlier than the interval after the one before ended.
    for (wave, commands) in waves.iter().skip(1) {
        let before = &waves[&(wave - 1)];
        let ended = before
            .iter()
            .map(|command| seconds_of(&command["acked_time"]))
            .max()
            .expect("a wave has commands");
        let started = commands
            .iter()
            .map(|command| seconds_of(&command["issued_time"]))
            .min()
            .expect("a wave has commands");
        assert!(
            started >= ended + INTERVAL - 1,
            "wave {wave} started {} s after wave {} ended (the interval is {INTERVAL} s)\n\
             {before:#?}\n{commands:#?}",
            started - ended,
            wave - 1
        );
    }
}
