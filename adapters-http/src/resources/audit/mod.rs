//! The audit log: the recorded changes to the account and to its devices,
//! jobs, monitors and webhooks, deleted ones' too (`docs/api.md`, "Audit
//! log"; what is recorded and how the chain is hashed: `docs/audit.md`).
//! Read only: the changes themselves write the entries.

mod json;
mod query;

pub use json::{AUDIT_ENTRY_SCHEMA, AUDIT_PAGE_SCHEMA, AuditEntryJson};
pub use query::AuditQuery;

use crate::answer::Json;
use crate::description::Tag;
use crate::error::ApiError;
use crate::extract::{BaseUrl, Query, User};
use crate::resources::lists::{PAGING, Page};
use crate::route::Route;
use crate::state::HttpState;
use actix_web::HttpRequest;
use actix_web::web::Data;
use application::ports::AuditPage;

/// The routes of this resource.
pub fn routes() -> Vec<Route> {
    let list = PAGING.into_iter().chain(query::FILTERS).fold(
        Route::new(
            Tag::Audit,
            "/audit/",
            "Audit Entry List",
            "The audit log of the account: the entries about it and about its devices,\njobs, monitors and webhooks (deleted ones' too), newest first, a page at a\ntime (`limit`, default 100, and `offset`), only those of one action\n(`action`) or about one target (`target`) when asked.",
        ),
        Route::parameter,
    );
    vec![list.get(
        "listAuditEntries",
        "List the account's audit entries",
        list_entries,
    )]
}

/// `GET /audit/`: a page of the account's entries that match, newest first.
async fn list_entries(
    state: Data<HttpState>,
    user: User,
    req: HttpRequest,
    BaseUrl(base): BaseUrl,
    Query(query): Query<AuditQuery>,
) -> Result<Json<Page<AuditEntryJson>>, ApiError> {
    let page = match &query.filter {
        Some(filter) => {
            state
                .app
                .audit
                .page(&user.account, filter, query.window)
                .await?
        }
        None => AuditPage {
            count: 0,
            entries: Vec::new(),
        },
    };
    let entries = page.entries.iter().map(AuditEntryJson::from).collect();
    Ok(Json(Page::new(
        &req,
        &base,
        query.window,
        page.count,
        entries,
    )))
}
