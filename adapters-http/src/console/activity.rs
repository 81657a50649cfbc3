//! `/console/activity/`: the account's audit entries (docs/console.md,
//! Activity; what is recorded: docs/audit.md), newest first, 50 a page
//! (`?page=2`), filtered by action and by device in the URL
//! (`?action=device.reboot&device=<serial>`, a GET form). Each row says
//! when, who, what, on what (a link to a device the account still has) and
//! from which address.

use super::activity_views::{ActivityRow, short_serial};
use super::browser::Viewer;
use super::chrome::Chrome;
use super::failure::Failure;
use super::notice_query::url_query_value;
use super::paging::{Pager, page_of, read_within};
use super::respond::render;
use crate::state::HttpState;
use actix_web::http::StatusCode;
use actix_web::web::{self, Data};
use actix_web::{HttpRequest, HttpResponse};
use application::ports::AuditFilter;
use askama::Template;
use domain::{AuditAction, AuditTarget, Serial};
use std::collections::HashMap;

/// How many entries a page of the list shows.
pub(crate) const ACTIVITY_PAGE_SIZE: u32 = 50;
/// The page's address.
const PATH: &str = "/console/activity/";

/// Mounts the list.
pub(super) fn mount(config: &mut web::ServiceConfig) {
    config.service(web::resource("/activity/").route(web::get().to(show)));
}

/// The list's filters as its URL carries them; a value that means nothing
/// is no filter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ActivityFilters {
    pub(crate) action: Option<AuditAction>,
    /// The device whose entries (target `device:<serial>`) are shown.
    pub(crate) device: Option<Serial>,
    /// The page, from 1.
    pub(crate) page: u64,
}

impl ActivityFilters {
    /// The filters of a query string.
    pub(crate) fn from_query(query: &str) -> Self {
        let value = |name| url_query_value(query, name).unwrap_or_default();
        Self {
            action: AuditAction::parse(value("action").trim()).ok(),
            device: Serial::parse(value("device").trim()).ok(),
            page: page_of(query),
        }
    }

    /// `path` with the filters, on page `page`.
    pub(crate) fn url(&self, path: &str, page: u64) -> String {
        let mut pairs: Vec<(&str, &str)> = Vec::new();
        if let Some(action) = self.action {
            pairs.push(("action", action.as_str()));
        }
        if let Some(serial) = &self.device {
            pairs.push(("device", serial.as_str()));
        }
        let page = page.to_string();
        if page != "1" {
            pairs.push(("page", &page));
        }
        let query = serde_urlencoded::to_string(pairs).unwrap_or_default();
        if query.is_empty() {
            path.to_owned()
        } else {
            format!("{path}?{query}")
        }
    }

    /// The action field's value.
    pub(crate) fn action_code(&self) -> &'static str {
        self.action.map_or("", AuditAction::as_str)
    }

    /// The device field's value.
    pub(crate) fn device_code(&self) -> &str {
        self.device.as_ref().map_or("", Serial::as_str)
    }

    fn filter(&self) -> AuditFilter {
        AuditFilter {
            action: self.action.map(|action| action.as_str().to_owned()),
            target: self
                .device
                .as_ref()
                .map(|serial| AuditTarget::device(serial).as_str().to_owned()),
        }
    }
}

/// A device the filter offers: its serial and what the option says.
pub(crate) struct DeviceChoice {
    pub(crate) serial: String,
    pub(crate) label: String,
}

/// The account's devices for the filter, by name (a name two devices share
/// is told apart by the serial's start), and a filtered device the account
/// no longer has, by its serial.
fn device_choices(names: &HashMap<String, String>, filtered: Option<&Serial>) -> Vec<DeviceChoice> {
    let mut devices: Vec<(&String, &String)> = names.iter().collect();
    devices.sort_by(|a, b| (a.1.to_lowercase(), a.0).cmp(&(b.1.to_lowercase(), b.0)));
    let mut uses: HashMap<&String, usize> = HashMap::new();
    for (_, name) in &devices {
        *uses.entry(name).or_default() += 1;
    }
    let shared = |name: &String| uses.get(name).is_some_and(|&count| count > 1);
    let mut choices: Vec<DeviceChoice> = devices
        .iter()
        .map(|(serial, name)| DeviceChoice {
            serial: (*serial).clone(),
            label: if shared(name) {
                format!("{name} ({})", short_serial(serial))
            } else {
                (*name).clone()
            },
        })
        .collect();
    if let Some(serial) = filtered.filter(|serial| !names.contains_key(serial.as_str())) {
        choices.push(DeviceChoice {
            serial: serial.as_str().to_owned(),
            label: format!("{} (deleted)", serial.as_str()),
        });
    }
    choices
}

/// The Activity page.
#[derive(Template)]
#[template(path = "console/activity.html")]
pub(crate) struct ActivityPage {
    pub(crate) chrome: Chrome,
    pub(crate) filters: ActivityFilters,
    pub(crate) rows: Vec<ActivityRow>,
    /// Every action's name, for the filter.
    pub(crate) actions: Vec<&'static str>,
    /// The devices the filter offers.
    pub(crate) devices: Vec<DeviceChoice>,
    /// How many entries match.
    pub(crate) count: u64,
    /// The page, from 1.
    pub(crate) page: u64,
}

impl ActivityPage {
    /// Where the page stands in the list.
    fn pager(&self) -> Pager {
        Pager::new(self.page, self.count, ACTIVITY_PAGE_SIZE, |page| {
            self.filters.url(PATH, page)
        })
    }

    /// "120 entries. Showing 51–100."
    fn summary(&self) -> String {
        let mut text = match self.count {
            1 => "1 entry.".to_owned(),
            n => format!("{n} entries."),
        };
        if let Some(positions) = self.pager().positions(self.rows.len()) {
            text.push_str(&format!(" Showing {positions}."));
        }
        text
    }

    fn is_filtered(&self) -> bool {
        self.filters.action.is_some() || self.filters.device.is_some()
    }
}

/// The names of the account's devices, by serial.
pub(crate) async fn device_names(
    state: &HttpState,
    viewer: &Viewer,
) -> Result<HashMap<String, String>, Failure> {
    let views = state.app.devices.list(&viewer.account).await?;
    Ok(views
        .into_iter()
        .map(|view| {
            (
                view.device.serial.as_str().to_owned(),
                view.device.name.as_str().to_owned(),
            )
        })
        .collect())
}

async fn show(
    req: HttpRequest,
    state: Data<HttpState>,
    viewer: Viewer,
) -> Result<HttpResponse, Failure> {
    let mut filters = ActivityFilters::from_query(req.query_string());
    let audit = &state.app.audit;
    let filter = filters.filter();
    let account = &viewer.account;
    let (read, page) = read_within(filters.page, ACTIVITY_PAGE_SIZE, |window| {
        audit.page(account, &filter, window)
    })
    .await?;
    filters.page = page;
    let names = device_names(&state, &viewer).await?;
    let now = state.app.watching.now();
    let rows = read
        .entries
        .iter()
        .map(|entry| ActivityRow::of(entry, &names, now))
        .collect();
    let page = ActivityPage {
        chrome: viewer.browser.chrome("Activity", "activity"),
        devices: device_choices(&names, filters.device.as_ref()),
        actions: AuditAction::ALL
            .iter()
            .map(|action| action.as_str())
            .collect(),
        rows,
        count: read.count,
        page: filters.page,
        filters,
    };
    Ok(render(StatusCode::OK, &page, None))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_round_trip_and_nonsense_is_no_filter() {
        let serial = "1b2c3d4e-0a1b-4c2d-8e9f-0123456789ab";
        let filters =
            ActivityFilters::from_query(&format!("action=device.reboot&device={serial}&page=2"));
        assert_eq!(filters.action, Some(AuditAction::DeviceReboot));
        assert_eq!(filters.device_code(), serial);
        assert_eq!(
            filters.url(PATH, 3),
            format!("{PATH}?action=device.reboot&device={serial}&page=3")
        );
        assert_eq!(
            filters.filter(),
            AuditFilter {
                action: Some("device.reboot".into()),
                target: Some(format!("device:{serial}")),
            }
        );
        let nonsense = ActivityFilters::from_query("action=device.explode&device=&page=0");
        assert_eq!(nonsense.action, None);
        assert_eq!(nonsense.device, None);
        assert_eq!(nonsense.page, 1);
        assert_eq!(nonsense.url(PATH, 1), PATH);
        assert_eq!(nonsense.filter(), AuditFilter::default());
    }

    #[test]
    fn devices_are_offered_by_name_and_shared_names_told_apart() {
        let names = HashMap::from([
            ("bbbbbbbb-0000".to_owned(), "Pi".to_owned()),
            ("aaaaaaaa-0000".to_owned(), "Pi".to_owned()),
            ("cccccccc-0000".to_owned(), "office".to_owned()),
        ]);
        let gone = Serial::parse("dddddddd-0a1b-4c2d-8e9f-0123456789ab").unwrap();
        let labels: Vec<String> = device_choices(&names, Some(&gone))
            .into_iter()
            .map(|choice| choice.label)
            .collect();
        assert_eq!(
            labels,
            [
                "office",
                "Pi (aaaaaaaa…)",
                "Pi (bbbbbbbb…)",
                "dddddddd-0a1b-4c2d-8e9f-0123456789ab (deleted)"
            ]
        );
    }
}
