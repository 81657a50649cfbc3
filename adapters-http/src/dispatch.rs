//! The API's dispatcher: the default service of the app, for every path no
//! page or probe took. It applies what must come before a handler's
//! extractors, in DRF's order (`docs/api.md`, Conventions): the
//! trailing-slash redirect, 404, an invalid token (401, on any route),
//! OPTIONS, 401 before 405, 405, permissions (closed registration),
//! throttling. The endpoint's own extractors then read the caller, the path
//! and the body themselves.

use crate::body::PARSES;
use crate::error::ApiError;
use crate::extract::{Access, authenticate, state};
use crate::fields::actions_entry;
use crate::observe::ServedBy;
use crate::route::Endpoint;
use crate::route_table::{self, Route};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::HeaderMap;
use actix_web::http::{Method, header};
use actix_web::{HttpMessage, HttpRequest, HttpResponse, ResponseError};
use futures_util::FutureExt;
use serde_json::{Map, Value, json};
use std::panic::AssertUnwindSafe;

/// Serves one request; tells the request log ([`crate::observe`]) which
/// route served it.
pub(crate) async fn dispatch(mut req: ServiceRequest) -> Result<ServiceResponse, actix_web::Error> {
    let found = route_table::find(req.path()).map(|route| (route, route.endpoint(req.method())));
    if let Some((route, endpoint)) = found {
        route.capture(req.match_info_mut());
        if endpoint.is_some_and(|endpoint| endpoint.waits) {
            fit_headers(req.headers_mut());
        }
    }
    let (http_request, payload) = req.into_parts();
    let response = match AssertUnwindSafe(serve(&http_request, payload, found))
        .catch_unwind()
        .await
    {
        Ok(Ok(response)) => response,
        Ok(Err(error)) => error.error_response(),
        Err(_) => ApiError::Internal("handler panicked".into()).error_response(),
    };
    Ok(ServiceResponse::new(http_request, response))
}

/// Moves the headers into a map of their own size. Every request's map is
/// made for 16 headers (about 6.6 KB), which a request that waits long would
/// hold all along: an agent sends four (`docs/performance.md`,
/// "100,000 connected devices").
fn fit_headers(headers: &mut HeaderMap) {
    let sent = std::mem::take(headers);
    let mut fitted = HeaderMap::with_capacity(sent.len_keys());
    for (name, value) in sent {
        fitted.append(name, value);
    }
    *headers = fitted;
}

/// Serves the request with its route and the route's endpoint for its
/// method, when found.
async fn serve(
    req: &HttpRequest,
    payload: actix_web::dev::Payload,
    found: Option<(&'static Route, Option<&'static Endpoint>)>,
) -> Result<HttpResponse, ApiError> {
    let Some((route, endpoint)) = found else {
        return redirect_to_slash(req);
    };
    req.extensions_mut().insert(ServedBy {
        route: route.pattern.into(),
        quiet: endpoint.is_some_and(|endpoint| endpoint.quiet),
    });
    if let Some(endpoint) = endpoint
        && !endpoint.reads_credentials
    {
        return Ok(endpoint.call(req.clone(), payload).await);
    }
    if endpoint.is_some_and(|endpoint| endpoint.one_view) {
        return application::view::in_one_view(checked(req, payload, route, endpoint)).await;
    }
    checked(req, payload, route, endpoint).await
}

/// Serves a request from its credentials on: checks them, then calls the
/// endpoint (`None`: no method of the route is the request's).
async fn checked(
    req: &HttpRequest,
    payload: actix_web::dev::Payload,
    route: &'static Route,
    endpoint: Option<&'static Endpoint>,
) -> Result<HttpResponse, ApiError> {
    let method = req.method();
    let scheme = route.scheme();
    let caller = authenticate(req, scheme).await?;
    if method == Method::OPTIONS {
        return Ok(options(route));
    }
    let Some(endpoint) = endpoint else {
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
    if let Some(permission) = endpoint.permission {
        permission(state(req)?)?;
    }
    if endpoint.throttled
        && let Some(throttle) = &state(req)?.throttle
    {
        throttle.check(req).await.inspect_err(|error| {
            if let ApiError::Throttled(retry_after) = error {
                tracing::debug!(retry_after, "throttled");
            }
        })?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::http::header::{HeaderName, HeaderValue};

    #[test]
    fn fitted_headers_keep_every_value_in_a_smaller_map() {
        let mut headers = HeaderMap::with_capacity(16);
        let sent = [
            ("host", "devmgr"),
            ("authorization", "Device abc"),
            ("accept", "*/*"),
            ("x-forwarded-for", "10.0.0.1"),
            ("x-forwarded-for", "10.0.0.2"),
        ];
        for (name, value) in sent {
            headers.append(
                HeaderName::from_static(name),
                HeaderValue::from_static(value),
            );
        }
        let before = headers.capacity();
        fit_headers(&mut headers);
        assert!(
            headers.capacity() < before,
            "{} of {before}",
            headers.capacity()
        );
        assert_eq!(headers.len(), 5);
        for (name, value) in sent {
            assert!(
                headers.get_all(name).any(|v| v == value),
                "{name}: {value} kept"
            );
        }
        let forwarded: Vec<_> = headers.get_all("x-forwarded-for").collect();
        assert_eq!(forwarded, ["10.0.0.1", "10.0.0.2"], "in their order");
    }
}
