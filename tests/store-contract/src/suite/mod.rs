//! The contract tests, one module per subject, each test a generic
//! `pub async fn name(store: impl Store)` of the ports alone; [`suite!`](crate::suite!)
//! runs them all on the stores of one adapter.

pub mod accounts;
pub mod audit_accounts;
pub mod audit_chain;
pub mod audit_devices;
pub mod audit_jobs;
pub mod audit_pages;
pub mod command_listeners;
pub mod command_outcomes;
pub mod commands;
pub mod console_sessions;
pub mod device_enrolment;
pub mod device_pages;
pub mod device_queries;
pub mod device_query_model;
pub mod device_reports;
pub mod device_retags;
pub mod device_tags;
pub mod devices;
pub mod fleet_signals;
pub mod fleet_versions;
pub mod jobs_lifecycle;
pub mod jobs_owners;
pub mod jobs_races;
pub mod jobs_settling;
pub mod jobs_waves;
pub mod keys;
pub mod login_attempts;
pub mod monitors_mail;
pub mod monitors_owners;
pub mod monitors_verdicts;
pub mod monitors_watch;
pub mod outbox;
pub mod probe;
pub mod reboot_commands;
pub mod webhooks_deliveries;
pub mod webhooks_owners;

/// Generates, in the crate that invokes it (a storage adapter's test crate),
/// one `#[tokio::test]` per contract test, in a module per subject (so tests
/// are named `<subject>::<test>`), each opening a fresh store with `open`,
/// running the test on it and keeping the store's scratch files until the
/// test ends. Any attributes given after `open` are put on every test.
///
/// `open` is an `async fn() -> Opened<S>` (with `S:` [`Store`](crate::Store))
/// of the invoking module; the tests need `tokio` among the crate's
/// dev-dependencies.
///
/// ```text
/// async fn fresh() -> store_contract::Opened<MyStore> { /* … */ }
/// store_contract::suite!(fresh, #[ignore = "needs a server"]);
/// ```
///
/// This is the one list of the contract: a test added to a module of
/// [`suite`](mod@crate::suite) is added here too (a unit test checks it).
#[macro_export]
macro_rules! suite {
    ($open:path $(, #[$attribute:meta])* $(,)?) => {
        $crate::suite!(@list tests ($open, [$(#[$attribute])*]));
    };
    // The arms below are internal: the one list of the contract, handed to
    // `@tests` (the tests of an adapter) or `@names` (for the unit test).
    (@list $mode:ident $arguments:tt) => {
        $crate::suite! { @$mode $arguments {
            accounts {
                accounts_are_unique_ignoring_case_and_created_with_their_token,
                concurrent_creations_of_one_address_make_one_account,
                tokens_are_revoked_one_by_one,
                every_token_of_an_account_is_revoked_at_once,
                a_new_install_token_replaces_the_old_one,
                names_passwords_and_keys_are_updated,
                an_install_token_finds_its_account,
            }
            audit_accounts {
                an_account_created_is_recorded_once,
                profile_changes_are_recorded_when_they_change_something,
                sign_ins_and_outs_are_recorded_when_they_happen,
                a_completed_reset_is_recorded_once,
            }
            audit_chain {
                a_mix_of_changes_makes_one_unbroken_chain,
                a_standalone_note_is_recorded_as_sealed,
                the_log_reads_in_id_order_a_batch_at_a_time,
                purging_keeps_a_checkpoint_and_the_chain_goes_on,
                concurrent_changes_make_one_sequence,
            }
            audit_devices {
                devices_created_installed_and_deleted_are_recorded_once,
                an_update_names_the_fields_whose_value_changed,
                a_retag_records_each_device_whose_tags_change,
                a_reboot_names_the_command_queued_or_joined,
            }
            audit_jobs {
                job_changes_are_recorded_when_they_happen,
                a_job_completing_is_recorded_when_given_its_note,
                monitor_and_webhook_changes_are_recorded_when_they_happen,
            }
            audit_pages {
                a_page_holds_the_owners_entries_newest_first,
                filters_keep_the_entries_equal_to_their_values,
            }
            command_listeners {
                a_queued_reboot_wakes_a_listener_made_before_it,
                a_queued_reboot_wakes_a_wait_in_progress,
                a_reboot_of_another_device_does_not_wake_a_listener,
                a_listener_times_out_when_nothing_is_queued,
                deleting_a_device_wakes_its_listeners,
            }
            command_outcomes {
                the_history_shows_the_newest_first_with_what_became_of_each,
                received_then_failed_keeps_the_failure,
                purging_forgets_commands_issued_before_the_cut,
                an_acknowledgement_is_recorded_once_for_the_devices_own_command,
                an_acknowledged_command_is_not_handed_out_later,
            }
            commands {
                due_commands_are_handed_out_oldest_first_and_again_until_acknowledged,
                redelivered_commands_come_oldest_first,
                the_last_unacknowledged_delivery_tells_when_one_is_due_again,
                a_pending_reboot_is_queued_once_until_it_lapses,
                concurrent_reboots_queue_one_command,
                a_reboot_is_queued_once_until_the_last_one_ends_or_lapses,
                commands_issued_at_or_before_the_lapse_are_not_handed_out,
                commands_of_other_devices_are_not_handed_out,
                racing_polls_hand_out_each_command_exactly_once,
                racing_reboots_queue_exactly_one_command,
            }
            console_sessions {
                an_open_session_finds_its_account,
                a_session_last_used_at_or_before_idle_after_is_expired,
                a_session_is_marked_used_only_when_its_last_use_is_older_than_touch_before,
                closing_a_session_leaves_the_others,
                closing_every_session_of_an_account_leaves_other_accounts,
                purging_forgets_sessions_idle_since_before_the_cut,
            }
            device_enrolment {
                an_online_device_is_not_rekeyed,
                enrolling_a_new_serial_creates_a_bare_device,
                enrolling_a_new_serial_keeps_the_machine_type_sent,
                enrolling_again_rekeys_and_renames_but_keeps_everything_else,
                a_serial_of_another_account_cannot_enrol,
                a_device_created_without_a_token_is_enrolled_by_its_owner,
                racing_enrolments_of_a_new_serial_make_one_device,
            }
            device_pages {
                each_ordering_breaks_ties_by_creation_then_serial,
                a_page_holds_its_window_and_counts_every_match,
            }
            device_queries {
                each_criterion_alone_selects_the_devices_it_names,
                criteria_combine_and_every_one_must_hold,
                the_search_ignores_case_and_takes_percent_and_underscore_literally,
                serials_of_another_account_or_unknown_match_nothing,
                another_accounts_devices_are_never_selected_or_counted,
            }
            device_query_model {
                random_queries_agree_with_the_reference,
                random_retags_agree_with_the_reference,
            }
            device_reports {
                ports_are_empty_until_reported_and_hidden_from_other_accounts,
                reported_ports_are_listed_ascending_and_replaced_only_when_sent,
                a_heartbeat_sets_last_seen_and_applies_the_report,
                a_heartbeat_of_a_deleted_or_unknown_device_is_ignored,
                racing_heartbeats_are_each_stored,
            }
            device_retags {
                a_retag_removes_then_adds_on_the_selected_devices_only,
                a_retag_past_twenty_tags_changes_nothing,
                a_retag_never_changes_another_accounts_devices,
                racing_retags_each_land_whole,
                racing_retags_past_twenty_tags_are_all_or_nothing,
            }
            device_tags {
                every_read_holds_the_devices_tags,
                an_update_replaces_the_tags_only_when_it_gives_them,
                tags_are_counted_by_name_over_the_accounts_devices,
                a_deleted_device_takes_its_tags_along,
            }
            devices {
                devices_are_listed_in_order_and_foreign_ones_are_invisible,
                racing_creations_of_one_serial_make_one_device,
                an_update_changes_only_the_fields_given,
                an_update_of_a_foreign_or_missing_device_changes_nothing,
                a_deleted_device_goes_with_its_token_ports_and_commands,
                deleting_a_device_of_another_account_keeps_it,
            }
            fleet_signals {
                an_announcement_wakes_a_watcher_of_the_account,
                an_announcement_for_another_account_does_not_wake,
                an_announcement_is_heard_once_and_only_by_earlier_watchers,
                a_watch_times_out_when_nothing_is_announced,
            }
            fleet_versions {
                every_change_of_an_accounts_devices_moves_its_version,
            }
            jobs_lifecycle {
                a_running_job_gets_its_targets_in_list_order_and_waves,
                a_job_over_a_selection_targets_only_the_selected_devices,
                a_scheduled_job_gets_its_targets_when_it_begins_and_begins_once,
                the_engine_sees_due_scheduled_and_running_jobs_only,
            }
            jobs_owners {
                cancelling_skips_the_waiting_targets_and_keeps_the_commands_given,
                resuming_runs_a_halted_job_again_with_its_next_wave_due,
                jobs_are_listed_newest_first_a_page_at_a_time,
                targets_are_read_a_page_at_a_time,
                counts_hold_every_status,
            }
            jobs_races {
                racing_starts_of_a_wave_start_it_once,
                racing_settlements_of_a_wave_settle_it_once,
                racing_beginnings_of_a_scheduled_job_begin_it_once,
                racing_cancellations_cancel_once,
            }
            jobs_settling {
                a_settled_wave_keeps_its_statuses,
                each_settlement_leaves_the_job_as_it_says,
                a_settlement_needs_the_running_jobs_current_wave,
                deleting_a_device_skips_its_unended_target_and_keeps_an_ended_one,
                purging_commands_keeps_the_statuses_of_their_targets,
            }
            jobs_waves {
                a_wave_gives_new_commands_with_the_ids_given_and_wakes_their_devices,
                a_wave_joins_reboots_under_way_and_skips_deleted_devices,
                a_wave_starts_once_when_it_is_next_and_due,
                target_statuses_follow_their_commands,
            }
            keys {
                a_verification_key_works_until_it_expires_even_when_used,
                keys_only_work_for_their_purpose,
                a_reset_sets_the_password_verifies_and_ends_every_reset_key,
                an_expired_reset_key_opens_nothing,
                racing_resets_with_one_key_succeed_once,
                racing_resets_with_different_keys_of_one_account_succeed_once,
                a_reset_ends_every_api_token_and_replaces_the_install_token,
                at_most_five_reset_keys_are_outstanding_and_a_sixth_ends_the_oldest,
                a_password_change_ends_every_reset_key,
                purging_forgets_expired_keys_only,
            }
            login_attempts {
                the_last_allowed_attempt_is_admitted_and_locks_the_address,
                old_attempts_are_forgotten_and_success_clears_them,
                racing_attempts_admit_exactly_the_maximum,
            }
            monitors_mail {
                ten_mails_then_a_digest_per_window,
                a_digest_is_sent_once,
                digest_lines_outlive_their_monitor,
            }
            monitors_owners {
                monitors_are_listed_newest_first_a_page_at_a_time,
                another_accounts_monitors_and_alerts_are_untouchable,
                a_snooze_is_set_and_ended,
                alerts_are_listed_newest_first_and_filtered,
                a_deleted_monitor_takes_its_alerts_along,
            }
            monitors_verdicts {
                an_alert_opens_once_per_device_while_open,
                an_alert_resolves_once,
                a_verdict_for_a_deleted_or_foreign_monitor_does_nothing,
                a_snoozed_transition_tells_nothing,
                events_go_to_the_owners_subscribed_webhooks_only,
                racing_verdicts_open_and_tell_once,
            }
            monitors_watch {
                down_devices_are_seen_silent_and_without_an_open_alert,
                a_monitors_selector_picks_its_down_devices,
                open_alerts_come_with_their_devices_now,
                a_fleet_monitor_counts_selected_and_offline_devices,
            }
            outbox {
                mail_is_queued_with_its_change_and_claimed_once_per_lease,
                failed_mail_waits_for_its_retry_and_delivered_mail_is_gone,
                racing_workers_claim_each_mail_once,
                committing_mail_wakes_the_worker,
                storing_a_key_wakes_the_worker,
                mail_queued_before_the_wait_ends_it,
                waiting_for_mail_ends_at_its_timeout,
            }
            probe {
                a_ping_succeeds,
                an_empty_store_counts_nothing,
                the_census_counts_devices_commands_by_state_and_waiting_mail,
                a_heartbeat_at_online_after_is_offline,
                a_command_issued_at_lapsed_before_counts_as_lapsed,
            }
            reboot_commands {
                a_queued_reboot_returns_its_new_command,
                a_reboot_under_way_is_joined_and_returned,
                a_command_is_found_only_through_its_own_device_and_owner,
            }
            webhooks_deliveries {
                deliveries_are_claimed_in_order_under_a_lease,
                an_attempt_is_recorded_and_releases_the_delivery,
                racing_workers_claim_each_delivery_once,
                a_settled_jobs_event_is_queued_with_its_settlement,
            }
            webhooks_owners {
                webhooks_are_listed_newest_first_a_page_at_a_time,
                a_ping_is_queued_for_its_webhook_alone,
                another_accounts_webhooks_are_untouchable,
                a_deleted_webhook_takes_its_deliveries_along,
            }
        }}
    };
    (@tests $arguments:tt { $($subject:ident { $($test:ident,)+ })+ }) => {
        $(
            mod $subject {
                #[allow(unused_imports)]
                use super::*;
                $( $crate::suite!(@test $arguments, $subject, $test); )+
            }
        )+
    };
    (@test ($open:path, [$(#[$attribute:meta])*]), $subject:ident, $test:ident) => {
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        $(#[$attribute])*
        async fn $test() {
            let opened = $open().await;
            $crate::suite::$subject::$test(::std::clone::Clone::clone(&*opened)).await;
        }
    };
    (@names () { $($subject:ident { $($test:ident,)+ })+ }) => {
        [$($(concat!(stringify!($subject), "::", stringify!($test)),)+)+]
    };
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    /// Every `pub async fn` of the files of `src/suite/` is in [`suite!`]'s
    /// list, and the list names nothing else.
    #[test]
    fn the_macro_lists_every_test_of_the_suite() {
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/suite");
        let mut defined = BTreeSet::new();
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            let subject = path.file_stem().unwrap().to_str().unwrap().to_owned();
            let source = std::fs::read_to_string(&path).unwrap();
            for line in source.lines() {
                if let Some(rest) = line.strip_prefix("pub async fn ") {
                    let name = rest.split(['(', '<']).next().unwrap();
                    defined.insert(format!("{subject}::{name}"));
                }
            }
        }
        let listed: BTreeSet<String> = crate::suite!(@list names ())
            .into_iter()
            .map(String::from)
            .collect();
        let unlisted: Vec<_> = defined.difference(&listed).collect();
        let unknown: Vec<_> = listed.difference(&defined).collect();
        assert!(
            unlisted.is_empty() && unknown.is_empty(),
            "missing from suite!'s list: {unlisted:?}; listed but not in src/suite: {unknown:?}"
        );
    }
}
