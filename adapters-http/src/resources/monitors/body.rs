//! What `POST /monitors/` and a snooze read (`docs/api.md`, "Monitors and
//! alerts"), every failing field at once. `after_seconds` is bounded below
//! by the server's online window, so a monitor's body is read with it:
//! [`MonitorBody::read`] (the API's [`ValidMonitor`], and the console's
//! forms).

use crate::error::ApiError;
use crate::extract::{Extractor, Needs};
use crate::fields::selector::selector_json;
use crate::fields::{Field, FieldType, Form, FromForm, Rejected, ToForm};
use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest};
use application::use_cases::MonitorRequest;
use domain::alerting::MAX_AFTER_SECONDS;
use domain::time::format_api;
use domain::{AfterSeconds, MonitorKind, MonitorKindCode, MonitorName, OfflineRatio, Timestamp};
use futures_util::future::LocalBoxFuture;
use serde_json::{Map, Value};

/// The kinds of monitor, as the API writes them.
pub(crate) const KIND_CODES: [&str; 2] = [
    MonitorKindCode::DeviceOffline.code(),
    MonitorKindCode::FleetOfflineRatio.code(),
];

/// `name`: 1–100 characters, not blank.
pub(crate) const NAME: Field = Field::bounded::<MonitorName>("name", "Name");
/// `kind`: what the monitor watches for.
pub(crate) const KIND: Field = Field {
    kind: FieldType::Choice,
    ..Field::text("kind", "Kind").choices(&KIND_CODES)
};
/// `selector`: which devices, resolved at each evaluation.
pub(crate) const SELECTOR: Field = Field::selector("selector", "Selector");
/// `after_seconds`: from the server's online window (at least 1 s on any
/// server, as documented here) to a week.
pub(crate) const AFTER_SECONDS: Field =
    Field::integer("after_seconds", "After seconds").range(1, MAX_AFTER_SECONDS as i64);
/// `ratio`: the offline share a fleet monitor tolerates (required for
/// `fleet_offline_ratio`, ignored for `device_offline`).
pub(crate) const RATIO: Field = Field::float("ratio", "Ratio").optional().range(0, 1);
/// `until`: the end of a snooze (`null`: none).
pub(crate) const UNTIL: Field = Field::datetime("until", "Until").nullable();

/// A new monitor's body.
pub struct MonitorBody(pub MonitorRequest);

impl MonitorBody {
    /// Reads every field, `after_seconds` from `least_after` (the server's
    /// online window: `Monitors::least_after_seconds`) to a week.
    pub(crate) fn read(form: &mut Form, least_after: u32) -> Result<Self, Rejected> {
        let name = form.checked::<MonitorName>(&NAME);
        let kind = form.choice(&KIND, MonitorKindCode::parse);
        let selector = form.shown_selector(&SELECTOR);
        let after_field = Field {
            minimum: Some(i64::from(least_after)),
            ..AFTER_SECONDS
        };
        let after = form.integer::<u32>(&after_field).and_then(|seconds| {
            AfterSeconds::new(u64::from(seconds), least_after)
                .map_err(|_| form.error(AFTER_SECONDS.name, "A valid integer is required."))
        });
        let kind = match kind {
            Ok(MonitorKindCode::DeviceOffline) => Ok(MonitorKind::DeviceOffline),
            Ok(MonitorKindCode::FleetOfflineRatio) => {
                read_ratio(form).map(MonitorKind::FleetOfflineRatio)
            }
            Err(rejected) => {
                // A ratio sent beside a bad kind gets its own errors too.
                form.optional_float(&RATIO).ok();
                Err(rejected)
            }
        };
        let (selector, selector_json) = selector?;
        Ok(Self(MonitorRequest {
            name: name?,
            kind: kind?,
            selector_json,
            selector,
            after: after?,
        }))
    }
}

/// A fleet monitor's ratio: required, a number from 0 to 1.
fn read_ratio(form: &mut Form) -> Result<OfflineRatio, Rejected> {
    let ratio = form.optional_float(&RATIO)?;
    let ratio = ratio.ok_or_else(|| form.error(RATIO.name, "This field is required."))?;
    OfflineRatio::new(ratio).map_err(|_| form.error(RATIO.name, "A valid number is required."))
}

impl FromForm for MonitorBody {
    const FIELDS: &'static [Field] = &[NAME, KIND, SELECTOR, AFTER_SECONDS, RATIO];

    /// Reads the body with the least `after_seconds` any server accepts;
    /// the API reads it with its own ([`ValidMonitor`]).
    fn from_form(form: &mut Form) -> Result<Self, Rejected> {
        let least = AFTER_SECONDS.minimum.unwrap_or(1);
        Self::read(form, u32::try_from(least).unwrap_or(1))
    }
}

impl ToForm for MonitorBody {
    fn to_form(&self) -> Map<String, Value> {
        let request = &self.0;
        let mut form = Map::new();
        let mut put = |field: &Field, value: Value| form.insert(field.name.to_owned(), value);
        put(&NAME, request.name.as_str().into());
        put(&KIND, request.kind.code().code().into());
        put(
            &SELECTOR,
            serde_json::from_str(&request.selector_json)
                .unwrap_or_else(|_| selector_json(&request.selector)),
        );
        put(&AFTER_SECONDS, request.after.seconds().into());
        if let Some(ratio) = request.kind.ratio() {
            put(&RATIO, ratio.get().into());
        }
        form
    }
}

/// A new monitor's body, read with the server's online window as the least
/// `after_seconds`.
pub struct ValidMonitor(pub MonitorRequest);

impl FromRequest for ValidMonitor {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let (req, payload) = (req.clone(), payload.take());
        Box::pin(async move {
            let least = crate::extract::state(&req)?
                .app
                .monitors
                .least_after_seconds();
            let object = crate::body::read_object(&req, payload, MonitorBody::FIELDS).await?;
            let mut form = Form::new(object);
            match (MonitorBody::read(&mut form, least), form.has_errors()) {
                (Ok(MonitorBody(request)), false) => Ok(Self(request)),
                _ => Err(form.into()),
            }
        })
    }
}

impl Extractor for ValidMonitor {
    const NEEDS: Needs = Needs {
        fields: Some(MonitorBody::FIELDS),
        ..Needs::NOTHING
    };
}

/// A snooze's body: until when (`None`: end the snooze).
pub struct SnoozeBody(pub Option<Timestamp>);

impl FromForm for SnoozeBody {
    const FIELDS: &'static [Field] = &[UNTIL];

    fn from_form(form: &mut Form) -> Result<Self, Rejected> {
        form.nullable_datetime(&UNTIL).map(Self)
    }
}

impl ToForm for SnoozeBody {
    fn to_form(&self) -> Map<String, Value> {
        let until = self.0.map_or(Value::Null, |until| format_api(until).into());
        crate::fields::form_of([(&UNTIL, until)])
    }
}
