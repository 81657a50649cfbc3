//! What `POST /jobs/` reads (`docs/api.md`, "Jobs"): the action, the
//! selector, when to start and how to run the waves, every failing field at
//! once; and the empty body of a cancel or a resume.

use crate::fields::selector::selector_json;
use crate::fields::{Field, FieldType, Form, FromForm, Rejected, ToForm};
use application::use_cases::JobRequest;
use domain::job::{MAX_WAVE_INTERVAL_SECONDS, MAX_WAVE_SIZE};
use domain::time::format_api;
use domain::{Action, HaltFailureRatio, JobSettings, WaveInterval, WaveSize};
use serde_json::{Map, Value};

/// `action`: what each target is given.
pub(super) const ACTION: Field = Field {
    kind: FieldType::Choice,
    ..Field::text("action", "Action").choices(&Action::CODES)
};
/// `selector`: which devices.
pub(super) const SELECTOR: Field = Field::selector("selector", "Selector");
/// `start_time`: when to start (absent, null or past: now).
pub(super) const START_TIME: Field = Field::datetime("start_time", "Start time")
    .optional()
    .nullable();
/// `wave_size`: targets per wave (absent or null: one wave).
pub(super) const WAVE_SIZE: Field = Field::integer("wave_size", "Wave size")
    .optional()
    .nullable()
    .range(1, MAX_WAVE_SIZE as i64);
/// `wave_interval_seconds`: the pause between waves.
pub(super) const WAVE_INTERVAL: Field =
    Field::integer("wave_interval_seconds", "Wave interval seconds")
        .optional()
        .range(0, MAX_WAVE_INTERVAL_SECONDS as i64);
/// `halt_failure_ratio`: the failure ratio above which a wave halts the job.
pub(super) const HALT_FAILURE_RATIO: Field =
    Field::float("halt_failure_ratio", "Halt failure ratio")
        .optional()
        .range(0, 1);

/// A new job's body.
pub struct JobBody(pub JobRequest);

impl FromForm for JobBody {
    const FIELDS: &'static [Field] = &[
        ACTION,
        SELECTOR,
        START_TIME,
        WAVE_SIZE,
        WAVE_INTERVAL,
        HALT_FAILURE_RATIO,
    ];

    fn from_form(form: &mut Form) -> Result<Self, Rejected> {
        let action = form.choice(&ACTION, Action::from_code);
        let selector = form.shown_selector(&SELECTOR);
        let start_time = form.optional_nullable_datetime(&START_TIME);
        let wave_size =
            form.optional_nullable_integer::<u64>(&WAVE_SIZE)
                .and_then(|size| match size.flatten() {
                    None => Ok(None),
                    Some(size) => WaveSize::new(size)
                        .map(Some)
                        .map_err(|bounds| form.error(WAVE_SIZE.name, bounds.to_string())),
                });
        let wave_interval = form
            .optional_integer::<u64>(&WAVE_INTERVAL)
            .and_then(|seconds| {
                WaveInterval::new(seconds.unwrap_or(0))
                    .map_err(|bounds| form.error(WAVE_INTERVAL.name, bounds.to_string()))
            });
        let ratio = form.optional_float(&HALT_FAILURE_RATIO).and_then(|ratio| {
            ratio.map_or(Ok(HaltFailureRatio::DEFAULT), |ratio| {
                HaltFailureRatio::new(ratio)
                    .map_err(|bounds| form.error(HALT_FAILURE_RATIO.name, bounds.to_string()))
            })
        });
        let (selector, selector_json) = selector?;
        Ok(Self(JobRequest {
            action: action?,
            selector_json,
            selector,
            start_time: start_time?,
            settings: JobSettings {
                wave_size: wave_size?,
                wave_interval: wave_interval?,
                halt_failure_ratio: ratio?,
            },
        }))
    }
}

impl ToForm for JobBody {
    fn to_form(&self) -> Map<String, Value> {
        let request = &self.0;
        let settings = request.settings;
        let mut form = Map::new();
        let mut put = |field: &Field, value: Value| form.insert(field.name.to_owned(), value);
        put(&ACTION, request.action.code().into());
        put(
            &SELECTOR,
            serde_json::from_str(&request.selector_json)
                .unwrap_or_else(|_| selector_json(&request.selector)),
        );
        if let Some(start) = request.start_time {
            put(&START_TIME, format_api(start).into());
        }
        if let Some(size) = settings.wave_size {
            put(&WAVE_SIZE, size.get().into());
        }
        put(&WAVE_INTERVAL, settings.wave_interval.seconds().into());
        put(
            &HALT_FAILURE_RATIO,
            settings.halt_failure_ratio.get().into(),
        );
        form
    }
}

/// The body of a cancel or a resume: none (a JSON object or a form is read
/// and ignored, as every write route reads one).
pub struct NoBody;

impl FromForm for NoBody {
    const FIELDS: &'static [Field] = &[];

    fn from_form(_: &mut Form) -> Result<Self, Rejected> {
        Ok(Self)
    }
}

impl ToForm for NoBody {
    fn to_form(&self) -> Map<String, Value> {
        Map::new()
    }
}
