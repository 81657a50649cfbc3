//! From what a store observed of a monitor to what the engine decides:
//! the domain's rules applied to each device or to the fleet, with the
//! notices of the alerts that open or resolve.

use super::super::secrets::Secrets;
use crate::mail;
use crate::ports::{
    AlertNotice, AlertRecord, EventData, EventRecord, MonitorVerdict, MonitorWatch, Observation,
    OpenAlert, WatchedAlert,
};
use chrono::Duration;
use domain::alerting::{device_down_reason, fleet_reason, fleet_verdict, settle_device_alert};
use domain::{
    AlertId, AlertState, CalmVerdict, FleetVerdict, MonitorKind, Serial, Timestamp, WebhookEvent,
};

/// Decides verdicts at one moment.
pub(super) struct VerdictMaker<'a> {
    pub(super) now: Timestamp,
    pub(super) online_window: Duration,
    pub(super) secrets: &'a Secrets,
    pub(super) event_data: &'a dyn EventData,
}

impl VerdictMaker<'_> {
    /// What `watch`'s monitor does now.
    pub(super) fn decide(&self, watch: &MonitorWatch) -> MonitorVerdict {
        let mut verdict = MonitorVerdict {
            monitor: watch.monitor.id.clone(),
            owner: watch.owner,
            above_since: None,
            opened: Vec::new(),
            resolved: Vec::new(),
            calm: Vec::new(),
        };
        match (&watch.observed, watch.monitor.kind) {
            (Observation::Devices { down, open }, _) => {
                for device in down {
                    let reason =
                        device_down_reason(&device.name, device.last_seen, watch.monitor.after);
                    self.open(watch, &mut verdict, Some(device.serial.clone()), reason);
                }
                for watched in open {
                    self.settle_device(watch, &mut verdict, watched);
                }
            }
            (
                Observation::Fleet {
                    selected,
                    offline,
                    open,
                },
                MonitorKind::FleetOfflineRatio(ratio),
            ) => {
                let above = ratio.exceeded_by(*offline, *selected);
                let step = fleet_verdict(
                    above,
                    open.as_ref().map(|open| open.calm_since),
                    watch.above_since,
                    self.now,
                    watch.monitor.after.duration(),
                    self.online_window,
                );
                match (step, open) {
                    (FleetVerdict::Open, _) => {
                        let reason = fleet_reason(*offline, *selected, ratio, watch.monitor.after);
                        self.open(watch, &mut verdict, None, reason);
                    }
                    (FleetVerdict::Watch(since), _) => verdict.above_since = since,
                    (FleetVerdict::Alert(calm), Some(open)) => {
                        self.settle(watch, &mut verdict, open, calm);
                    }
                    (FleetVerdict::Alert(_), None) => {}
                }
            }
            (Observation::Fleet { .. }, MonitorKind::DeviceOffline) => {}
        }
        verdict
    }

    /// Whether `verdict` changes nothing that `watch` holds.
    pub(super) fn is_idle(watch: &MonitorWatch, verdict: &MonitorVerdict) -> bool {
        verdict.opened.is_empty()
            && verdict.resolved.is_empty()
            && verdict.calm.is_empty()
            && verdict.above_since == watch.above_since
    }

    fn settle_device(
        &self,
        watch: &MonitorWatch,
        verdict: &mut MonitorVerdict,
        watched: &WatchedAlert,
    ) {
        let calm = settle_device_alert(
            watched.device,
            watched.open.calm_since,
            self.now,
            self.online_window,
        );
        self.settle(watch, verdict, &watched.open, calm);
    }

    fn settle(
        &self,
        watch: &MonitorWatch,
        verdict: &mut MonitorVerdict,
        open: &OpenAlert,
        calm: CalmVerdict,
    ) {
        match calm {
            CalmVerdict::Resolve => {
                let alert = AlertRecord {
                    state: AlertState::Resolved,
                    resolved_time: Some(self.now),
                    ..open.alert.clone()
                };
                let notice = self.notice(watch, &alert, WebhookEvent::AlertResolved);
                verdict
                    .resolved
                    .push(crate::ports::AlertTransition { alert, notice });
            }
            CalmVerdict::Stay(since) if since != open.calm_since => {
                verdict.calm.push((open.alert.id.clone(), since));
            }
            CalmVerdict::Stay(_) => {}
        }
    }

    fn open(
        &self,
        watch: &MonitorWatch,
        verdict: &mut MonitorVerdict,
        serial: Option<Serial>,
        reason: String,
    ) {
        let alert = AlertRecord {
            id: AlertId::from_random_bytes(self.secrets.random_bytes()),
            monitor: watch.monitor.id.clone(),
            serial,
            state: AlertState::Open,
            started_time: self.now,
            resolved_time: None,
            reason,
        };
        let notice = self.notice(watch, &alert, WebhookEvent::AlertOpened);
        verdict
            .opened
            .push(crate::ports::AlertTransition { alert, notice });
    }

    /// How `alert`'s change is told: `None` while the monitor is snoozed.
    fn notice(
        &self,
        watch: &MonitorWatch,
        alert: &AlertRecord,
        event: WebhookEvent,
    ) -> Option<AlertNotice> {
        if watch
            .monitor
            .snoozed_until
            .is_some_and(|until| until > self.now)
        {
            return None;
        }
        let verb = match event {
            WebhookEvent::AlertOpened => "opened",
            _ => "resolved",
        };
        let subject = format!("Alert {verb}: {}", watch.monitor.name.as_str());
        Some(AlertNotice {
            mail: mail::alert(
                self.secrets.mint_mail_id(),
                &watch.owner_email,
                &subject,
                &alert.reason,
                alert.id.as_str(),
            ),
            event: EventRecord {
                event,
                time: self.now,
                data: self.event_data.alert(alert),
            },
        })
    }
}
