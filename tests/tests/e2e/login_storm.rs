//! The memory of a `devmgr serve` process through a login storm
//! (docs/operations.md, "Memory": each hashing thread keeps one Argon2
//! memory, so a storm of logins costs no more than one login per thread).

use crate::support::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// The most the server may hold in memory, at any moment of the storm.
const BOUND_KIB: u64 = 64 * 1024;
/// How long the storm lasts.
const STORM: Duration = Duration::from_secs(10);
/// Concurrent clients that log in, over and over.
const LOGINS: usize = 8;
/// Concurrent clients that list their devices meanwhile.
const READERS: usize = 2;

/// A field of `/proc/<pid>/status` in KiB, e.g. `VmRSS`.
fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_else(|error| panic!("/proc/{pid}/status: {error}"));
    let line = status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status\n{status}"));
    line.trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .unwrap_or_else(|error| panic!("{field}: {line:?}: {error}"))
}

/// What the storm's clients got.
#[derive(Default, Debug)]
struct Answers {
    created: usize,
    busy: usize,
    reads: usize,
    other: Vec<String>,
}

e2e!(a_login_storm_keeps_the_server_within_64_mib: sqlite);
/// Eight clients log in as fast as they are answered for ten seconds while
/// two others list devices; the server's resident memory, sampled every
/// 100 ms (and its high-water mark, which the kernel keeps), never goes over
/// 64 MiB, and is back near where it started once the storm is over.
fn a_login_storm_keeps_the_server_within_64_mib() {
    // One hashing thread, as on a two-core machine, whatever this one has.
    let server = Server::builder()
        .throttle_off()
        .args(&["--hash-threads", "1"])
        .process()
        .start();
    let account = server.account("storm@example.com");
    server.device(&account.email, "pi", &[]);
    let pid = server.pid();
    // One login first, so that the hashing memory is in use before "idle".
    server
        .login(&account.email, &account.password)
        .expect_status(201);
    let idle = status_kib(pid, "VmRSS");

    let storming = AtomicBool::new(true);
    let end = Instant::now() + STORM;
    let (peak, answers) = thread::scope(|scope| {
        let sampler = scope.spawn(|| {
            let mut peak = 0;
            while storming.load(Ordering::Relaxed) {
                peak = peak.max(status_kib(pid, "VmRSS"));
                thread::sleep(Duration::from_millis(100));
            }
            peak
        });
        let logins: Vec<_> = (0..LOGINS)
            .map(|_| {
                scope.spawn(|| {
                    let mut answers = Answers::default();
                    while Instant::now() < end {
                        let reply = server.login(&account.email, &account.password);
                        match reply.status {
                            201 => answers.created += 1,
                            503 => answers.busy += 1,
                            _ => answers.other.push(reply.to_string()),
                        }
                    }
                    answers
                })
            })
            .collect();
        let readers: Vec<_> = (0..READERS)
            .map(|_| {
                scope.spawn(|| {
                    let mut answers = Answers::default();
                    while Instant::now() < end {
                        let reply = server.get("/devices/").token(&account.token).send();
                        match reply.status {
                            200 => answers.reads += 1,
                            _ => answers.other.push(reply.to_string()),
                        }
                    }
                    answers
                })
            })
            .collect();
        let mut total = Answers::default();
        for client in logins.into_iter().chain(readers) {
            let answers = client.join().expect("a storm client");
            total.created += answers.created;
            total.busy += answers.busy;
            total.reads += answers.reads;
            total.other.extend(answers.other);
        }
        storming.store(false, Ordering::Relaxed);
        (sampler.join().expect("the sampler"), total)
    });

    assert!(answers.other.is_empty(), "unexpected answers: {answers:#?}");
    assert!(
        answers.created >= LOGINS && answers.created >= answers.busy,
        "most logins should have succeeded: {answers:?}"
    );
    assert!(answers.reads >= READERS, "{answers:?}");
    let high_water = status_kib(pid, "VmHWM");
    assert!(
        peak <= BOUND_KIB && high_water <= BOUND_KIB,
        "the server went over {BOUND_KIB} KiB: sampled peak {peak} KiB, high-water mark \
         {high_water} KiB (idle {idle} KiB) after {answers:?}\n{}",
        server.log()
    );
    // Nothing the storm left behind keeps growing: the hashing memory was
    // already there before it.
    let after = status_kib(pid, "VmRSS");
    assert!(
        after <= idle + 8 * 1024,
        "{after} KiB after the storm, {idle} KiB before it"
    );
}
