//! The plans SQLite makes of the job statements, on a migrated database
//! without statistics (as every database is): a wave's targets are read as
//! a run of their job's key, new commands are driven by their ids, a page
//! of targets or jobs is read in its order, and keeping statuses reads only
//! the targets still read through their commands.

use super::{keep, reads, waves};
use crate::query_plans::{database, has_line, plan_of};

#[test]
fn a_waves_statements_read_its_run_of_positions_by_key() {
    let (_dir, conn) = database();
    let range = "SEARCH job_targets USING PRIMARY KEY (job_id=? AND position>? AND position<?)";
    for text in [waves::SKIP_GONE, waves::JOIN_UNFINISHED, waves::ASSIGN_NEW] {
        let plan = plan_of(&conn, text);
        assert_eq!(
            plan.first().map(String::as_str),
            Some(range),
            "{text}: {plan:#?}"
        );
    }
    let plan = plan_of(&conn, &waves::keep_wave());
    assert!(has_line(
        &plan,
        "SEARCH t USING PRIMARY KEY (job_id=? AND position>? AND position<?)"
    ));
    assert!(
        has_line(&plan, "SEARCH c USING PRIMARY KEY (id=?) LEFT-JOIN"),
        "{plan:#?}"
    );
    for text in [waves::START_WAVE, waves::SETTLE_JOB] {
        assert_eq!(
            plan_of(&conn, text),
            ["SEARCH jobs USING PRIMARY KEY (id=?)"]
        );
    }
}

#[test]
fn new_commands_are_driven_by_their_ids_each_finding_its_target_by_key() {
    let (_dir, conn) = database();
    let plan = plan_of(&conn, waves::GIVE_NEW);
    assert_eq!(
        &plan[..2],
        [
            "SCAN ids VIRTUAL TABLE INDEX 1:",
            "SEARCH t USING PRIMARY KEY (job_id=? AND position=?)"
        ],
        "{plan:#?}"
    );
    assert!(
        plan.iter().any(|line| line
            .starts_with("SEARCH c USING COVERING INDEX device_commands_history (serial=?)")),
        "{plan:#?}"
    );
}

#[test]
fn counts_and_pages_read_by_key_and_in_order() {
    let (_dir, conn) = database();
    let counts = plan_of(&conn, &reads::counts_statement());
    assert!(
        has_line(&counts, "SEARCH t USING PRIMARY KEY (job_id=?)"),
        "{counts:#?}"
    );
    assert!(
        has_line(&counts, "SEARCH c USING PRIMARY KEY (id=?) LEFT-JOIN"),
        "{counts:#?}"
    );
    let wave = plan_of(&conn, &reads::wave_counts_statement());
    assert!(
        has_line(
            &wave,
            "SEARCH t USING PRIMARY KEY (job_id=? AND position>? AND position<?)"
        ),
        "the current wave's run only: {wave:#?}"
    );
    assert_eq!(
        plan_of(&conn, &reads::targets_statement()),
        [
            "SEARCH t USING PRIMARY KEY (job_id=?)",
            "SEARCH c USING PRIMARY KEY (id=?) LEFT-JOIN"
        ],
        "a page stops after its window, without sorting"
    );
    assert_eq!(
        plan_of(&conn, &reads::list_statement()),
        ["SEARCH jobs USING INDEX jobs_by_account (account_id=?)"]
    );
    let active = plan_of(&conn, &reads::active_statement(reads::DUE));
    assert!(
        has_line(&active, "SEARCH jobs USING INDEX jobs_active (status=?)"),
        "{active:#?}"
    );
}

#[test]
fn keeping_statuses_reads_only_targets_still_read_through_commands() {
    let (_dir, conn) = database();
    let device = plan_of(&conn, keep::KEEP_ENDED_OF_DEVICE);
    assert!(
        has_line(
            &device,
            "SEARCH job_targets USING INDEX job_targets_unkept_by_serial (serial=?)"
        ),
        "{device:#?}"
    );
    let purged = plan_of(&conn, keep::KEEP_PURGED);
    let targets: Vec<&String> = purged
        .iter()
        .filter(|line| line.contains(" job_targets"))
        .collect();
    assert_eq!(
        targets,
        ["SCAN job_targets USING INDEX job_targets_unkept_by_serial"],
        "the targets still read through their commands only: {purged:#?}"
    );
    assert!(
        has_line(&purged, "SEARCH c USING PRIMARY KEY (id=?)"),
        "{purged:#?}"
    );
}
