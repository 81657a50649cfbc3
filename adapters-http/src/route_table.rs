//! What a route is: a path, its methods, and for each the handler with what
//! its signature says (who may call, the body's fields, the query, the
//! answer). The dispatcher, the OPTIONS metadata and the OpenAPI document
//! all read these descriptions.

use crate::answer::Answer;
use crate::auth::Scheme;
use crate::description::Reply;
use crate::error::ApiError;
use crate::extract::{Access, Extractor};
use crate::fields::Field;
use actix_web::dev::{Payload, ResourceDef};
use actix_web::http::Method;
use actix_web::{Handler, HttpRequest, HttpResponse, ResponseError};
use futures_util::future::LocalBoxFuture;

/// A handler with its arguments extracted and its answer rendered.
type Serve =
    Box<dyn Fn(HttpRequest, Payload) -> LocalBoxFuture<'static, HttpResponse> + Send + Sync>;

/// One method of a route.
pub struct Endpoint {
    /// The HTTP method.
    pub method: Method,
    /// Who may call it: read from its handler's arguments.
    pub access: Access,
    /// Its body fields, listed under `actions` in OPTIONS; `None` for no body.
    pub fields: Option<&'static [Field]>,
    /// Rate limited per client address (`docs/api.md`, Throttling).
    pub throttled: bool,
    /// One line on what it does.
    pub summary: &'static str,
    /// Its answer on success: read from its handler's return type.
    pub reply: Reply,
    /// Its query parameters.
    pub query: &'static [Field],
    /// The failures particular to it (403, 404, …); those every endpoint of
    /// its kind can meet are added by the OpenAPI document.
    pub failures: &'static [u16],
    serve: Serve,
}

impl Endpoint {
    /// An endpoint served by `handler`, described by its signature.
    pub fn new<F, Args, A>(method: Method, summary: &'static str, handler: F) -> Self
    where
        F: Handler<Args, Output = Result<A, ApiError>> + Send + Sync,
        Args: Extractor + 'static,
        A: Answer + 'static,
    {
        let needs = Args::NEEDS;
        let serve: Serve = Box::new(move |req, mut payload| {
            let handler = handler.clone();
            Box::pin(async move {
                let args = match Args::from_request(&req, &mut payload).await {
                    Ok(args) => args,
                    Err(error) => {
                        let error: actix_web::Error = error.into();
                        return error.error_response();
                    }
                };
                match handler.call(args).await {
                    Ok(answer) => answer.respond(&req),
                    Err(error) => error.error_response(),
                }
            })
        });
        Self {
            method,
            access: needs.access,
            fields: needs.fields,
            throttled: false,
            summary,
            reply: A::REPLY,
            query: needs.query,
            failures: &[],
            serve,
        }
    }

    /// Whether it reads a JSON body.
    pub fn takes_body(&self) -> bool {
        [Method::POST, Method::PUT, Method::PATCH].contains(&self.method)
    }

    /// Serves a request the dispatcher has let through.
    pub(crate) fn call(
        &self,
        req: HttpRequest,
        payload: Payload,
    ) -> LocalBoxFuture<'static, HttpResponse> {
        (self.serve)(req, payload)
    }
}

/// One path of the API.
pub struct Route {
    /// The path, with `{param}` segments.
    pub pattern: &'static str,
    /// The view name shown by OPTIONS.
    pub name: &'static str,
    /// The description shown by OPTIONS.
    pub description: &'static str,
    /// Its methods.
    pub endpoints: Vec<Endpoint>,
    /// Whether the OpenAPI document describes it (not the docs' own pages).
    pub documented: bool,
    /// The pattern as actix's router matches it.
    resource: ResourceDef,
}

impl Route {
    /// A documented route with no methods yet.
    pub fn new(pattern: &'static str, name: &'static str, description: &'static str) -> Self {
        Self {
            pattern,
            name,
            description,
            endpoints: Vec::new(),
            documented: true,
            resource: ResourceDef::new(pattern),
        }
    }

    /// Leaves the route out of the OpenAPI document.
    pub fn undocumented(self) -> Self {
        Self {
            documented: false,
            ..self
        }
    }

    /// Adds a method served by `handler`.
    pub fn method<F, Args, A>(mut self, method: Method, summary: &'static str, handler: F) -> Self
    where
        F: Handler<Args, Output = Result<A, ApiError>> + Send + Sync,
        Args: Extractor + 'static,
        A: Answer + 'static,
    {
        self.endpoints.push(Endpoint::new(method, summary, handler));
        self
    }

    /// Marks the last method added as rate limited per client address.
    pub fn throttled(mut self) -> Self {
        if let Some(endpoint) = self.endpoints.last_mut() {
            endpoint.throttled = true;
        }
        self
    }

    /// Sets the failures particular to the last method added.
    pub fn fails(mut self, failures: &'static [u16]) -> Self {
        if let Some(endpoint) = self.endpoints.last_mut() {
            endpoint.failures = failures;
        }
        self
    }

    /// The endpoint serving `method`; HEAD is served by GET.
    pub fn endpoint(&self, method: &Method) -> Option<&Endpoint> {
        let wanted = if method == Method::HEAD {
            &Method::GET
        } else {
            method
        };
        self.endpoints.iter().find(|e| e.method == wanted)
    }

    /// Whether every method needs credentials.
    pub fn is_protected(&self) -> bool {
        self.endpoints.iter().all(|e| e.access != Access::Public)
    }

    /// The credentials the route reads: devices' on agent routes, users' elsewhere.
    pub fn scheme(&self) -> Scheme {
        if self.endpoints.iter().any(|e| e.access == Access::Device) {
            Scheme::Device
        } else {
            Scheme::Token
        }
    }

    /// The `Allow` header: the route's methods in the documented order (docs/api.md).
    pub fn allow(&self) -> String {
        let has = |m: &Method| self.endpoints.iter().any(|e| e.method == m);
        let order = [
            (Method::GET, "GET"),
            (Method::POST, "POST"),
            (Method::PUT, "PUT"),
            (Method::PATCH, "PATCH"),
            (Method::DELETE, "DELETE"),
        ];
        let mut methods: Vec<&str> = order
            .iter()
            .filter(|(m, _)| has(m))
            .map(|(_, n)| *n)
            .collect();
        if has(&Method::GET) {
            methods.push("HEAD");
        }
        methods.push("OPTIONS");
        methods.join(", ")
    }

    /// Whether a request path is this route's.
    pub fn matches(&self, path: &str) -> bool {
        self.resource.is_match(path)
    }

    /// Records the `{param}` values of the request's path in its match
    /// info, as actix's router does for its own routes.
    pub(crate) fn capture(&self, match_info: &mut actix_web::dev::Path<actix_web::dev::Url>) {
        self.resource.capture_match_info(match_info);
    }
}

/// Adds one method per HTTP verb to [`Route`]: `.get(summary, handler)`, ….
macro_rules! verbs {
    ($($verb:ident => $method:ident),+) => {
        impl Route {
            $(
                #[doc = concat!("Adds the `", stringify!($method), "` method, served by `handler`.")]
                pub fn $verb<F, Args, A>(self, summary: &'static str, handler: F) -> Self
                where
                    F: Handler<Args, Output = Result<A, ApiError>> + Send + Sync,
                    Args: Extractor + 'static,
                    A: Answer + 'static,
                {
                    self.method(Method::$method, summary, handler)
                }
            )+
        }
    };
}
verbs!(get => GET, post => POST, put => PUT, patch => PATCH, delete => DELETE);
