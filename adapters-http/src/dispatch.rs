//! The one entry point of every request. It applies the conventions of
//! `docs/api.md` (Conventions) in DRF's order: trailing-slash redirect, 404, authentication,
//! OPTIONS, permission, 405, throttling, body parsing; then hands the request
//! to the endpoint, whose typed extractors read what was found here.

use crate::auth::{self, Presented, Scheme};
use crate::body;
use crate::error::ApiError;
use crate::extract::{Access, Caller, JsonObject, PathParams};
use crate::fields::actions_entry;
use crate::routes::{self, Route};
use crate::state::HttpState;
use actix_web::http::{Method, header};
use actix_web::web::{Data, Payload};
use actix_web::{HttpMessage, HttpRequest, HttpResponse, ResponseError};
use futures_util::FutureExt;
use serde_json::{Map, Value, json};
use std::panic::AssertUnwindSafe;
use std::time::Instant;

/// Logs one line per request: method, path (never the query string, nor a
/// key in the path: both may carry keys), status and duration.
pub async fn dispatch(req: HttpRequest, payload: Payload, state: Data<HttpState>) -> HttpResponse {
    let started = Instant::now();
    let (method, path) = (req.method().clone(), loggable_path(req.path()));
    let response = match AssertUnwindSafe(serve(req, payload, state))
        .catch_unwind()
        .await
    {
        Ok(Ok(response)) => response,
        Ok(Err(error)) => error.error_response(),
        Err(_) => ApiError::Internal("handler panicked".into()).error_response(),
    };
    tracing::info!(
        %method,
        path,
        status = response.status().as_u16(),
        micros = started.elapsed().as_micros() as u64,
        "request"
    );
    response
}

/// The path as logged: the route's pattern instead when the path carries a
/// key (the link of a verification mail, `/verify-email/{key}/`).
fn loggable_path(path: &str) -> String {
    match routes::find(path) {
        Some((route, _)) if route.pattern.contains("{key}") => route.pattern.to_owned(),
        _ => path.to_owned(),
    }
}

async fn serve(
    req: HttpRequest,
    payload: Payload,
    state: Data<HttpState>,
) -> Result<HttpResponse, ApiError> {
    let path = req.path().to_owned();
    let Some((route, params)) = routes::find(&path) else {
        return redirect_to_slash(&req, &path);
    };
    let scheme = route.scheme();
    let caller = authenticate(&req, &state, scheme).await?;
    let method = req.method().clone();
    if method == Method::OPTIONS {
        return Ok(options(route));
    }
    let Some(endpoint) = route.endpoint(&method) else {
        if route.is_protected() && caller.account.is_none() && caller.device.is_none() {
            return Err(scheme.not_provided());
        }
        return Err(ApiError::MethodNotAllowed {
            method: method.to_string(),
            allow: route.allow(),
        });
    };
    let allowed = match endpoint.access {
        Access::Public => true,
        Access::User => caller.account.is_some(),
        Access::Device => caller.device.is_some(),
    };
    if !allowed {
        return Err(scheme.not_provided());
    }
    if endpoint.throttled
        && let Some(throttle) = &state.throttle
    {
        throttle.check(&req).map_err(ApiError::Throttled)?;
    }
    let body = if endpoint.takes_body() {
        let bytes = body::read_limited(&req, payload).await?;
        body::parse_object(&req, &bytes)?
    } else {
        Map::new()
    };
    {
        let mut extensions = req.extensions_mut();
        extensions.insert(caller);
        extensions.insert(PathParams(params));
        extensions.insert(JsonObject(body));
    }
    Ok(endpoint.call(req, actix_web::dev::Payload::None).await)
}

/// 301 to `path/` when that is a route (query string kept); 404 otherwise.
fn redirect_to_slash(req: &HttpRequest, path: &str) -> Result<HttpResponse, ApiError> {
    let with_slash = format!("{path}/");
    if path.ends_with('/') || routes::find(&with_slash).is_none() {
        return Err(ApiError::NotFound);
    }
    let location = match req.uri().query() {
        Some(query) => format!("{with_slash}?{query}"),
        None => with_slash,
    };
    Ok(HttpResponse::MovedPermanently()
        .insert_header((header::LOCATION, location))
        .finish())
}

/// Validates the credentials of the route's scheme. Only a malformed or
/// unknown token of that scheme is an error; other schemes are ignored.
async fn authenticate(
    req: &HttpRequest,
    state: &HttpState,
    scheme: Scheme,
) -> Result<Caller, ApiError> {
    let Presented::Token(token) = auth::presented(req, scheme)? else {
        return Ok(Caller::default());
    };
    match scheme {
        Scheme::Token => match state.app.sessions.authenticate(&token).await? {
            Some(account) => Ok(Caller {
                account: Some(account),
                token: Some(token),
                device: None,
            }),
            None => Err(scheme.invalid_token()),
        },
        Scheme::Device => match state.app.fleet.authenticate(&token).await? {
            Some(device) => Ok(Caller {
                device: Some(device),
                ..Caller::default()
            }),
            None => Err(scheme.invalid_token()),
        },
    }
}

/// The OPTIONS answer: `Allow` and DRF's metadata.
fn options(route: &Route) -> HttpResponse {
    let actions: Map<String, Value> = route
        .endpoints
        .iter()
        .filter_map(|e| {
            e.fields
                .map(|fields| (e.method.to_string(), actions_entry(fields)))
        })
        .collect();
    HttpResponse::Ok()
        .insert_header((header::ALLOW, route.allow()))
        .json(json!({
            "name": route.name,
            "description": route.description,
            "renders": ["application/json"],
            "parses": ["application/json"],
            "actions": actions,
        }))
}
