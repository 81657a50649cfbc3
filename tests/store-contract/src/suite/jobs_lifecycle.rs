//! Fleet jobs from creation to their start: targets resolved once, in list
//! order and waves; scheduled jobs begun once; what the engine sees.

use crate::{
    Store, account, counts, engine_view, fleet_of, fleet_serial, in_waves, job_id, matching,
    minutes, new_job, online_after, running_job, t0,
};
use application::ports::{ActiveJob, JobRecord, TargetRecord};
use domain::{Action, Criteria, JobStatus, Selector, Tag, TargetCounts, TargetStatus};

/// A running job's targets are the selected devices in list order, with
/// their names, in waves of its size, all waiting; it is shown as created.
pub async fn a_running_job_gets_its_targets_in_list_order_and_waves(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    let fleet = fleet_of(&store, ann.id, 1, 5).await;
    fleet_of(&store, bob.id, 10, 2).await;
    let mut settings = in_waves(Some(2));
    settings.wave_interval = domain::WaveInterval::new(30).unwrap();
    settings.halt_failure_ratio = domain::HaltFailureRatio::new(0.1).unwrap();
    let job = new_job(ann.id, "j1", Selector::All, settings, t0(), None);
    store
        .create_job(
            &job,
            online_after(),
            &crate::noted(domain::AuditAction::JobCreate),
        )
        .await
        .unwrap();

    let page = crate::all_targets(&store, ann.id, &job.id, t0()).await;
    let expected: Vec<TargetRecord> = fleet
        .iter()
        .enumerate()
        .map(|(i, serial)| TargetRecord {
            serial: serial.clone(),
            name: crate::text(&format!("pi-{}", i + 1)),
            wave: u32::try_from(i / 2 + 1).unwrap(),
            command_id: None,
            status: TargetStatus::Waiting,
            detail: crate::text(""),
        })
        .collect();
    assert_eq!(page, expected);

    let record = store
        .find_job(ann.id, &job.id, t0())
        .await
        .unwrap()
        .unwrap();
    let shown = JobRecord {
        id: job.id.clone(),
        action: Action::Reboot,
        selector_json: "{\"label\": \"j1\"}".into(),
        settings,
        status: JobStatus::Running,
        start_time: t0(),
        created_time: t0(),
        finished_time: None,
        counts: counts(&[(TargetStatus::Waiting, 5)]),
    };
    assert_eq!(record, shown);
    assert_eq!(record.settings.halt_failure_ratio.get(), 0.1, "exactly");

    let engine = engine_view(&store, &job.id, t0()).await;
    let expected = ActiveJob {
        id: job.id.clone(),
        owner: ann.id,
        status: JobStatus::Running,
        settings,
        start_time: t0(),
        targets: 5,
        current_wave: 0,
        next_wave_time: Some(t0()),
        wave_counts: TargetCounts::default(),
    };
    assert_eq!(engine, Some(expected));
}

/// Only the devices the selector selects become targets; none at all is
/// a running job without targets, one wave of nothing.
pub async fn a_job_over_a_selection_targets_only_the_selected_devices(store: impl Store) {
    let ann = account(&store, "ann").await;
    let mut devices: Vec<_> = (1..=4)
        .map(|n| {
            let tags: &[&str] = if n % 2 == 0 { &["lab"] } else { &[] };
            crate::fleet_device(ann.id, n, &format!("pi-{n}"), "", tags, Some(t0()), 0)
        })
        .collect();
    devices[3].last_seen = None;
    crate::create_devices(&store, &devices).await;
    let lab = matching(Criteria {
        tags: vec![Tag::parse("lab").unwrap()],
        online: Some(true),
        ..Criteria::default()
    });
    let job = new_job(ann.id, "lab", lab, in_waves(None), t0(), None);
    store
        .create_job(
            &job,
            online_after(),
            &crate::noted(domain::AuditAction::JobCreate),
        )
        .await
        .unwrap();
    let serials: Vec<_> = crate::all_targets(&store, ann.id, &job.id, t0())
        .await
        .into_iter()
        .map(|target| (target.serial, target.wave))
        .collect();
    assert_eq!(serials, [(fleet_serial(2), 1)], "tagged lab and online");

    let nothing = matching(Criteria {
        tags: vec![Tag::parse("none").unwrap()],
        ..Criteria::default()
    });
    let empty = new_job(ann.id, "empty", nothing, in_waves(Some(3)), t0(), None);
    store
        .create_job(
            &empty,
            online_after(),
            &crate::noted(domain::AuditAction::JobCreate),
        )
        .await
        .unwrap();
    assert!(
        crate::all_targets(&store, ann.id, &empty.id, t0())
            .await
            .is_empty()
    );
    let engine = engine_view(&store, &empty.id, t0()).await.unwrap();
    assert_eq!(
        (engine.status, engine.targets, engine.current_wave),
        (JobStatus::Running, 0, 0)
    );
    assert_eq!(engine.next_wave_time, Some(t0()));
}

/// A scheduled job has no targets until it begins; it begins once, its
/// targets resolved as the fleet then stands, its first wave due then.
pub async fn a_scheduled_job_gets_its_targets_when_it_begins_and_begins_once(store: impl Store) {
    let ann = account(&store, "ann").await;
    let start = t0() + minutes(30);
    let job = new_job(
        ann.id,
        "later",
        Selector::All,
        in_waves(Some(1)),
        t0(),
        Some(start),
    );
    store
        .create_job(
            &job,
            online_after(),
            &crate::noted(domain::AuditAction::JobCreate),
        )
        .await
        .unwrap();
    fleet_of(&store, ann.id, 1, 2).await;

    let record = store
        .find_job(ann.id, &job.id, t0())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(record.status, JobStatus::Scheduled);
    assert_eq!(record.start_time, start);
    assert_eq!(record.counts, TargetCounts::default());
    let engine = engine_view(&store, &job.id, t0()).await.unwrap();
    assert_eq!((engine.status, engine.targets), (JobStatus::Scheduled, 0));
    assert!(
        crate::all_targets(&store, ann.id, &job.id, t0())
            .await
            .is_empty()
    );

    let begun_at = start + minutes(1);
    assert!(
        store
            .begin_job(&job.id, begun_at, online_after())
            .await
            .unwrap()
    );
    assert!(
        !store
            .begin_job(&job.id, begun_at, online_after())
            .await
            .unwrap(),
        "a job begins once"
    );
    assert!(
        !store
            .begin_job(&job_id("unknown"), begun_at, online_after())
            .await
            .unwrap()
    );
    let engine = engine_view(&store, &job.id, begun_at).await.unwrap();
    assert_eq!(
        (
            engine.status,
            engine.targets,
            engine.current_wave,
            engine.next_wave_time
        ),
        (JobStatus::Running, 2, 0, Some(begun_at))
    );
    assert_eq!(
        engine.start_time, start,
        "the start time stays as scheduled"
    );
    let waves: Vec<u32> = crate::all_targets(&store, ann.id, &job.id, begun_at)
        .await
        .iter()
        .map(|target| target.wave)
        .collect();
    assert_eq!(waves, [1, 2]);
}

/// The engine sees scheduled jobs whose start time has come and running
/// ones, of every account, and nothing else.
pub async fn the_engine_sees_due_scheduled_and_running_jobs_only(store: impl Store) {
    let ann = account(&store, "ann").await;
    let bob = account(&store, "bob").await;
    fleet_of(&store, ann.id, 1, 1).await;
    let soon = new_job(
        ann.id,
        "soon",
        Selector::All,
        in_waves(None),
        t0(),
        Some(t0() + minutes(1)),
    );
    let later = new_job(
        ann.id,
        "later",
        Selector::All,
        in_waves(None),
        t0(),
        Some(t0() + minutes(9)),
    );
    for job in [&soon, &later] {
        store
            .create_job(
                job,
                online_after(),
                &crate::noted(domain::AuditAction::JobCreate),
            )
            .await
            .unwrap();
    }
    let running = running_job(&store, bob.id, "running", None).await;
    let cancelled = running_job(&store, ann.id, "cancelled", None).await;
    store
        .cancel_job(
            ann.id,
            &cancelled,
            t0(),
            &crate::noted(domain::AuditAction::JobCancel),
        )
        .await
        .unwrap();

    let at = t0() + minutes(1);
    let seen: Vec<_> = store
        .active_jobs(at, at - crate::lapse())
        .await
        .unwrap()
        .into_iter()
        .map(|job| job.id)
        .collect::<Vec<_>>();
    let mut seen = seen;
    seen.sort();
    let mut expected = vec![soon.id.clone(), running.clone()];
    expected.sort();
    assert_eq!(seen, expected);

    assert!(
        engine_view(&store, &later.id, at).await.is_some(),
        "scheduled"
    );
    assert_eq!(engine_view(&store, &cancelled, at).await, None, "cancelled");
    assert_eq!(engine_view(&store, &job_id("unknown"), at).await, None);
}
