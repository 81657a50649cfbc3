//! The route table: every path, its methods, who may call them, and the
//! body fields each takes (which also drive the OPTIONS metadata).

use crate::dispatch::Handler;
use crate::fields::{Field, FieldType};
use crate::handlers::{accounts, auth, devices, password_reset, verification};
use actix_web::http::Method;
use std::sync::LazyLock;

/// Who may call an endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Anyone (a presented token must still be valid).
    Public,
    /// Only a caller with a valid user token.
    User,
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

    /// Whether every method needs a user token.
    pub fn is_protected(&self) -> bool {
        self.endpoints.iter().all(|e| e.access == Access::User)
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

static ROUTES: LazyLock<Vec<Route>> = LazyLock::new(|| {
    use Access::{Public, User};
    vec![
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
            description: "One device of the account.",
            endpoints: vec![endpoint(Method::GET, User, None, |c| {
                Box::pin(devices::detail(c))
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
