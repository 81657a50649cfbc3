//! The API's dispatcher: the default service of the app, for every path no
//! page or probe took. It applies what must come before a handler's
//! extractors, in DRF's order (`docs/api.md`, Conventions): the
//! trailing-slash redirect, 404, an invalid token (401, on any route),
//! OPTIONS, 401 before 405, 405, throttling. The endpoint's own extractors
//! then read the caller, the path and the body themselves.

use crate::body::PARSES;
use crate::error::ApiError;
use crate::extract::{Access, authenticate, state};
use crate::fields::actions_entry;
use crate::route_table::{self, Route};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::{Method, header};
use actix_web::{HttpRequest, HttpResponse, ResponseError};
use futures_util::FutureExt;
use serde_json::{Map, Value, json};
use std::panic::AssertUnwindSafe;
use std::time::Instant;

/// Serves one request. Logs one line per request: method, path (never the
/// query string, nor a key in the path: both may carry keys), status and
/// duration.
pub(crate) async fn dispatch(mut req: ServiceRequest) -> Result<ServiceResponse, actix_web::Error> {
    let started = Instant::now();
    let route = route_table::find(req.path());
    let (method, path) = (req.method().clone(), loggable_path(route, req.path()));
    if let Some(route) = route {
        route.capture(req.match_info_mut());
    }
    let (http_request, payload) = req.into_parts();
    let response = match AssertUnwindSafe(serve(&http_request, payload, route))
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
    Ok(ServiceResponse::new(http_request, response))
}

/// The path as logged: the route's pattern instead when the path carries a
/// key (the link of a verification mail, `/verify-email/{key}/`).
fn loggable_path(route: Option<&Route>, path: &str) -> String {
    match route {
        Some(route) if route.pattern.contains("{key}") => route.pattern.to_owned(),
        _ => path.to_owned(),
    }
}

async fn serve(
    req: &HttpRequest,
    payload: actix_web::dev::Payload,
    route: Option<&'static Route>,
) -> Result<HttpResponse, ApiError> {
    let Some(route) = route else {
        return redirect_to_slash(req);
    };
    let scheme = route.scheme();
    let caller = authenticate(req, scheme).await?;
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
        && let Some(throttle) = &state(req)?.throttle
    {
        throttle.check(req).map_err(ApiError::Throttled)?;
    }
    Ok(endpoint.call(req.clone(), payload).await)
}

/// 301 to `path/` when that is a route (query string kept); 404 otherwise.
fn redirect_to_slash(req: &HttpRequest) -> Result<HttpResponse, ApiError> {
    let path = req.path();
    let with_slash = format!("{path}/");
    if path.ends_with('/') || route_table::find(&with_slash).is_none() {
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
            "parses": PARSES,
            "actions": actions,
        }))
}
