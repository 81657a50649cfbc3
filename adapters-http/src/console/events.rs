//! `/console/events/`: live updates as server-sent events. A stream
//! watches the account's fleet (and, with `?device=<serial>`, one device's
//! commands) and sends what changed: when someone announced a change (on
//! this instance or another on the same database), when a device goes
//! offline or a command lapses by time alone (foreseen, not polled), and at
//! least every 25 s. Nothing is sent when nothing changed, except a comment
//! now and then that keeps the connection open. The streams of one account
//! woken by one change share one read of the fleet; a stream ends with its
//! session. The fleet page's stream carries the page's filters in its query
//! (`?tag=lab&page=2`) and sends that view: the rows of its page, the
//! account's counts and the view's summary. A job's page streams with
//! `?job=<id>` (and its `&page=N`) and gets the job's status, counts and
//! targets of that page (`jobs_live.rs`); the Alerts page with `?alerts=1`
//! (and its filters) gets a version of its list (`alerts_live.rs`).

use super::alerts::AlertFilters;
use super::alerts_live::{alerts_state, watched_alerts};
use super::browser::Viewer;
use super::device::serial_of;
use super::failure::Failure;
use super::fleet_filters::FleetFilters;
use super::jobs_live::{WatchedJob, job_state};
use super::live::{DeviceState, LiveCommand, LiveDevice, SentFleet};
use super::notice_query::url_query_value;
use crate::state::HttpState;
use actix_web::http::header;
use actix_web::web::{self, Bytes, Data};
use actix_web::{HttpRequest, HttpResponse};
use application::ports::FleetListener;
use application::use_cases::DeviceView;
use domain::{Account, Serial, Timestamp};
use serde::Serialize;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// The longest a stream goes without looking at the fleet.
const REFRESH: Duration = Duration::from_secs(25);
/// After an announcement, how long more changes are gathered into one update.
const GATHER: Duration = Duration::from_millis(250);
/// How long after a foreseen change the stream looks (times are whole seconds).
const MARGIN: Duration = Duration::from_millis(100);

/// Mounts the event stream.
pub(super) fn mount(config: &mut web::ServiceConfig) {
    config.service(web::resource("/events/").route(web::get().to(stream)));
}

async fn stream(
    req: HttpRequest,
    state: Data<HttpState>,
    viewer: Viewer,
) -> Result<HttpResponse, Failure> {
    let device = url_query_value(req.query_string(), "device")
        .map(|raw| serial_of(&raw))
        .transpose()?;
    let job = WatchedJob::from_query(req.query_string())?;
    let alerts = watched_alerts(req.query_string());
    let watch = Watch {
        listener: state.app.watching.watch(&viewer.account),
        session: viewer.browser.session().unwrap_or_default().to_owned(),
        stopping: state.stopping(),
        state,
        account: viewer.account,
        device,
        job,
        alerts,
        filters: FleetFilters::from_query(req.query_string()),
        fleet: SentFleet::default(),
        last_device: None,
        woke: None,
        wait: REFRESH,
    };
    let events = futures_util::stream::unfold(watch, |mut watch| async move {
        let chunk = watch.next().await?;
        Some((Ok::<_, Infallible>(chunk), watch))
    });
    Ok(HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(events))
}

/// One open stream.
struct Watch {
    state: Data<HttpState>,
    account: Account,
    /// The console session's secret: the stream ends with the session.
    session: String,
    device: Option<Serial>,
    /// The job whose page this stream updates.
    job: Option<WatchedJob>,
    /// The Alerts page's filters, when this stream updates it.
    alerts: Option<AlertFilters>,
    /// The fleet page's filters and page (`?search=…&page=2`, as its URL).
    filters: FleetFilters,
    listener: Box<dyn FleetListener>,
    stopping: watch::Receiver<bool>,
    /// The fleet as last sent.
    fleet: SentFleet,
    /// The device (or job) event last sent.
    last_device: Option<String>,
    /// When the stream last woke (`None` before its first look).
    woke: Option<Instant>,
    /// How long the next wait for a change may take.
    wait: Duration,
}

impl Watch {
    /// The next chunk to send: an event when something changed, a comment
    /// after a quiet while; `None` once the server stops or the session ends.
    async fn next(&mut self) -> Option<Bytes> {
        loop {
            if *self.stopping.borrow() {
                return None;
            }
            let mut woke = Instant::now();
            if self.woke.is_some() {
                tokio::select! {
                    _ = self.listener.wait(self.wait) => {}
                    _ = self.stopping.changed() => return None,
                }
                let waited = woke.elapsed();
                woke = Instant::now();
                if waited < self.wait {
                    tokio::time::sleep(GATHER).await;
                }
            }
            self.woke = Some(woke);
            let (event, next_change) = match self.look().await {
                Ok(Some(looked)) => looked,
                Ok(None) => return None,
                Err(error) => {
                    tracing::warn!(%error, "a console event stream could not read the fleet");
                    self.wait = REFRESH;
                    continue;
                }
            };
            self.wait = self.until(next_change);
            if let Some(event) = event {
                return Some(Bytes::from(event));
            }
            if self.wait >= REFRESH {
                return Some(Bytes::from_static(b": still here\n\n"));
            }
        }
    }

    /// How long to wait for the next change: until `next_change` (a little
    /// after), at most [`REFRESH`].
    fn until(&self, next_change: Option<Timestamp>) -> Duration {
        let now = self.state.app.watching.now();
        next_change
            .and_then(|at| (at - now).to_std().ok())
            .map_or(REFRESH, |left| (left + MARGIN).min(REFRESH))
    }

    /// The event to send, if anything changed, and when the state next
    /// changes by time alone; `None` once the session has ended (logged
    /// out, here or everywhere, or idle too long).
    async fn look(
        &mut self,
    ) -> Result<Option<(Option<String>, Option<Timestamp>)>, application::StoreError> {
        let sessions = &self.state.app.sessions;
        if sessions.console_account(&self.session).await?.is_none() {
            return Ok(None);
        }
        let watching = &self.state.app.watching;
        let watched = match (&self.job, &self.alerts) {
            (Some(job), _) => Some(event(
                "job",
                &job_state(&self.state, &self.account, job).await?,
            )),
            (None, Some(alerts)) => Some(event(
                "alerts",
                &alerts_state(&self.state, &self.account, alerts).await?,
            )),
            (None, None) => None,
        };
        if let Some(event) = watched {
            if self.last_device.as_ref() == Some(&event) {
                return Ok(Some((None, None)));
            }
            self.last_device = Some(event.clone());
            return Ok(Some((Some(event), None)));
        }
        match self.device.clone() {
            None => {
                let views = self.fleet_views().await?;
                let update = self.fleet.update(&views, &self.filters);
                let next = watching.next_change(&views, &[]);
                Ok(Some((update.map(|update| event("fleet", &update)), next)))
            }
            Some(serial) => {
                let devices = &self.state.app.devices;
                let view = devices.get(&self.account, &serial).await?;
                let commands = match &view {
                    Some(view) => devices.commands_of(view).await?,
                    None => Vec::new(),
                };
                let views: Vec<DeviceView> = view.into_iter().collect();
                let state = DeviceState {
                    device: views.first().map(LiveDevice::of),
                    commands: commands.iter().map(LiveCommand::of).collect(),
                };
                let next = watching.next_change(&views, &commands);
                let event = event("device", &state);
                if self.last_device.as_ref() == Some(&event) {
                    return Ok(Some((None, next)));
                }
                self.last_device = Some(event.clone());
                Ok(Some((Some(event), next)))
            }
        }
    }

    /// The account's fleet, read since this stream woke: by this stream, or
    /// by another of the account's that woke for the same change.
    async fn fleet_views(&self) -> Result<Arc<Vec<DeviceView>>, application::StoreError> {
        let reads = &self.state.fleet_reads;
        let woke = self.woke.unwrap_or_else(Instant::now);
        if let Some(views) = reads.since(self.account.id, woke) {
            return Ok(views);
        }
        let started = Instant::now();
        let views = Arc::new(self.state.app.devices.list(&self.account).await?);
        reads.keep(self.account.id, started, Arc::clone(&views));
        Ok(views)
    }
}

/// A server-sent event: its name and one line of JSON.
fn event(name: &str, data: &impl Serialize) -> String {
    let json = serde_json::to_string(data).unwrap_or_else(|_| "null".to_owned());
    format!("event: {name}\ndata: {json}\n\n")
}
