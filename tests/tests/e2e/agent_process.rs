//! The device side with real processes: `devmgr serve` and `devmgr-agent`
//! running side by side on 127.0.0.1, as on a user's network.

use crate::agent_process_support::*;
use crate::device_support::{device_detail, device_ports, listed_serials, reboot};
use crate::support::{Server, assert_refused, is_lowercase_uuid, string};
use serde_json::Value;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::thread;
use std::time::Duration;

e2e!(an_agent_enrols_reports_its_facts_reboots_and_goes_offline_when_stopped);
fn an_agent_enrols_reports_its_facts_reboots_and_goes_offline_when_stopped() {
    let server = Server::builder().online_window(WINDOW_SECS).start();
    let alice = server.account("alice@example.com");
    let device = Device::new();

    let installed = device.install_as_printed(&server, &alice.token);
    let serial = string(&installed, "serial");
    assert!(is_lowercase_uuid(&serial), "{installed}");
    assert_eq!(
        string(&installed, "url"),
        format!("{}/devices/{serial}/", server.expected_base())
    );
    assert!(
        installed.get("device_token").is_none(),
        "the device token is a secret: {installed}"
    );
    let mode = fs::metadata(device.config()).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "config file mode {mode:o}");
    let config: Value = serde_json::from_str(&fs::read_to_string(device.config()).unwrap())
        .expect("the config file is JSON");
    assert_eq!(string(&config, "serial"), serial);

    assert_eq!(listed_serials(&server, &alice.token), [serial.as_str()]);
    assert_eq!(
        device_detail(&server, &alice.token, &serial)["online"],
        false,
        "installing does not make a device online"
    );

    let mut agent = device.run(&[]);
    wait_until("the device is online with the agent's facts", || {
        let shown = device_detail(&server, &alice.token, &serial);
        shown["online"] == true && shown["agent_version"] != ""
    });
    let shown = device_detail(&server, &alice.token, &serial);
    assert_eq!(shown["agent_version"], env!("CARGO_PKG_VERSION"));
    assert!(
        string(&shown, "uname").starts_with("Linux "),
        "uname: {}",
        shown["uname"]
    );
    if let Some(os) = pretty_os_name() {
        assert_eq!(shown["operating_system"], os.as_str());
    }
    if cfg!(target_arch = "x86_64") {
        assert_eq!(shown["machine_type"], "x86_64");
    }
    assert!(shown["ram_capacity"].as_i64().unwrap() > 0, "{shown}");
    assert!(
        shown["disk_capacity"].as_i64().is_some_and(|b| b > 0),
        "{shown}"
    );

    let server_port = port_of(server.base());
    let ports = device_ports(&server, &alice.token, &serial);
    assert!(
        ports
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["port"] == server_port && p["protocol"] == "tcp"),
        "the server's own port {server_port} is among the reported ports: {ports}"
    );

    reboot(&server, &alice.token, &serial);
    wait_until("the reboot command ran", || {
        !device.reboot_lines().is_empty()
    });
    wait_until("the reboot was acknowledged as done", || {
        agent.log().contains("command acknowledged")
    });
    assert!(agent.log().contains("Done"), "{}", agent.log());

    let status = agent.terminate(Duration::from_secs(5));
    assert!(
        status.is_some_and(|s| s.success()),
        "the agent should exit 0 on SIGTERM, got {status:?}\n{}",
        agent.log()
    );
    assert_eq!(device.reboot_lines(), ["rebooted"], "rebooted exactly once");
    wait_until("the stopped agent's device goes offline", || {
        device_detail(&server, &alice.token, &serial)["online"] == false
    });
}

e2e!(the_agent_rides_out_a_server_restart);
fn the_agent_rides_out_a_server_restart() {
    // A port outside the ephemeral range, so that nothing takes it while the
    // server is down.
    let address = format!("127.0.0.1:{}", smtp_sink::free_port());
    let server = Server::builder()
        .bind(&address)
        .online_window(WINDOW_SECS)
        .start();
    let alice = server.account("alice@example.com");
    let device = Device::new();
    let serial = string(&device.install_as_printed(&server, &alice.token), "serial");
    let agent = device.run(&["--max-backoff", "1"]);
    wait_until("the device is online", || {
        device_detail(&server, &alice.token, &serial)["online"] == true
    });

    let db = server.kill();
    thread::sleep(Duration::from_secs(WINDOW_SECS + 1));
    let server = Server::builder()
        .db(db)
        .bind(&address)
        .online_window(WINDOW_SECS)
        .start();
    assert!(
        agent.log().contains("server unavailable"),
        "the agent noticed the server was gone:\n{}",
        agent.log()
    );
    wait_until("the agent is back and the device online", || {
        device_detail(&server, &alice.token, &serial)["online"] == true
    });
    reboot(&server, &alice.token, &serial);
    wait_until("the reboot reached the agent", || {
        device.reboot_lines().len() == 1
    });
}

e2e!(a_failing_reboot_command_is_acknowledged_as_failed);
fn a_failing_reboot_command_is_acknowledged_as_failed() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let device = Device::new();
    let serial = string(&device.install_as_printed(&server, &alice.token), "serial");
    let agent = device.run_with_reboot_command("echo 'no reboot here' >&2; exit 3", &[]);
    wait_until("the device is online", || {
        device_detail(&server, &alice.token, &serial)["online"] == true
    });
    reboot(&server, &alice.token, &serial);
    wait_until("the failure was acknowledged", || {
        agent.log().contains("command acknowledged")
    });
    let log = agent.log();
    assert!(log.contains("Failed"), "{log}");
    assert!(log.contains("no reboot here"), "{log}");
}

e2e!(a_deleted_devices_agent_keeps_running_and_says_why);
fn a_deleted_devices_agent_keeps_running_and_says_why() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let device = Device::new();
    let serial = string(&device.install_as_printed(&server, &alice.token), "serial");
    let mut agent = device.run(&["--max-backoff", "1"]);
    wait_until("the device is online", || {
        device_detail(&server, &alice.token, &serial)["online"] == true
    });
    server
        .delete(&format!("/devices/{serial}/"))
        .token(&alice.token)
        .send()
        .expect_empty(204);
    wait_until("the agent reports its refused token", || {
        agent.log().contains("does not accept this device's token")
    });
    assert!(agent.is_running(), "{}", agent.log());
    assert!(listed_serials(&server, &alice.token).is_empty());
}

e2e!(installing_with_a_wrong_token_fails_and_writes_no_config);
fn installing_with_a_wrong_token_fails_and_writes_no_config() {
    let server = Server::start();
    let device = Device::new();
    let output = device
        .command(&["install", "--server", server.base(), "--token", "wrong"])
        .output()
        .expect("devmgr-agent can be started");
    assert_refused(&output, "devmgr-agent install --token wrong");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("Invalid install token."),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!device.config().exists());
}

e2e!(installing_again_rekeys_the_same_device);
fn installing_again_rekeys_the_same_device() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let device = Device::new();
    let first = device.install_as_printed(&server, &alice.token);
    let old_config = fs::read_to_string(device.config()).unwrap();
    let again = device.install_as_printed(&server, &alice.token);
    assert_eq!(again["serial"], first["serial"]);
    assert_eq!(listed_serials(&server, &alice.token).len(), 1);
    let new_config = fs::read_to_string(device.config()).unwrap();
    assert_ne!(old_config, new_config, "a new device token is stored");
    assert_eq!(
        fs::metadata(device.config()).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert!(Path::new(&device.config()).exists());
}

/// The device's command history, as its owner sees it.
fn command_history(server: &Server, owner_token: &str, serial: &str) -> Vec<Value> {
    let reply = server
        .get(&format!("/devices/{serial}/commands/"))
        .token(owner_token)
        .send();
    reply.expect_status(200);
    reply.json().as_array().cloned().expect("a list")
}

/// The status of the device's newest command.
fn newest_status(server: &Server, owner_token: &str, serial: &str) -> Option<String> {
    command_history(server, owner_token, serial)
        .first()
        .map(|command| string(command, "status"))
}

e2e!(a_reboot_sent_to_a_dead_poll_runs_exactly_once_when_the_agent_is_back);
/// The audit's lost reboot: the agent dies while its long poll waits (the
/// server still holds the poll), the reboot goes to the dead connection, and
/// the agent comes back. The command is handed out again and runs once.
fn a_reboot_sent_to_a_dead_poll_runs_exactly_once_when_the_agent_is_back() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let device = Device::new();
    let serial = string(&device.install_as_printed(&server, &alice.token), "serial");
    let mut agent = device.run(&[]);
    wait_until("the device is online", || {
        device_detail(&server, &alice.token, &serial)["online"] == true
    });
    // Let its long poll start waiting, then kill it without a word.
    thread::sleep(Duration::from_secs(1));
    agent.child.kill().expect("SIGKILL");
    let _ = agent.child.wait();
    reboot(&server, &alice.token, &serial);
    thread::sleep(Duration::from_secs(1));
    assert!(device.reboot_lines().is_empty());

    let again = device.run(&[]);
    wait_until("the reboot is done", || {
        newest_status(&server, &alice.token, &serial).as_deref() == Some("done")
    });
    assert_eq!(device.reboot_lines(), ["rebooted"], "rebooted exactly once");
    // Acknowledged: never handed out again.
    thread::sleep(Duration::from_secs(16));
    assert_eq!(device.reboot_lines(), ["rebooted"], "{}", again.log());
    assert_eq!(command_history(&server, &alice.token, &serial).len(), 1);
}

e2e!(a_device_that_reboots_before_saying_done_is_not_rebooted_again);
/// The device reboots (here: the reboot command kills the agent) before the
/// agent can send `done`. When the agent starts again it remembers the
/// command: it is not carried out again, and it is reported done.
fn a_device_that_reboots_before_saying_done_is_not_rebooted_again() {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let device = Device::new();
    let serial = string(&device.install_as_printed(&server, &alice.token), "serial");
    let dies = format!(
        "echo rebooted >> '{}'; kill -9 $PPID",
        device.reboots().display()
    );
    let mut first = device.run_with_reboot_command(&dies, &[]);
    wait_until("the device is online", || {
        device_detail(&server, &alice.token, &serial)["online"] == true
    });
    reboot(&server, &alice.token, &serial);
    wait_until("the agent died in its reboot", || !first.is_running());
    assert_eq!(device.reboot_lines(), ["rebooted"]);
    assert_eq!(
        newest_status(&server, &alice.token, &serial).as_deref(),
        Some("received"),
        "received was acknowledged before the reboot ran"
    );

    let again = device.run_with_reboot_command(&dies, &[]);
    wait_until("the reboot is reported done", || {
        newest_status(&server, &alice.token, &serial).as_deref() == Some("done")
    });
    let history = command_history(&server, &alice.token, &serial);
    assert_eq!(history.len(), 1);
    assert_eq!(history[0]["detail"], "The device restarted.");
    thread::sleep(Duration::from_secs(2));
    assert_eq!(device.reboot_lines(), ["rebooted"], "{}", again.log());
}
