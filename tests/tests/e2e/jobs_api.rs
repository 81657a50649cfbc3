//! Fleet jobs through the API (docs/api.md, "Jobs"): waves that follow one
//! another as simulated agents carry their reboots out, a job that halts
//! and is resumed, cancelled jobs, reboots already under way joined, a
//! scheduled job and a job without targets.

use crate::device_support::{listed_serials, reboot};
use crate::jobs_support::*;
use crate::support::*;
use serde_json::{Value, json};
use std::time::Duration;

/// The serials of `targets`, in the order listed.
fn serials(targets: &[Value]) -> Vec<String> {
    targets.iter().map(|t| string(t, "serial")).collect()
}

/// Waits until every target of `wave` has a command and is `pending`.
#[track_caller]
fn wait_for_wave(server: &Server, token: &str, id: &str, wave: u64) -> Vec<Value> {
    wait_until(&format!("wave {wave} of {id}"), ENGINE_WAIT, || {
        let all = targets(server, token, id);
        let started = in_wave(&all, wave)
            .iter()
            .all(|t| t["status"] == "pending" && t["command_id"].is_string());
        if started {
            Ok(all)
        } else {
            Err(format!("{all:?}"))
        }
    })
}

e2e!(waves_follow_one_another_as_agents_carry_them_out);
fn waves_follow_one_another_as_agents_carry_them_out() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let agents = agents(&server, &alice, 5);
    let listed = listed_serials(&server, &alice.token);
    let job = create(
        &server,
        &alice.token,
        &json!({"action": "reboot", "selector": {"serials": listed}, "wave_size": 2}),
    );
    let id = string(&job, "id");
    // The 201 shows the first wave under way.
    assert_eq!(job["status"], "running", "{job:#}");
    assert_eq!(job["selector"], json!({"serials": listed}));
    assert_eq!(job["wave_size"], 2);
    assert_eq!(job["wave_interval_seconds"], 0);
    assert_eq!(job["halt_failure_ratio"], 0.5);
    assert_eq!(job["start_time"], job["created_time"]);
    assert_eq!(job["finished_time"], Value::Null);
    assert_eq!(counts(&job), counted(&[("pending", 2), ("waiting", 3)]));

    let all = targets(&server, &alice.token, &id);
    assert_eq!(serials(&all), listed, "targets in list order");
    let waves: Vec<u64> = all.iter().map(|t| t["wave"].as_u64().unwrap()).collect();
    assert_eq!(waves, [1, 1, 2, 2, 3]);
    assert_eq!(
        statuses(&all),
        ["pending", "pending", "waiting", "waiting", "waiting"]
    );
    for target in &all {
        let name = &agents.iter().position(|a| a.serial == target["serial"]);
        assert_eq!(target["name"], format!("Pi {}", name.unwrap()), "{target}");
        assert_eq!(target["detail"], "", "{target}");
        let started = target["wave"] == 1;
        assert_eq!(target["command_id"].is_string(), started, "{target}");
    }

    // A command handed out is `delivered`, acknowledged `received`, then `done`.
    let first = &all[0];
    let agent = agent_of(&agents, &string(first, "serial"));
    let command = string(first, "command_id");
    assert_eq!(
        take_commands(&server, agent),
        std::slice::from_ref(&command)
    );
    assert_eq!(
        statuses(&targets(&server, &alice.token, &id))[0],
        "delivered"
    );
    ack(&server, agent, &command, "received", "");
    assert_eq!(
        statuses(&targets(&server, &alice.token, &id))[0],
        "received"
    );
    ack(&server, agent, &command, "done", "");
    let job = self::job(&server, &alice.token, &id);
    assert_eq!(
        counts(&job),
        counted(&[("done", 1), ("pending", 1), ("waiting", 3)])
    );
    // One target left in the wave: the next does not start.
    std::thread::sleep(Duration::from_millis(1200));
    assert_eq!(
        statuses(&targets(&server, &alice.token, &id)),
        ["done", "pending", "waiting", "waiting", "waiting"]
    );

    carry_out(&server, &agents, &[&all[1]], &[]);
    let all = wait_for_wave(&server, &alice.token, &id, 2);
    assert_eq!(
        statuses(&all),
        ["done", "done", "pending", "pending", "waiting"]
    );
    carry_out(&server, &agents, &in_wave(&all, 2), &[]);
    let all = wait_for_wave(&server, &alice.token, &id, 3);
    carry_out(&server, &agents, &in_wave(&all, 3), &[]);
    let job = wait_for_status(&server, &alice.token, &id, "completed");
    assert_eq!(counts(&job), counted(&[("done", 5)]));
    assert!(is_timestamp(&string(&job, "finished_time")), "{job:#}");
    // Nothing more is given.
    for agent in &agents {
        assert_eq!(take_commands(&server, agent), Vec::<String>::new());
    }
}

e2e!(failures_over_the_ratio_halt_and_resume_starts_the_next_wave_at_once);
fn failures_over_the_ratio_halt_and_resume_starts_the_next_wave_at_once() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let agents = agents(&server, &alice, 5);
    let job = create(
        &server,
        &alice.token,
        &json!({
            "action": "reboot",
            "selector": {"all": true},
            "wave_size": 2,
            "halt_failure_ratio": 0.4,
        }),
    );
    let id = string(&job, "id");
    assert_eq!(job["selector"], json!({"all": true}));
    assert_eq!(job["halt_failure_ratio"], 0.4);
    let all = targets(&server, &alice.token, &id);
    let failing = string(&all[1], "serial");
    carry_out(&server, &agents, &in_wave(&all, 1), &[&failing]);
    // 1 of 2 failed: 0.5 > 0.4.
    let job = wait_for_status(&server, &alice.token, &id, "halted");
    assert_eq!(
        counts(&job),
        counted(&[("done", 1), ("failed", 1), ("waiting", 3)])
    );
    assert_eq!(job["finished_time"], Value::Null);
    let all = targets(&server, &alice.token, &id);
    assert_eq!(all[1]["status"], "failed");
    assert_eq!(all[1]["detail"], "disk full");
    // A halted job stays halted.
    std::thread::sleep(Duration::from_millis(1200));
    assert_eq!(self::job(&server, &alice.token, &id)["status"], "halted");

    // Resuming starts the next wave in the request.
    let reply = server.post(&resume_path(&id)).token(&alice.token).send();
    reply.expect_status(200);
    let resumed = reply.json();
    assert_job_shape(&server, &resumed);
    assert_eq!(resumed["status"], "running", "{resumed:#}");
    assert_eq!(
        counts(&resumed),
        counted(&[("done", 1), ("failed", 1), ("pending", 2), ("waiting", 1)])
    );
    let all = targets(&server, &alice.token, &id);
    for target in in_wave(&all, 2) {
        let command = string(target, "command_id");
        let agent = agent_of(&agents, &string(target, "serial"));
        assert_eq!(take_commands(&server, agent), [command]);
    }
    server
        .post(&resume_path(&id))
        .token(&alice.token)
        .send()
        .expect_detail(409, NOT_HALTED);

    // Cancelling skips the waiting target; commands given stay given.
    let reply = server.post(&cancel_path(&id)).token(&alice.token).send();
    reply.expect_status(200);
    let cancelled = reply.json();
    assert_eq!(cancelled["status"], "cancelled", "{cancelled:#}");
    assert!(is_timestamp(&string(&cancelled, "finished_time")));
    assert_eq!(
        counts(&cancelled),
        counted(&[("done", 1), ("failed", 1), ("delivered", 2), ("skipped", 1)])
    );
    let all = targets(&server, &alice.token, &id);
    let skipped = &in_wave(&all, 3)[0];
    assert_eq!(skipped["status"], "skipped");
    assert_eq!(skipped["command_id"], Value::Null);
    let agent = agent_of(&agents, &string(skipped, "serial"));
    assert_eq!(take_commands(&server, agent), Vec::<String>::new());
    for (path, refusal) in [
        (cancel_path(&id), ALREADY_FINISHED),
        (resume_path(&id), NOT_HALTED),
    ] {
        server
            .post(&path)
            .token(&alice.token)
            .send()
            .expect_detail(409, refusal);
    }
    // The cancelled job's commands (handed out above) still end, and the
    // job stays cancelled.
    for target in in_wave(&all, 2) {
        let agent = agent_of(&agents, &string(target, "serial"));
        let command = string(target, "command_id");
        ack(&server, agent, &command, "received", "");
        ack(&server, agent, &command, "done", "");
    }
    std::thread::sleep(Duration::from_millis(1200));
    let job = self::job(&server, &alice.token, &id);
    assert_eq!(job["status"], "cancelled");
    assert_eq!(job["finished_time"], cancelled["finished_time"]);
    assert_eq!(
        counts(&job),
        counted(&[("done", 3), ("failed", 1), ("skipped", 1)])
    );
}

e2e!(a_wave_failing_exactly_at_the_ratio_goes_on);
fn a_wave_failing_exactly_at_the_ratio_goes_on() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let agents = agents(&server, &alice, 3);
    let job = create(
        &server,
        &alice.token,
        &json!({"action": "reboot", "selector": {"all": true}, "wave_size": 2}),
    );
    let id = string(&job, "id");
    let all = targets(&server, &alice.token, &id);
    let failing = string(&all[0], "serial");
    carry_out(&server, &agents, &in_wave(&all, 1), &[&failing]);
    let all = wait_for_wave(&server, &alice.token, &id, 2);
    assert_eq!(statuses(&all), ["failed", "done", "pending"]);
}

e2e!(a_reboot_under_way_is_joined_never_sent_twice);
fn a_reboot_under_way_is_joined_never_sent_twice() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let agents = agents(&server, &alice, 2);
    let pending = reboot(&server, &alice.token, &agents[0].serial);
    let job = create(
        &server,
        &alice.token,
        &json!({"action": "reboot", "selector": {"all": true}}),
    );
    assert_eq!(job["wave_size"], Value::Null);
    let id = string(&job, "id");
    let all = targets(&server, &alice.token, &id);
    let joined = all
        .iter()
        .find(|t| t["serial"] == agents[0].serial)
        .expect("the device is a target");
    assert_eq!(joined["command_id"], pending["id"], "{joined}");
    let history = server
        .get(&format!("/devices/{}/commands/", agents[0].serial))
        .token(&alice.token)
        .send();
    history.expect_status(200);
    assert_eq!(
        history.json().as_array().map(Vec::len),
        Some(1),
        "{history}"
    );
    // The other device got a command of its own; both are one wave.
    let other = all
        .iter()
        .find(|t| t["serial"] == agents[1].serial)
        .unwrap();
    assert_ne!(other["command_id"], pending["id"]);
    assert!(other["command_id"].is_string());
    assert_eq!(statuses(&all), ["pending", "pending"]);
    // A second job joins the same commands too.
    let again = create(
        &server,
        &alice.token,
        &json!({"action": "reboot", "selector": {"serials": [agents[0].serial]}}),
    );
    let again = targets(&server, &alice.token, &string(&again, "id"));
    assert_eq!(again[0]["command_id"], pending["id"]);
}

e2e!(a_scheduled_job_has_no_targets_until_its_time_then_runs);
fn a_scheduled_job_has_no_targets_until_its_time_then_runs() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    agents(&server, &alice, 2);
    let start = in_seconds(60);
    let job = create(
        &server,
        &alice.token,
        &json!({"action": "reboot", "selector": {"all": true}, "start_time": start}),
    );
    let id = string(&job, "id");
    assert_eq!(job["status"], "scheduled", "{job:#}");
    assert_eq!(job["start_time"], start);
    assert_ne!(job["created_time"], start);
    assert_eq!(counts(&job), counted(&[]));
    assert_eq!(targets(&server, &alice.token, &id), Vec::<Value>::new());
    // Its time comes: it starts within a second or so.
    server.advance(Duration::from_secs(60));
    let job = wait_for_status(&server, &alice.token, &id, "running");
    assert_eq!(job["start_time"], start);
    // Its targets are resolved as it starts, its first wave given at once.
    let all = wait_for_wave(&server, &alice.token, &id, 1);
    assert_eq!(statuses(&all), ["pending", "pending"]);

    // A scheduled job can be cancelled before it starts: it never has targets.
    let later = create(
        &server,
        &alice.token,
        &json!({"action": "reboot", "selector": {"all": true}, "start_time": in_seconds(3600)}),
    );
    let later_id = string(&later, "id");
    let reply = server
        .post(&cancel_path(&later_id))
        .token(&alice.token)
        .send();
    reply.expect_status(200);
    assert_eq!(reply.json()["status"], "cancelled");
    server.advance(Duration::from_secs(3600));
    std::thread::sleep(Duration::from_millis(1200));
    let later = self::job(&server, &alice.token, &later_id);
    assert_eq!(later["status"], "cancelled");
    assert_eq!(
        targets(&server, &alice.token, &later_id),
        Vec::<Value>::new()
    );
}

e2e!(a_past_start_time_starts_now_and_a_job_without_targets_completes_at_once);
fn a_past_start_time_starts_now_and_a_job_without_targets_completes_at_once() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    agents(&server, &alice, 1);
    let job = create(
        &server,
        &alice.token,
        &json!({"action": "reboot", "selector": {"all": true}, "start_time": "2020-01-01T00:00:00"}),
    );
    assert_eq!(job["status"], "running");
    assert_eq!(job["start_time"], job["created_time"]);
    let job = create(
        &server,
        &alice.token,
        &json!({"action": "reboot", "selector": {"tags": ["Nowhere"], "search": " Pi "}}),
    );
    assert_eq!(job["status"], "completed", "{job:#}");
    assert_eq!(
        job["selector"],
        json!({"tags": ["nowhere"], "search": "pi"})
    );
    assert!(is_timestamp(&string(&job, "finished_time")), "{job:#}");
    assert_eq!(counts(&job), counted(&[]));
    assert_eq!(
        targets(&server, &alice.token, &string(&job, "id")),
        Vec::<Value>::new()
    );
}
