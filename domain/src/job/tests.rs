use super::*;
use crate::command::CommandState;

fn counts(pairs: &[(TargetStatus, u64)]) -> TargetCounts {
    pairs
        .iter()
        .fold(TargetCounts::default(), |counts, &(status, n)| {
            counts.with(status, n)
        })
}

fn ratio(value: f64) -> HaltFailureRatio {
    HaltFailureRatio::new(value).unwrap()
}

fn plan(targets: u64, wave_size: Option<u64>) -> WavePlan {
    WavePlan {
        targets,
        wave_size: wave_size.map(|size| WaveSize::new(size).unwrap()),
    }
}

#[test]
fn job_ids_are_lowercase_hyphenated_uuids_only() {
    let id = JobId::from_random_bytes([0xab; 16]);
    assert_eq!(JobId::parse(id.as_str()), Ok(id.clone()));
    assert_eq!(id.as_str().len(), 36);
    for raw in [
        id.as_str().to_uppercase(),
        id.as_str().replace('-', ""),
        format!("{{{id}}}"),
        format!("urn:uuid:{id}"),
        String::new(),
        "not-a-uuid".to_owned(),
    ] {
        assert_eq!(JobId::parse(&raw), Err(InvalidJobId), "{raw}");
    }
}

#[test]
fn job_statuses_round_trip_and_say_what_may_follow() {
    for status in JobStatus::ALL {
        assert_eq!(JobStatus::from_code(status.code()), Some(status));
    }
    assert_eq!(JobStatus::from_code("Running"), None);
    let cancellable: Vec<_> = JobStatus::ALL
        .into_iter()
        .filter(|s| s.can_cancel())
        .collect();
    assert_eq!(
        cancellable,
        [JobStatus::Scheduled, JobStatus::Running, JobStatus::Halted]
    );
    let resumable: Vec<_> = JobStatus::ALL
        .into_iter()
        .filter(|s| s.can_resume())
        .collect();
    assert_eq!(resumable, [JobStatus::Halted]);
    let finished: Vec<_> = JobStatus::ALL
        .into_iter()
        .filter(|s| s.is_finished())
        .collect();
    assert_eq!(finished, [JobStatus::Completed, JobStatus::Cancelled]);
}

#[test]
fn target_statuses_follow_their_command_and_say_when_they_ended() {
    for status in TargetStatus::ALL {
        assert_eq!(TargetStatus::from_code(status.code()), Some(status));
    }
    let pairs = [
        (CommandState::Pending, TargetStatus::Pending),
        (CommandState::Delivered, TargetStatus::Delivered),
        (CommandState::Received, TargetStatus::Received),
        (CommandState::Done, TargetStatus::Done),
        (CommandState::Failed, TargetStatus::Failed),
        (CommandState::Lapsed, TargetStatus::Lapsed),
    ];
    for (command, target) in pairs {
        assert_eq!(TargetStatus::of_command(command), target);
        assert_eq!(command.code(), target.code());
    }
    let ended: Vec<_> = TargetStatus::ALL
        .into_iter()
        .filter(|s| s.has_ended())
        .collect();
    assert_eq!(
        ended,
        [
            TargetStatus::Done,
            TargetStatus::Failed,
            TargetStatus::Lapsed,
            TargetStatus::Skipped
        ]
    );
}

#[test]
fn counts_keep_every_status_and_their_total() {
    let counts = counts(&[(TargetStatus::Waiting, 3), (TargetStatus::Done, 2)]);
    assert_eq!(counts.total(), 5);
    assert_eq!(counts.iter().count(), 8);
    assert_eq!(counts.get(TargetStatus::Waiting), 3);
    assert_eq!(counts.get(TargetStatus::Skipped), 0);
    assert!(!counts.all_ended());
    assert!(TargetCounts::default().all_ended());
}

#[test]
fn the_failure_ratio_is_failed_and_lapsed_over_finished() {
    assert_eq!(TargetCounts::default().failure_ratio(), 0.0);
    assert_eq!(counts(&[(TargetStatus::Skipped, 4)]).failure_ratio(), 0.0);
    let wave = counts(&[
        (TargetStatus::Done, 2),
        (TargetStatus::Failed, 1),
        (TargetStatus::Lapsed, 1),
        (TargetStatus::Skipped, 6),
    ]);
    assert_eq!(wave.failure_ratio(), 0.5);
    assert_eq!(counts(&[(TargetStatus::Lapsed, 3)]).failure_ratio(), 1.0);
}

#[test]
fn targets_fall_into_waves_in_list_order() {
    let three = plan(7, Some(3));
    let waves: Vec<_> = (0..7).map(|i| three.wave_of(i)).collect();
    assert_eq!(waves, [1, 1, 1, 2, 2, 2, 3]);
    assert_eq!(three.waves(), 3);
    assert_eq!(plan(6, Some(3)).waves(), 2);
    assert_eq!(plan(5, None).waves(), 1);
    assert_eq!(plan(5, None).wave_of(4), 1);
    assert_eq!(plan(0, Some(3)).waves(), 0);
    assert_eq!(plan(0, None).waves(), 0);
    assert!(three.is_last(3) && !three.is_last(2));
}

#[test]
fn a_wave_that_has_not_ended_decides_nothing() {
    let plan = plan(4, Some(2));
    for unfinished in [
        TargetStatus::Waiting,
        TargetStatus::Pending,
        TargetStatus::Delivered,
        TargetStatus::Received,
    ] {
        let wave = counts(&[(TargetStatus::Failed, 1), (unfinished, 1)]);
        assert_eq!(WaveVerdict::decide(1, &plan, &wave, ratio(0.5)), None);
    }
}

#[test]
fn a_wave_halts_only_when_its_ratio_is_greater_than_the_threshold() {
    let plan = plan(4, Some(2));
    let half = counts(&[(TargetStatus::Done, 1), (TargetStatus::Lapsed, 1)]);
    assert_eq!(
        WaveVerdict::decide(1, &plan, &half, ratio(0.5)),
        Some(WaveVerdict::NextWave)
    );
    assert_eq!(
        WaveVerdict::decide(1, &plan, &half, ratio(0.49)),
        Some(WaveVerdict::Halt)
    );
    let none_finished = counts(&[(TargetStatus::Skipped, 2)]);
    assert_eq!(
        WaveVerdict::decide(1, &plan, &none_finished, ratio(0.0)),
        Some(WaveVerdict::NextWave)
    );
    let all_failed = counts(&[(TargetStatus::Failed, 2)]);
    assert_eq!(
        WaveVerdict::decide(1, &plan, &all_failed, ratio(1.0)),
        Some(WaveVerdict::NextWave)
    );
}

#[test]
fn the_last_wave_completes_the_job_whatever_failed() {
    let plan = plan(4, Some(2));
    let all_failed = counts(&[(TargetStatus::Failed, 2)]);
    assert_eq!(
        WaveVerdict::decide(2, &plan, &all_failed, ratio(0.0)),
        Some(WaveVerdict::Complete)
    );
    let empty = super::WavePlan {
        targets: 0,
        wave_size: None,
    };
    assert_eq!(
        WaveVerdict::decide(0, &empty, &TargetCounts::default(), ratio(0.5)),
        Some(WaveVerdict::Complete)
    );
}

#[test]
fn settings_are_bounded() {
    assert!(WaveSize::new(0).is_err());
    assert_eq!(WaveSize::new(1).unwrap().get(), 1);
    assert_eq!(WaveSize::new(100_000).unwrap().get(), MAX_WAVE_SIZE);
    assert!(WaveSize::new(100_001).is_err());
    assert_eq!(WaveInterval::new(0).unwrap().seconds(), 0);
    assert_eq!(
        WaveInterval::new(86_400).unwrap().duration().num_seconds(),
        86_400
    );
    assert!(WaveInterval::new(86_401).is_err());
    assert!(HaltFailureRatio::new(-0.01).is_err());
    assert!(HaltFailureRatio::new(1.01).is_err());
    assert!(HaltFailureRatio::new(f64::NAN).is_err());
    assert_eq!(HaltFailureRatio::default().get(), 0.5);
    let defaults = JobSettings::default();
    assert_eq!(defaults.wave_size, None);
    assert_eq!(defaults.wave_interval.seconds(), 0);
    assert_eq!(defaults.halt_failure_ratio.get(), 0.5);
}
