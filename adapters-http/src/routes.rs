//! The route table: every path, its methods, who may call them, the body
//! fields each takes and what each answers. It drives the dispatcher, the
//! OPTIONS metadata and the OpenAPI document alike.

use crate::auth::Scheme;
use crate::dispatch::Handler;
use crate::fields::Field;
use crate::handlers::{accounts, agent, auth, devices, docs, password_reset, verification};
use crate::resources::{
    self, AUTH_TOKEN, COMMAND_LIST, COMMAND_RECORD, DETAIL, DEVICE, DEVICE_FIELDS, ENROLMENT,
    HEARTBEAT_REPLY, PORT, PROFILE, PROFILE_FIELDS, Resource,
};
use actix_web::http::Method;
use domain::{AckDetail, AgentVersion, CommandStatus, MachineType, OperatingSystem, Uname};
use std::sync::LazyLock;

pub(crate) use crate::resources::{
    DEVICE_DESCRIPTION, DEVICE_NAME, PORT_NAME, PORT_NUMBER, PORT_PROTOCOL, PROFILE_NAME,
};

/// Who may call an endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Anyone (a presented token must still be valid).
    Public,
    /// Only a caller with a valid user token.
    User,
    /// Only a device's agent with a valid device token.
    Device,
}

/// One method of a route.
pub struct Endpoint {
    /// The HTTP method.
    pub method: Method,
    /// Who may call it.
    pub access: Access,
    /// Its body fields, listed under `actions` in OPTIONS; `None` for no body.
    pub fields: Option<&'static [Field]>,
    /// The code that serves it.
    pub handler: Handler,
    /// Rate limited per client address (`docs/api.md`, Throttling).
    pub throttled: bool,
    /// One line on what it does.
    pub summary: &'static str,
    /// Its answer on success.
    pub reply: Reply,
    /// Its query parameters.
    pub query: &'static [Field],
    /// The failures particular to it (403, 404, …); those every endpoint of
    /// its kind can meet are added by the OpenAPI document.
    pub failures: &'static [u16],
}

impl Endpoint {
    /// Marks an unauthenticated write for rate limiting.
    fn throttled(self) -> Self {
        Self {
            throttled: true,
            ..self
        }
    }

    /// Sets its query parameters.
    fn query(self, query: &'static [Field]) -> Self {
        Self { query, ..self }
    }

    /// Sets the failures particular to it.
    fn fails(self, failures: &'static [u16]) -> Self {
        Self { failures, ..self }
    }

    /// Whether it reads a JSON body.
    pub fn takes_body(&self) -> bool {
        [Method::POST, Method::PUT, Method::PATCH].contains(&self.method)
    }
}

/// The body of a successful answer.
#[derive(Clone, Copy)]
pub enum Body {
    /// No body (204, or 202 without one).
    Empty,
    /// One object.
    One(&'static Resource),
    /// An array of objects.
    Many(&'static Resource),
    /// An HTML page.
    Page,
    /// One object, or an HTML page for a client that accepts `text/html`.
    OneOrPage(&'static Resource),
}

/// The answer of an endpoint on success.
#[derive(Clone, Copy)]
pub struct Reply {
    /// The status code.
    pub status: u16,
    /// The body.
    pub body: Body,
}

/// A successful answer.
const fn reply(status: u16, body: Body) -> Reply {
    Reply { status, body }
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
}

impl Route {
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

    /// Matches a request path; returns the `{param}` values.
    pub fn matches(&self, path: &str) -> Option<Vec<String>> {
        let mut params = Vec::new();
        let mut pattern = self.pattern.split('/');
        let mut actual = path.split('/');
        loop {
            match (pattern.next(), actual.next()) {
                (None, None) => return Some(params),
                (Some(p), Some(a)) if p.starts_with('{') => {
                    if a.is_empty() {
                        return None;
                    }
                    params.push(a.to_owned());
                }
                (Some(p), Some(a)) if p == a => {}
                _ => return None,
            }
        }
    }
}

/// Every route, in the order paths are matched.
pub fn all() -> &'static [Route] {
    &ROUTES
}

/// Finds the route for a path, with its parameters.
pub fn find(path: &str) -> Option<(&'static Route, Vec<String>)> {
    ROUTES
        .iter()
        .find_map(|route| route.matches(path).map(|params| (route, params)))
}

fn endpoint(
    method: Method,
    access: Access,
    fields: Option<&'static [Field]>,
    summary: &'static str,
    reply: Reply,
    handler: Handler,
) -> Endpoint {
    Endpoint {
        method,
        access,
        fields,
        handler,
        throttled: false,
        summary,
        reply,
        query: &[],
        failures: &[],
    }
}

/// `email` of login, register and reset-password.
pub(crate) const EMAIL: Field = Field::email("email", "Email");
/// `password` of login.
pub(crate) const PASSWORD: Field = Field::password("password", "Password");
/// `old_password` of change-password: needed only while a password is usable.
pub(crate) const OLD_PASSWORD: Field = Field::password("old_password", "Old password").optional();
/// `new_password` of change-password.
pub(crate) const NEW_PASSWORD: Field = Field::password("new_password", "New password");
/// `key` of an e-mailed link.
pub(crate) const KEY: Field = Field::text("key", "Key");
/// `install_token` of an enrolment.
pub(crate) const INSTALL_TOKEN: Field = Field::text("install_token", "Install token");
/// `serial` of an enrolment.
pub(crate) const SERIAL: Field = Field::text("serial", "Serial").optional().format("uuid");
/// `machine_type` of an enrolment or a heartbeat.
pub(crate) const MACHINE_TYPE: Field = Field::text("machine_type", "Machine type")
    .optional()
    .choices(&MachineType::CODES);
/// `agent_version` of a heartbeat.
pub(crate) const AGENT_VERSION: Field = Field::text("agent_version", "Agent version")
    .optional()
    .blank_ok()
    .max(AgentVersion::MAX_CHARS);
/// `operating_system` of a heartbeat.
pub(crate) const OPERATING_SYSTEM: Field = Field::text("operating_system", "Operating system")
    .optional()
    .blank_ok()
    .max(OperatingSystem::MAX_CHARS);
/// `uname` of a heartbeat.
pub(crate) const UNAME: Field = Field::text("uname", "Uname")
    .optional()
    .blank_ok()
    .max(Uname::MAX_CHARS);
/// `disk_capacity` of a heartbeat: bytes, `null` while unknown.
pub(crate) const DISK_CAPACITY: Field = Field::integer("disk_capacity", "Disk capacity")
    .optional()
    .nullable()
    .range(0, i64::MAX);
/// `disk_used` of a heartbeat: bytes, `null` while unknown.
pub(crate) const DISK_USED: Field = Field::integer("disk_used", "Disk used")
    .optional()
    .nullable()
    .range(0, i64::MAX);
/// `ram_capacity` of a heartbeat, in MiB.
pub(crate) const RAM_CAPACITY: Field = Field::integer("ram_capacity", "Ram capacity")
    .optional()
    .range(0, i64::MAX);
/// `processor_speed` of a heartbeat, in MHz.
pub(crate) const PROCESSOR_SPEED: Field = Field::integer("processor_speed", "Processor speed")
    .optional()
    .range(0, i64::MAX);
/// `ports` of a heartbeat.
pub(crate) const PORTS: Field = Field::list("ports", "Ports", resources::PORT_FIELDS).optional();
/// `status` of an acknowledgement.
pub(crate) const ACK_STATUS: Field = Field::text("status", "Status").choices(&CommandStatus::CODES);
/// `detail` of an acknowledgement.
pub(crate) const ACK_DETAIL: Field = Field::text("detail", "Detail")
    .optional()
    .blank_ok()
    .max(AckDetail::MAX_CHARS);

/// `wait` of the command long poll (a query parameter), in seconds.
pub(crate) const WAIT: Field = Field::integer("wait", "Wait").optional().range(0, 60);
/// `key` of the reset link's page (a query parameter).
const PAGE_KEY: Field = Field::text("key", "Key").optional().blank_ok();

const LOGIN_FIELDS: &[Field] = &[EMAIL, PASSWORD];
const CHANGE_PASSWORD_FIELDS: &[Field] = &[OLD_PASSWORD, NEW_PASSWORD];
const EMAIL_FIELDS: &[Field] = &[EMAIL];
const KEY_FIELDS: &[Field] = &[KEY];
const RESET_CONFIRM_FIELDS: &[Field] = &[KEY, NEW_PASSWORD];
const INSTALL_FIELDS: &[Field] = &[INSTALL_TOKEN, DEVICE_NAME, SERIAL, MACHINE_TYPE];
const HEARTBEAT_FIELDS: &[Field] = &[
    AGENT_VERSION,
    OPERATING_SYSTEM,
    UNAME,
    MACHINE_TYPE,
    DISK_CAPACITY,
    DISK_USED,
    RAM_CAPACITY,
    PROCESSOR_SPEED,
    PORTS,
];
const ACK_FIELDS: &[Field] = &[ACK_STATUS, ACK_DETAIL];

static ROUTES: LazyLock<Vec<Route>> = LazyLock::new(|| {
    use Access::{Device, Public, User};
    use Body::{Empty, Many, One, OneOrPage, Page};
    vec![
        Route {
            pattern: "/agent/commands/",
            name: "Agent Commands",
            description: "Long poll for the device's pending commands: answers as soon as one is\npending, or with an empty list after `wait` seconds (0-60, default 0).",
            endpoints: vec![
                endpoint(
                    Method::GET,
                    Device,
                    None,
                    "Wait for the device's commands",
                    reply(200, One(&COMMAND_LIST)),
                    |c| Box::pin(agent::commands(c)),
                )
                .query(&[WAIT])
                .fails(&[400]),
            ],
            documented: true,
        },
        Route {
            pattern: "/agent/commands/{id}/ack/",
            name: "Agent Command Ack",
            description: "Report what became of a command: `received` before carrying it out, then\n`done` or `failed`, with an optional detail.",
            endpoints: vec![
                endpoint(
                    Method::POST,
                    Device,
                    Some(ACK_FIELDS),
                    "Acknowledge a command",
                    reply(204, Empty),
                    |c| Box::pin(agent::acknowledge(c)),
                )
                .fails(&[404]),
            ],
            documented: true,
        },
        Route {
            pattern: "/agent/heartbeat/",
            name: "Agent Heartbeat",
            description: "Report the device's facts; the device is online from now. Returns the\npending commands and the interval of the next heartbeat.",
            endpoints: vec![endpoint(
                Method::POST,
                Device,
                Some(HEARTBEAT_FIELDS),
                "Report the device's facts",
                reply(200, One(&HEARTBEAT_REPLY)),
                |c| Box::pin(agent::heartbeat(c)),
            )],
            documented: true,
        },
        Route {
            pattern: "/auth/",
            name: "Auth Token",
            description: "Log in with e-mail and password to obtain an API token (POST),\nor end the token used for this request (DELETE).",
            endpoints: vec![
                endpoint(
                    Method::POST,
                    Public,
                    Some(LOGIN_FIELDS),
                    "Log in: get a new API token",
                    reply(201, One(&AUTH_TOKEN)),
                    |c| Box::pin(auth::login(c)),
                )
                .throttled(),
                endpoint(
                    Method::DELETE,
                    User,
                    None,
                    "Log out: end this token",
                    reply(204, Empty),
                    |c| Box::pin(auth::logout(c)),
                ),
            ],
            documented: true,
        },
        Route {
            pattern: "/auth/logout-all/",
            name: "Logout All",
            description: "End every API token of the account, the one used for this request\nincluded: log out everywhere.",
            endpoints: vec![endpoint(
                Method::POST,
                User,
                None,
                "Log out everywhere: end every token",
                reply(204, Empty),
                |c| Box::pin(auth::logout_everywhere(c)),
            )],
            documented: true,
        },
        Route {
            pattern: "/change-password/",
            name: "Change Password",
            description: "Set a new password. `old_password` is needed while the account has a usable password.",
            endpoints: vec![endpoint(
                Method::POST,
                User,
                Some(CHANGE_PASSWORD_FIELDS),
                "Change the password",
                reply(204, Empty),
                |c| Box::pin(accounts::change_password(c)),
            )],
            documented: true,
        },
        Route {
            pattern: "/devices/",
            name: "Device List",
            description: "All devices of the account, oldest first.",
            endpoints: vec![endpoint(
                Method::GET,
                User,
                None,
                "List the devices",
                reply(200, Many(&DEVICE)),
                |c| Box::pin(devices::list(c)),
            )],
            documented: true,
        },
        Route {
            pattern: "/devices/{serial}/",
            name: "Device Detail",
            description: "One device of the account. Its `name` and `description` can be changed;\ndeleting it ends its agent's credential.",
            endpoints: vec![
                endpoint(
                    Method::GET,
                    User,
                    None,
                    "Show a device",
                    reply(200, One(&DEVICE)),
                    |c| Box::pin(devices::detail(c)),
                )
                .fails(&[404]),
                endpoint(
                    Method::PUT,
                    User,
                    Some(DEVICE_FIELDS),
                    "Replace a device's name and description",
                    reply(200, One(&DEVICE)),
                    |c| Box::pin(devices::update(c)),
                )
                .fails(&[404]),
                endpoint(
                    Method::PATCH,
                    User,
                    Some(DEVICE_FIELDS),
                    "Change a device's name or description",
                    reply(200, One(&DEVICE)),
                    |c| Box::pin(devices::update(c)),
                )
                .fails(&[404]),
                endpoint(
                    Method::DELETE,
                    User,
                    None,
                    "Delete a device",
                    reply(204, Empty),
                    |c| Box::pin(devices::delete(c)),
                )
                .fails(&[404]),
            ],
            documented: true,
        },
        Route {
            pattern: "/devices/{serial}/commands/",
            name: "Device Commands",
            description: "The device's 100 most recent commands, newest first, each with its\nstatus: pending, delivered, received, done, failed or lapsed.",
            endpoints: vec![
                endpoint(
                    Method::GET,
                    User,
                    None,
                    "List a device's commands",
                    reply(200, Many(&COMMAND_RECORD)),
                    |c| Box::pin(devices::commands(c)),
                )
                .fails(&[404]),
            ],
            documented: true,
        },
        Route {
            pattern: "/devices/{serial}/ports/",
            name: "Device Ports",
            description: "The ports the device's agent last reported as listening.",
            endpoints: vec![
                endpoint(
                    Method::GET,
                    User,
                    None,
                    "List a device's listening ports",
                    reply(200, Many(&PORT)),
                    |c| Box::pin(devices::ports(c)),
                )
                .fails(&[404]),
            ],
            documented: true,
        },
        Route {
            pattern: "/devices/{serial}/reboot/",
            name: "Device Reboot",
            description: "Dispatch a reboot signal to the device. No body needed.",
            endpoints: vec![
                endpoint(
                    Method::POST,
                    User,
                    None,
                    "Reboot a device",
                    reply(202, One(&DETAIL)),
                    |c| Box::pin(devices::reboot(c)),
                )
                .fails(&[404]),
            ],
            documented: true,
        },
        Route {
            pattern: "/docs/",
            name: "Docs",
            description: "Browsable API documentation (Swagger UI) of /openapi.json.",
            endpoints: vec![endpoint(
                Method::GET,
                Public,
                None,
                "Browsable API documentation",
                reply(200, Page),
                |c| Box::pin(docs::page(c)),
            )],
            documented: false,
        },
        Route {
            pattern: "/docs/{file}",
            name: "Docs File",
            description: "A file of the browsable API documentation.",
            endpoints: vec![endpoint(
                Method::GET,
                Public,
                None,
                "A file of the documentation",
                reply(200, Page),
                |c| Box::pin(docs::file(c)),
            )],
            documented: false,
        },
        Route {
            pattern: "/install/",
            name: "Install",
            description: "Enrol a device in the account of an install token; returns its serial and\ndevice token. Installing a serial of the same account again re-keys it.",
            endpoints: vec![
                endpoint(
                    Method::POST,
                    Public,
                    Some(INSTALL_FIELDS),
                    "Enrol a device",
                    reply(201, One(&ENROLMENT)),
                    |c| Box::pin(agent::install(c)),
                )
                .throttled(),
            ],
            documented: true,
        },
        Route {
            pattern: "/openapi.json",
            name: "OpenAPI",
            description: "This API's OpenAPI 3.1 document.",
            endpoints: vec![endpoint(
                Method::GET,
                Public,
                None,
                "The OpenAPI document",
                reply(200, Page),
                |c| Box::pin(docs::openapi(c)),
            )],
            documented: false,
        },
        Route {
            pattern: "/profile/",
            name: "Profile",
            description: "The account's profile. Only `name` can be changed.",
            endpoints: vec![
                endpoint(
                    Method::GET,
                    User,
                    None,
                    "Show the profile",
                    reply(200, One(&PROFILE)),
                    |c| Box::pin(accounts::profile(c)),
                ),
                endpoint(
                    Method::PUT,
                    User,
                    Some(PROFILE_FIELDS),
                    "Replace the profile's name",
                    reply(200, One(&PROFILE)),
                    |c| Box::pin(accounts::update_profile(c)),
                ),
                endpoint(
                    Method::PATCH,
                    User,
                    Some(PROFILE_FIELDS),
                    "Change the profile's name",
                    reply(200, One(&PROFILE)),
                    |c| Box::pin(accounts::update_profile(c)),
                ),
            ],
            documented: true,
        },
        Route {
            pattern: "/profile/install-token/",
            name: "Profile Install Token",
            description: "Replace the account's install token: the old one ends at once.\nEnrolled devices are not affected. No body needed.",
            endpoints: vec![endpoint(
                Method::POST,
                User,
                None,
                "Replace the install token",
                reply(200, One(&PROFILE)),
                |c| Box::pin(accounts::rotate_install_token(c)),
            )],
            documented: true,
        },
        Route {
            pattern: "/register/",
            name: "Register",
            description: "Create an account from an e-mail address. Returns an API token;\na verification link is mailed.",
            endpoints: vec![
                endpoint(
                    Method::POST,
                    Public,
                    Some(EMAIL_FIELDS),
                    "Create an account",
                    reply(201, One(&AUTH_TOKEN)),
                    |c| Box::pin(accounts::register(c)),
                )
                .throttled(),
            ],
            documented: true,
        },
        Route {
            pattern: "/reset-password/",
            name: "Reset Password",
            description: "Mail a link for setting a new password to the address, if it has an account.",
            endpoints: vec![
                endpoint(
                    Method::POST,
                    Public,
                    Some(EMAIL_FIELDS),
                    "Ask for a password reset link",
                    reply(204, Empty),
                    |c| Box::pin(password_reset::request(c)),
                )
                .throttled()
                .fails(&[403]),
            ],
            documented: true,
        },
        Route {
            pattern: "/reset-password/confirm/",
            name: "Reset Password Confirm",
            description: "Set a new password with the key of a reset link (POST), or open the\nlink's page with a form for it (GET with `?key=`).",
            endpoints: vec![
                endpoint(
                    Method::GET,
                    Public,
                    None,
                    "The reset link's page",
                    reply(200, Page),
                    |c| Box::pin(password_reset::page(c)),
                )
                .query(&[PAGE_KEY]),
                endpoint(
                    Method::POST,
                    Public,
                    Some(RESET_CONFIRM_FIELDS),
                    "Set a new password with a reset key",
                    reply(204, Empty),
                    |c| Box::pin(password_reset::confirm(c)),
                )
                .throttled(),
            ],
            documented: true,
        },
        Route {
            pattern: "/verify-email/",
            name: "Verify Email",
            description: "Verify the account's e-mail address with the key of a verification link.",
            endpoints: vec![
                endpoint(
                    Method::POST,
                    Public,
                    Some(KEY_FIELDS),
                    "Verify an e-mail address",
                    reply(200, One(&DETAIL)),
                    |c| Box::pin(verification::verify(c)),
                )
                .throttled(),
            ],
            documented: true,
        },
        // Before `/verify-email/{key}/`: `resend` is never taken as a key.
        Route {
            pattern: "/verify-email/resend/",
            name: "Resend Verification Email",
            description: "Mail a fresh verification link to the address, if an unverified account has it.",
            endpoints: vec![
                endpoint(
                    Method::POST,
                    Public,
                    Some(EMAIL_FIELDS),
                    "Mail a new verification link",
                    reply(204, Empty),
                    |c| Box::pin(verification::resend(c)),
                )
                .throttled(),
            ],
            documented: true,
        },
        Route {
            pattern: "/verify-email/{key}/",
            name: "Verify Email Link",
            description: "The e-mailed verification link: verifies the address. Browsers get a page.",
            endpoints: vec![
                endpoint(
                    Method::GET,
                    Public,
                    None,
                    "Open a verification link",
                    reply(200, OneOrPage(&DETAIL)),
                    |c| Box::pin(verification::verify_link(c)),
                )
                .throttled()
                .fails(&[400]),
            ],
            documented: true,
        },
    ]
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allow_lists_methods_in_the_contract_order() {
        let (profile, _) = find("/profile/").unwrap();
        assert_eq!(profile.allow(), "GET, PUT, PATCH, HEAD, OPTIONS");
        let (auth, _) = find("/auth/").unwrap();
        assert_eq!(auth.allow(), "POST, DELETE, OPTIONS");
    }

    #[test]
    fn parameters_are_captured_and_slashes_matter() {
        let (route, params) = find("/devices/abc/reboot/").unwrap();
        assert_eq!(route.pattern, "/devices/{serial}/reboot/");
        assert_eq!(params, ["abc"]);
        assert!(find("/devices/abc/reboot").is_none());
        assert!(find("/devices//").is_none());
        assert!(find("/nothing/").is_none());
    }

    #[test]
    fn agent_routes_read_device_credentials_and_the_others_user_tokens() {
        for path in [
            "/agent/heartbeat/",
            "/agent/commands/",
            "/agent/commands/x/ack/",
        ] {
            let (route, _) = find(path).unwrap();
            assert_eq!(route.scheme(), Scheme::Device, "{path}");
            assert!(route.is_protected(), "{path}");
        }
        for path in ["/install/", "/devices/", "/auth/"] {
            assert_eq!(find(path).unwrap().0.scheme(), Scheme::Token, "{path}");
        }
        assert!(!find("/install/").unwrap().0.is_protected());
        assert_eq!(
            find("/devices/x/").unwrap().0.allow(),
            "GET, PUT, PATCH, DELETE, HEAD, OPTIONS"
        );
    }

    #[test]
    fn resend_is_never_taken_for_a_key() {
        let (resend, params) = find("/verify-email/resend/").unwrap();
        assert_eq!(resend.pattern, "/verify-email/resend/");
        assert!(params.is_empty());
        assert_eq!(resend.allow(), "POST, OPTIONS");
        let (link, params) = find("/verify-email/abc/").unwrap();
        assert_eq!(link.pattern, "/verify-email/{key}/");
        assert_eq!(params, ["abc"]);
    }

    #[test]
    fn only_unauthenticated_writes_are_throttled() {
        let throttled: Vec<String> = ROUTES
            .iter()
            .flat_map(|r| {
                r.endpoints
                    .iter()
                    .filter(|e| e.throttled)
                    .map(move |e| format!("{} {}", e.method, r.pattern))
            })
            .collect();
        assert_eq!(
            throttled,
            [
                "POST /auth/",
                "POST /install/",
                "POST /register/",
                "POST /reset-password/",
                "POST /reset-password/confirm/",
                "POST /verify-email/",
                "POST /verify-email/resend/",
                "GET /verify-email/{key}/",
            ]
        );
    }
}
