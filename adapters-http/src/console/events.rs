//! `/console/events/`: live updates as server-sent events. A stream
//! watches the account's fleet (and, with `?device=<serial>`, one device's
//! commands) and sends the new state whenever it changed: when someone
//! announced a change (on this instance or another on the same database),
//! when a device goes offline or a command lapses by time alone (foreseen,
//! not polled), and at least every 25 s. Nothing is sent when nothing
//! changed, except a comment now and then that keeps the connection open.

use super::browser::Viewer;
use super::device::serial_of;
use super::failure::Failure;
use super::notice_query::url_query_value;
use crate::state::HttpState;
use actix_web::http::header;
use actix_web::web::{self, Bytes, Data};
use actix_web::{HttpRequest, HttpResponse};
use application::ports::FleetListener;
use application::use_cases::{CommandView, DeviceView};
use domain::{Account, Serial, Timestamp};
use serde::Serialize;
use std::convert::Infallible;
use std::time::Duration;
use tokio::sync::watch;

/// The longest a stream goes without looking at the fleet.
const REFRESH: Duration = Duration::from_secs(25);
/// After a wake-up, how long more changes are gathered into one update.
const GATHER: Duration = Duration::from_millis(250);

/// Mounts the event stream.
pub(super) fn mount(config: &mut web::ServiceConfig) {
    config.service(web::resource("/events/").route(web::get().to(stream)));
}

/// A device as live updates send it (times as RFC 3339; pages word them).
#[derive(Serialize, PartialEq)]
struct LiveDevice {
    serial: String,
    name: String,
    description: String,
    online: bool,
    machine_type: &'static str,
    last_seen: Option<String>,
}

impl LiveDevice {
    fn of(view: &DeviceView) -> Self {
        let device = &view.device;
        Self {
            serial: device.serial.as_str().to_owned(),
            name: device.name.as_str().to_owned(),
            description: device.description.as_str().to_owned(),
            online: view.online,
            machine_type: device.facts.machine_type.display_name(),
            last_seen: device.last_seen.map(super::time::machine),
        }
    }
}

/// A command as live updates send it.
#[derive(Serialize, PartialEq)]
struct LiveCommand {
    id: String,
    action: &'static str,
    status: &'static str,
    issued: String,
    delivered: Option<String>,
    acked: Option<String>,
    detail: String,
}

impl LiveCommand {
    fn of(view: &CommandView) -> Self {
        let record = &view.record;
        let time = |at: Option<Timestamp>| at.map(super::time::machine);
        Self {
            id: record.command.id.as_str().to_owned(),
            action: record.command.action.code(),
            status: view.state.code(),
            issued: super::time::machine(record.command.issued_time),
            delivered: time(record.delivered_time),
            acked: time(record.acked_time),
            detail: record.detail.as_str().to_owned(),
        }
    }
}

/// The fleet's state, as the `fleet` event sends it.
#[derive(Serialize)]
struct FleetState {
    online: usize,
    offline: usize,
    devices: Vec<LiveDevice>,
}

/// One device's state, as the `device` event sends it (`device` is null
/// once it is deleted).
#[derive(Serialize)]
struct DeviceState {
    device: Option<LiveDevice>,
    commands: Vec<LiveCommand>,
}

async fn stream(
    req: HttpRequest,
    state: Data<HttpState>,
    viewer: Viewer,
) -> Result<HttpResponse, Failure> {
    let device = url_query_value(req.query_string(), "device")
        .map(|raw| serial_of(&raw))
        .transpose()?;
    let watch = Watch {
        listener: state.app.watching.watch(&viewer.account),
        session: viewer.browser.session().unwrap_or_default().to_owned(),
        stopping: state.stopping(),
        state,
        account: viewer.account,
        device,
        last: None,
        started: false,
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
    listener: Box<dyn FleetListener>,
    stopping: watch::Receiver<bool>,
    /// The last event sent.
    last: Option<String>,
    started: bool,
    /// How long the next wait for a change may take.
    wait: Duration,
}

impl Watch {
    /// The next chunk to send: an event when the state changed, a comment
    /// after a quiet while; `None` once the server stops.
    async fn next(&mut self) -> Option<Bytes> {
        loop {
            if *self.stopping.borrow() {
                return None;
            }
            if self.started {
                tokio::select! {
                    _ = self.listener.wait(self.wait) => {}
                    _ = self.stopping.changed() => return None,
                }
                tokio::time::sleep(GATHER).await;
            }
            self.started = true;
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
            if self.last.as_ref() != Some(&event) {
                self.last = Some(event.clone());
                return Some(Bytes::from(event));
            }
            if self.wait >= REFRESH {
                return Some(Bytes::from_static(b": still here\n\n"));
            }
        }
    }

    /// How long to wait for the next change: until `next_change` (a little
    /// after: times are whole seconds), at most [`REFRESH`].
    fn until(&self, next_change: Option<Timestamp>) -> Duration {
        let now = self.state.app.watching.now();
        next_change
            .and_then(|at| (at - now).to_std().ok())
            .map_or(REFRESH, |left| {
                (left + Duration::from_millis(500)).min(REFRESH)
            })
    }

    /// The current state as an event, and when it next changes by time
    /// alone; `None` once the session has ended (logged out, everywhere or
    /// here, or idle too long).
    async fn look(&self) -> Result<Option<(String, Option<Timestamp>)>, application::StoreError> {
        let sessions = &self.state.app.sessions;
        if sessions.console_account(&self.session).await?.is_none() {
            return Ok(None);
        }
        let devices = &self.state.app.devices;
        let watching = &self.state.app.watching;
        match &self.device {
            None => {
                let views = devices.list(&self.account).await?;
                let online = views.iter().filter(|view| view.online).count();
                let state = FleetState {
                    online,
                    offline: views.len() - online,
                    devices: views.iter().map(LiveDevice::of).collect(),
                };
                Ok(Some((
                    event("fleet", &state),
                    watching.next_change(&views, &[]),
                )))
            }
            Some(serial) => {
                let view = devices.get(&self.account, serial).await?;
                let commands = devices
                    .commands(&self.account, serial)
                    .await?
                    .unwrap_or_default();
                let views: Vec<DeviceView> = view.into_iter().collect();
                let state = DeviceState {
                    device: views.first().map(LiveDevice::of),
                    commands: commands.iter().map(LiveCommand::of).collect(),
                };
                let next = watching.next_change(&views, &commands);
                Ok(Some((event("device", &state), next)))
            }
        }
    }
}

/// A server-sent event: its name and one line of JSON.
fn event(name: &str, data: &impl Serialize) -> String {
    let json = serde_json::to_string(data).unwrap_or_else(|_| "null".to_owned());
    format!("event: {name}\ndata: {json}\n\n")
}
