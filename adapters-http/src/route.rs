//! What a route is: a path, its methods, and for each the handler with what
//! its signature says (who may call, the body's fields, the query, the
//! answer), and beside it what the OpenAPI document says of it (operation
//! id, summary, tag, parameters, documented failures, examples). The
//! dispatcher, the OPTIONS metadata and the OpenAPI document all read these
//! descriptions.

use crate::answer::Answer;
use crate::auth::Scheme;
use crate::description::{Described, ObjectSchema, Parameter, Reply, Tag, error_json, to_json};
use crate::error::ApiError;
use crate::extract::{Access, Extractor};
use crate::fields::{Field, ToForm, reads_back};
use actix_web::dev::{Payload, ResourceDef};
use actix_web::http::Method;
use actix_web::{Handler, HttpRequest, HttpResponse, ResponseError};
use futures_util::future::LocalBoxFuture;
use serde_json::{Map, Value};

mod marks;

/// A handler with its arguments extracted and its answer rendered.
type Serve =
    Box<dyn Fn(HttpRequest, Payload) -> LocalBoxFuture<'static, HttpResponse> + Send + Sync>;

/// One method of a route.
pub struct Endpoint {
    /// The HTTP method.
    pub method: Method,
    /// The operation's name in the OpenAPI document, the one client
    /// generators give its function (`login`, `getDevice`, …).
    pub operation_id: &'static str,
    /// Who may call it: read from its handler's arguments.
    pub access: Access,
    /// Its body fields, listed under `actions` in OPTIONS; `None` for no body.
    pub fields: Option<&'static [Field]>,
    /// Rate limited per client address (`docs/api.md`, Throttling).
    pub throttled: bool,
    /// Its successes are logged at debug, not info: it is called all the
    /// time by every device or prober (`docs/operations.md`, Logs).
    pub quiet: bool,
    /// Whether the dispatcher reads the caller's credentials first (and
    /// refuses invalid ones); probes read none.
    pub reads_credentials: bool,
    /// Whether its reads, the credentials' included, share one view of the
    /// store ([`application::view`]).
    pub one_view: bool,
    /// Whether it can wait long for its answer (the long poll): its request
    /// is kept small while it waits.
    pub waits: bool,
    /// Answers other than success and the common failures, with the schema
    /// and the body the document shows for each (a probe's 503, closed
    /// registration's 403).
    pub failure_examples: Vec<(u16, &'static ObjectSchema, Value)>,
    /// One line on what it does.
    pub summary: &'static str,
    /// Its answer on success: read from its handler's return type.
    pub reply: Reply,
    /// Its query parameters.
    pub query: &'static [Field],
    /// The failures particular to it (403, 404, …); those every endpoint of
    /// its kind can meet are added by the OpenAPI document.
    pub failures: &'static [u16],
    /// The answer the document shows on success, when the answer type's own
    /// example does not fit the operation (a `Detail` says what happened).
    pub answer_example: Option<Value>,
    /// The body the document shows a client sending.
    pub request_example: Option<RequestExample>,
    /// The 400 answer the document shows, when the operation has its own.
    pub bad_request_example: Option<Value>,
    /// Refuses every caller while the server is configured so (as a DRF
    /// permission class): checked after authentication, before throttling
    /// and before the body is read.
    pub permission: Option<Permission>,
    serve: Serve,
}

/// A check of the server's configuration that refuses a request with its
/// error (closed registration answers 403).
pub type Permission = fn(&crate::state::HttpState) -> Result<(), ApiError>;

/// An example of a request body: a value of the body type, written back as
/// the JSON object a client sends.
pub struct RequestExample {
    /// The JSON object.
    pub body: Map<String, Value>,
    /// The fields of the body type it is a value of.
    #[cfg_attr(not(test), expect(dead_code, reason = "the OpenAPI tests check it"))]
    pub fields: &'static [Field],
    /// Whether the body type reads the object back without an error.
    #[cfg_attr(not(test), expect(dead_code, reason = "the OpenAPI tests check it"))]
    pub reads_back: fn(&Map<String, Value>) -> bool,
}

impl Endpoint {
    /// An endpoint served by `handler`, described by its signature.
    pub fn new<F, Args, A>(
        method: Method,
        operation_id: &'static str,
        summary: &'static str,
        handler: F,
    ) -> Self
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
            operation_id,
            access: needs.access,
            fields: needs.fields,
            throttled: false,
            quiet: false,
            reads_credentials: true,
            one_view: false,
            waits: false,
            failure_examples: Vec::new(),
            summary,
            reply: A::REPLY,
            query: needs.query,
            failures: &[],
            answer_example: None,
            request_example: None,
            bad_request_example: None,
            permission: None,
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
    /// The group the OpenAPI document lists its operations under; `None`
    /// leaves the route out of the document (the docs' own pages).
    pub tag: Option<Tag>,
    /// Its path parameters and its methods' query parameters.
    pub parameters: Vec<Parameter>,
    /// The pattern as actix's router matches it.
    resource: ResourceDef,
    /// The pattern read segment by segment, unless it needs the router.
    segments: Option<crate::path_pattern::PathPattern>,
}

impl Route {
    /// A route of the OpenAPI document, listed under `tag`, with no methods yet.
    pub fn new(
        tag: Tag,
        pattern: &'static str,
        name: &'static str,
        description: &'static str,
    ) -> Self {
        Self {
            tag: Some(tag),
            ..Self::undocumented(pattern, name, description)
        }
    }

    /// A route the OpenAPI document leaves out, with no methods yet.
    pub fn undocumented(
        pattern: &'static str,
        name: &'static str,
        description: &'static str,
    ) -> Self {
        Self {
            pattern,
            name,
            description,
            endpoints: Vec::new(),
            tag: None,
            parameters: Vec::new(),
            resource: ResourceDef::new(pattern),
            segments: crate::path_pattern::PathPattern::parse(pattern),
        }
    }

    /// Adds a method served by `handler`, named `operation_id` in the
    /// OpenAPI document.
    pub fn method<F, Args, A>(
        mut self,
        method: Method,
        operation_id: &'static str,
        summary: &'static str,
        handler: F,
    ) -> Self
    where
        F: Handler<Args, Output = Result<A, ApiError>> + Send + Sync,
        Args: Extractor + 'static,
        A: Answer + 'static,
    {
        self.endpoints
            .push(Endpoint::new(method, operation_id, summary, handler));
        self
    }

    /// Describes a parameter of the path or of a method's query.
    pub fn parameter(mut self, parameter: Parameter) -> Self {
        self.parameters.push(parameter);
        self
    }

    /// Shows `example` as the last method's answer on success.
    pub fn answer_example(mut self, example: impl Described) -> Self {
        if let Some(endpoint) = self.endpoints.last_mut() {
            endpoint.answer_example = Some(to_json(&example));
        }
        self
    }

    /// Shows `body`, a value of the last method's body type, as its request.
    pub fn request_example<B: ToForm>(mut self, body: B) -> Self {
        if let Some(endpoint) = self.endpoints.last_mut() {
            endpoint.request_example = Some(RequestExample {
                body: body.to_form(),
                fields: B::FIELDS,
                reads_back: reads_back::<B>,
            });
        }
        self
    }

    /// Shows `error`'s body as the last method's own 400 answer.
    pub fn bad_request_example(mut self, error: &ApiError) -> Self {
        if let Some(endpoint) = self.endpoints.last_mut() {
            endpoint.bad_request_example = Some(error_json(error));
        }
        self
    }

    /// Documents that the last method added answers `status` with `body`,
    /// a value of a described answer type (its own, or `Detail`).
    pub fn failure_example<A: Described>(mut self, status: u16, body: A) -> Self {
        if let Some(endpoint) = self.endpoints.last_mut() {
            endpoint
                .failure_examples
                .push((status, A::SCHEMA, to_json(&body)));
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

    /// Whether a request path is this route's: segment by segment
    /// ([`path_pattern`](crate::path_pattern)), or by the router's regular
    /// expression for a pattern that needs one. The path comes cut at its
    /// slashes, once for all the routes it is tried against.
    pub(crate) fn matches(&self, path: &crate::path_pattern::SplitPath<'_>) -> bool {
        match &self.segments {
            Some(segments) => segments.matches_split(path),
            None => self.resource.is_match(path.path()),
        }
    }

    /// Records the `{param}` values of the request's path in its match info,
    /// as actix's router does for its own routes (and as [`matches`](Self::matches) reads).
    pub(crate) fn capture(&self, match_info: &mut actix_web::dev::Path<actix_web::dev::Url>) {
        if !(self.segments.as_ref()).is_some_and(|segments| segments.capture(match_info)) {
            self.resource.capture_match_info(match_info);
        }
    }
}

/// Adds one method per HTTP verb to [`Route`]: `.get(operation_id, summary, handler)`, ….
macro_rules! verbs {
    ($($verb:ident => $method:ident),+) => {
        impl Route {
            $(
                #[doc = concat!("Adds the `", stringify!($method), "` method, served by `handler`.")]
                pub fn $verb<F, Args, A>(
                    self,
                    operation_id: &'static str,
                    summary: &'static str,
                    handler: F,
                ) -> Self
                where
                    F: Handler<Args, Output = Result<A, ApiError>> + Send + Sync,
                    Args: Extractor + 'static,
                    A: Answer + 'static,
                {
                    self.method(Method::$method, operation_id, summary, handler)
                }
            )+
        }
    };
}
verbs!(get => GET, post => POST, put => PUT, patch => PATCH, delete => DELETE);
