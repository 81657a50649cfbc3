//! The route table: every path, its methods, who may call them, and the
//! body fields each takes (which also drive the OPTIONS metadata).

use crate::auth::Scheme;
use crate::dispatch::Handler;
use crate::fields::{Field, FieldType};
use crate::handlers::{accounts, agent, auth, devices, password_reset, verification};
use actix_web::http::Method;
use std::sync::LazyLock;

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
    /// Rate limited per client address (CONTRACT §1).
    pub throttled: bool,
}

impl Endpoint {
    /// Marks an unauthenticated write for rate limiting.
    fn throttled(self) -> Self {
        Self {
            throttled: true,
            ..self
        }
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

    /// The `Allow` header: the route's methods in the contract's order.
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
    handler: Handler,
) -> Endpoint {
    Endpoint {
        method,
        access,
        fields,
        handler,
        throttled: false,
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
/// `name` of the profile, its only writable field.
pub(crate) const PROFILE_NAME: Field = Field::text("name", "Name").optional().blank_ok().max(150);

/// `name` of a device.
pub(crate) const DEVICE_NAME: Field = Field::text("name", "Name").max(100);
/// `description` of a device.
pub(crate) const DEVICE_DESCRIPTION: Field = Field::text("description", "Description")
    .optional()
    .blank_ok()
    .max(1000);
/// `install_token` of an enrolment.
pub(crate) const INSTALL_TOKEN: Field = Field::text("install_token", "Install token");
/// `serial` of an enrolment.
pub(crate) const SERIAL: Field = Field::text("serial", "Serial").optional();
/// `machine_type` of an enrolment or a heartbeat.
pub(crate) const MACHINE_TYPE: Field = Field::text("machine_type", "Machine type").optional();
/// `agent_version` of a heartbeat.
pub(crate) const AGENT_VERSION: Field = Field::text("agent_version", "Agent version")
    .optional()
    .blank_ok()
    .max(100);
/// `operating_system` of a heartbeat.
pub(crate) const OPERATING_SYSTEM: Field = Field::text("operating_system", "Operating system")
    .optional()
    .blank_ok()
    .max(200);
/// `uname` of a heartbeat.
pub(crate) const UNAME: Field = Field::text("uname", "Uname")
    .optional()
    .blank_ok()
    .max(1000);
/// `disk_capacity` of a heartbeat.
pub(crate) const DISK_CAPACITY: Field = Field::integer("disk_capacity", "Disk capacity").optional();
/// `disk_used` of a heartbeat.
pub(crate) const DISK_USED: Field = Field::integer("disk_used", "Disk used").optional();
/// `ram_capacity` of a heartbeat.
pub(crate) const RAM_CAPACITY: Field = Field::integer("ram_capacity", "Ram capacity").optional();
/// `processor_speed` of a heartbeat.
pub(crate) const PROCESSOR_SPEED: Field =
    Field::integer("processor_speed", "Processor speed").optional();
/// `port` of a reported port.
pub(crate) const PORT_NUMBER: Field = Field::integer("port", "Port");
/// `protocol` of a reported port.
pub(crate) const PORT_PROTOCOL: Field = Field::text("protocol", "Protocol");
/// `name` of a reported port.
pub(crate) const PORT_NAME: Field = Field::text("name", "Name")
    .optional()
    .blank_ok()
    .max(domain::port::MAX_PORT_NAME_CHARS);
const PORT_FIELDS: &[Field] = &[PORT_NUMBER, PORT_PROTOCOL, PORT_NAME];
/// `ports` of a heartbeat.
pub(crate) const PORTS: Field = Field::list("ports", "Ports", PORT_FIELDS).optional();
/// `status` of an acknowledgement.
pub(crate) const ACK_STATUS: Field = Field::text("status", "Status");
/// `detail` of an acknowledgement.
pub(crate) const ACK_DETAIL: Field = Field::text("detail", "Detail")
    .optional()
    .blank_ok()
    .max(domain::command::MAX_ACK_DETAIL_CHARS);

/// `wait` of the command long poll (a query parameter).
pub(crate) const WAIT: Field = Field::integer("wait", "Wait").optional();

const LOGIN_FIELDS: &[Field] = &[EMAIL, PASSWORD];
const CHANGE_PASSWORD_FIELDS: &[Field] = &[OLD_PASSWORD, NEW_PASSWORD];
const EMAIL_FIELDS: &[Field] = &[EMAIL];
const KEY_FIELDS: &[Field] = &[KEY];
const RESET_CONFIRM_FIELDS: &[Field] = &[KEY, NEW_PASSWORD];
/// The profile as PUT and PATCH see it.
const PROFILE_FIELDS: &[Field] = &[
    Field::read_only("email", "Email", FieldType::Email),
    Field::read_only("email_verified", "Email verified", FieldType::Boolean),
    Field::read_only(
        "has_usable_password",
        "Has usable password",
        FieldType::Boolean,
    ),
    Field::read_only("install_command", "Install command", FieldType::String),
    Field::read_only("install_token", "Install token", FieldType::String),
    PROFILE_NAME,
];

/// The device as PUT and PATCH see it: every field, only two writable.
const DEVICE_FIELDS: &[Field] = &[
    Field::read_only("agent_version", "Agent version", FieldType::String),
    Field::read_only("created_time", "Created time", FieldType::Datetime),
    DEVICE_DESCRIPTION,
    Field::read_only("disk_capacity", "Disk capacity", FieldType::Integer),
    Field::read_only("disk_used", "Disk used", FieldType::Integer),
    Field::read_only("machine_type", "Machine type", FieldType::String),
    Field::read_only(
        "machine_type_display",
        "Machine type display",
        FieldType::String,
    ),
    DEVICE_NAME,
    Field::read_only("online", "Online", FieldType::Boolean),
    Field::read_only("operating_system", "Operating system", FieldType::String),
    Field::read_only("ports_url", "Ports url", FieldType::Url),
    Field::read_only("processor_speed", "Processor speed", FieldType::Integer),
    Field::read_only("ram_capacity", "Ram capacity", FieldType::Integer),
    Field::read_only("reboot_url", "Reboot url", FieldType::Url),
    Field::read_only("serial", "Serial", FieldType::String),
    Field::read_only("uname", "Uname", FieldType::String),
    Field::read_only("url", "Url", FieldType::Url),
    Field::read_only("wormhole_slug", "Wormhole slug", FieldType::String),
];
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
    vec![
        Route {
            pattern: "/agent/commands/",
            name: "Agent Commands",
            description: "Long poll for the device's pending commands: answers as soon as one is\npending, or with an empty list after `wait` seconds (0-60, default 0).",
            endpoints: vec![endpoint(Method::GET, Device, None, |c| {
                Box::pin(agent::commands(c))
            })],
        },
        Route {
            pattern: "/agent/commands/{id}/ack/",
            name: "Agent Command Ack",
            description: "Report the outcome of a command: `done` or `failed`, with an optional detail.",
            endpoints: vec![endpoint(Method::POST, Device, Some(ACK_FIELDS), |c| {
                Box::pin(agent::acknowledge(c))
            })],
        },
        Route {
            pattern: "/agent/heartbeat/",
            name: "Agent Heartbeat",
            description: "Report the device's facts; the device is online from now. Returns the\npending commands and the interval of the next heartbeat.",
            endpoints: vec![endpoint(
                Method::POST,
                Device,
                Some(HEARTBEAT_FIELDS),
                |c| Box::pin(agent::heartbeat(c)),
            )],
        },
        Route {
            pattern: "/auth/",
            name: "Auth Token",
            description: "Log in with e-mail and password to obtain an API token (POST),\nor end the token used for this request (DELETE).",
            endpoints: vec![
                endpoint(Method::POST, Public, Some(LOGIN_FIELDS), |c| {
                    Box::pin(auth::login(c))
                })
                .throttled(),
                endpoint(Method::DELETE, User, None, |c| Box::pin(auth::logout(c))),
            ],
        },
        Route {
            pattern: "/change-password/",
            name: "Change Password",
            description: "Set a new password. `old_password` is needed while the account has a usable password.",
            endpoints: vec![endpoint(
                Method::POST,
                User,
                Some(CHANGE_PASSWORD_FIELDS),
                |c| Box::pin(accounts::change_password(c)),
            )],
        },
        Route {
            pattern: "/devices/",
            name: "Device List",
            description: "All devices of the account, oldest first.",
            endpoints: vec![endpoint(Method::GET, User, None, |c| {
                Box::pin(devices::list(c))
            })],
        },
        Route {
            pattern: "/devices/{serial}/",
            name: "Device Detail",
            description: "One device of the account. Its `name` and `description` can be changed;\ndeleting it ends its agent's credential.",
            endpoints: vec![
                endpoint(Method::GET, User, None, |c| Box::pin(devices::detail(c))),
                endpoint(Method::PUT, User, Some(DEVICE_FIELDS), |c| {
                    Box::pin(devices::update(c))
                }),
                endpoint(Method::PATCH, User, Some(DEVICE_FIELDS), |c| {
                    Box::pin(devices::update(c))
                }),
                endpoint(Method::DELETE, User, None, |c| Box::pin(devices::delete(c))),
            ],
        },
        Route {
            pattern: "/devices/{serial}/ports/",
            name: "Device Ports",
            description: "The ports the device's agent last reported as listening.",
            endpoints: vec![endpoint(Method::GET, User, None, |c| {
                Box::pin(devices::ports(c))
            })],
        },
        Route {
            pattern: "/devices/{serial}/reboot/",
            name: "Device Reboot",
            description: "Dispatch a reboot signal to the device. No body needed.",
            endpoints: vec![endpoint(Method::POST, User, None, |c| {
                Box::pin(devices::reboot(c))
            })],
        },
        Route {
            pattern: "/install/",
            name: "Install",
            description: "Enrol a device in the account of an install token; returns its serial and\ndevice token. Installing a serial of the same account again re-keys it.",
            endpoints: vec![
                endpoint(Method::POST, Public, Some(INSTALL_FIELDS), |c| {
                    Box::pin(agent::install(c))
                })
                .throttled(),
            ],
        },
        Route {
            pattern: "/profile/",
            name: "Profile",
            description: "The account's profile. Only `name` can be changed.",
            endpoints: vec![
                endpoint(Method::GET, User, None, |c| Box::pin(accounts::profile(c))),
                endpoint(Method::PUT, User, Some(PROFILE_FIELDS), |c| {
                    Box::pin(accounts::update_profile(c))
                }),
                endpoint(Method::PATCH, User, Some(PROFILE_FIELDS), |c| {
                    Box::pin(accounts::update_profile(c))
                }),
            ],
        },
        Route {
            pattern: "/register/",
            name: "Register",
            description: "Create an account from an e-mail address. Returns an API token;\na verification link is mailed.",
            endpoints: vec![
                endpoint(Method::POST, Public, Some(EMAIL_FIELDS), |c| {
                    Box::pin(accounts::register(c))
                })
                .throttled(),
            ],
        },
        Route {
            pattern: "/reset-password/",
            name: "Reset Password",
            description: "Mail a link for setting a new password to the address, if it has an account.",
            endpoints: vec![
                endpoint(Method::POST, Public, Some(EMAIL_FIELDS), |c| {
                    Box::pin(password_reset::request(c))
                })
                .throttled(),
            ],
        },
        Route {
            pattern: "/reset-password/confirm/",
            name: "Reset Password Confirm",
            description: "Set a new password with the key of a reset link (POST), or open the\nlink's page with a form for it (GET with `?key=`).",
            endpoints: vec![
                endpoint(Method::GET, Public, None, |c| {
                    Box::pin(password_reset::page(c))
                }),
                endpoint(Method::POST, Public, Some(RESET_CONFIRM_FIELDS), |c| {
                    Box::pin(password_reset::confirm(c))
                })
                .throttled(),
            ],
        },
        Route {
            pattern: "/verify-email/",
            name: "Verify Email",
            description: "Verify the account's e-mail address with the key of a verification link.",
            endpoints: vec![
                endpoint(Method::POST, Public, Some(KEY_FIELDS), |c| {
                    Box::pin(verification::verify(c))
                })
                .throttled(),
            ],
        },
        // Before `/verify-email/{key}/`: `resend` is never taken as a key.
        Route {
            pattern: "/verify-email/resend/",
            name: "Resend Verification Email",
            description: "Mail a fresh verification link to the address, if an unverified account has it.",
            endpoints: vec![
                endpoint(Method::POST, Public, Some(EMAIL_FIELDS), |c| {
                    Box::pin(verification::resend(c))
                })
                .throttled(),
            ],
        },
        Route {
            pattern: "/verify-email/{key}/",
            name: "Verify Email Link",
            description: "The e-mailed verification link: verifies the address. Browsers get a page.",
            endpoints: vec![
                endpoint(Method::GET, Public, None, |c| {
                    Box::pin(verification::verify_link(c))
                })
                .throttled(),
            ],
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
