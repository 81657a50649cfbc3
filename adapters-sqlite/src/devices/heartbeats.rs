//! Heartbeats written together: one transaction for every heartbeat that
//! arrived while the previous one committed (group commit).
//!
//! A fleet heartbeats all the time (100,000 devices every 30 s are over
//! 3,000 a second), and each heartbeat is a small write: as one transaction
//! each, their commits are the database's whole work. A thread of the
//! store's takes every heartbeat waiting, writes them in one transaction,
//! and answers each only once that transaction has committed, so an agent's
//! 200 still means its facts are stored. Nothing waits on purpose: a lone
//! heartbeat is written at once, a burst in as many transactions as it takes
//! to commit them.

use super::device_by_serial;
use crate::rows;
use application::StoreError;
use domain::{Amount, FactsReport, Serial, Timestamp};
use r2d2::Pool;
use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::{Connection, TransactionBehavior, params};
use std::sync::mpsc::{Receiver, Sender, channel};
use tokio::sync::oneshot;

/// Heartbeats written in one transaction at most.
const MOST_IN_ONE_COMMIT: usize = 512;

/// A heartbeat to write, and where to answer when it is written.
pub(crate) struct Heartbeat {
    pub(crate) serial: Serial,
    pub(crate) report: FactsReport,
    pub(crate) now: Timestamp,
    pub(crate) written: oneshot::Sender<Result<(), StoreError>>,
}

/// The way to the store's heartbeat writer; the writer thread ends once
/// every clone of this is dropped.
pub(crate) struct HeartbeatWriter {
    queue: Sender<Box<Heartbeat>>,
}

impl HeartbeatWriter {
    /// Starts the writer thread on connections of `pool`.
    pub(crate) fn start(pool: Pool<SqliteConnectionManager>) -> std::io::Result<Self> {
        let (queue, arrivals) = channel();
        std::thread::Builder::new()
            .name("sqlite-heartbeats".into())
            .spawn(move || write_as_they_come(&pool, &arrivals))?;
        Ok(Self { queue })
    }

    /// Queues `heartbeat`; hands it back if the writer has stopped.
    pub(crate) fn send(&self, heartbeat: Box<Heartbeat>) -> Result<(), Box<Heartbeat>> {
        self.queue.send(heartbeat).map_err(|e| e.0)
    }
}

/// The writer's loop: waits for a heartbeat, takes every other one waiting
/// (up to [`MOST_IN_ONE_COMMIT`]), writes them in one transaction, answers.
fn write_as_they_come(pool: &Pool<SqliteConnectionManager>, arrivals: &Receiver<Box<Heartbeat>>) {
    while let Ok(first) = arrivals.recv() {
        let mut batch = vec![*first];
        while batch.len() < MOST_IN_ONE_COMMIT {
            match arrivals.try_recv() {
                Ok(next) => batch.push(*next),
                Err(_) => break,
            }
        }
        let mut conn = match pool.get() {
            Ok(conn) => conn,
            Err(e) => {
                answer_all(batch, |_| {
                    Err(StoreError::new("record heartbeats", e.to_string()))
                });
                continue;
            }
        };
        if write_together(&mut conn, &batch).is_ok() {
            answer_all(batch, |_| Ok(()));
        } else {
            // One heartbeat failing fails none of the others: each is
            // written again on its own, and answered with its own outcome.
            answer_all(batch, |heartbeat| {
                write_together(&mut conn, [heartbeat])
                    .map_err(|e| StoreError::new("record heartbeat", e))
            });
        }
    }
}

/// Answers each heartbeat of `batch` with `outcome` of it. An agent that
/// went away meanwhile does not wait for its answer.
fn answer_all(
    batch: Vec<Heartbeat>,
    mut outcome: impl FnMut(&Heartbeat) -> Result<(), StoreError>,
) {
    for heartbeat in batch {
        let answer = outcome(&heartbeat);
        let _ = heartbeat.written.send(answer);
    }
}

/// Writes every heartbeat of `batch` in one transaction.
fn write_together<'a>(
    conn: &mut Connection,
    batch: impl IntoIterator<Item = &'a Heartbeat>,
) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    for heartbeat in batch {
        write_one(&tx, &heartbeat.serial, &heartbeat.report, heartbeat.now)?;
    }
    tx.commit()
}

/// A device's facts as a heartbeat leaves them, and the moment it was seen;
/// its ports replaced when the heartbeat reports them. A device deleted
/// meanwhile stays deleted.
pub(crate) fn write_one(
    conn: &Connection,
    serial: &Serial,
    report: &FactsReport,
    now: Timestamp,
) -> rusqlite::Result<()> {
    let Some(device) = device_by_serial(conn, serial)? else {
        return Ok(());
    };
    let mut facts = device.facts;
    facts.apply(report);
    conn.prepare_cached(
        "UPDATE devices SET agent_version = ?2, operating_system = ?3, uname = ?4, \
         machine_type = ?5, disk_capacity = ?6, disk_used = ?7, processor_speed = ?8, \
         ram_capacity = ?9, last_seen = ?10 WHERE serial = ?1",
    )?
    .execute(params![
        serial.as_str(),
        facts.agent_version.as_str(),
        facts.operating_system.as_str(),
        facts.uname.as_str(),
        facts.machine_type.code(),
        facts.disk_capacity.map(Amount::get),
        facts.disk_used.map(Amount::get),
        facts.processor_speed.get(),
        facts.ram_capacity.get(),
        rows::to_secs(now),
    ])?;
    if let Some(ports) = &report.ports {
        super::replace_ports(conn, serial, ports)?;
    }
    Ok(())
}
