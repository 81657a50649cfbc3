//! Typed extractors: what a handler asks for in its arguments is what it
//! gets, already checked. The dispatcher has authenticated the caller, matched
//! the path and parsed the body (see `dispatch`); the extractors read those
//! from the request and turn them into typed values. Each also says what it
//! needs ([`Extractor::NEEDS`]), so an endpoint's access, body fields and
//! query parameters are read from its handler's signature: a handler that
//! takes a [`User`] serves a user route, and cannot be written without one.

mod caller;
mod core;
mod forms;

pub use caller::{
    Agent, BaseUrl, CommandIdPath, FilePath, KeyPath, PasswordChangeTurn, SerialPath, SignedOut,
    User, WantsHtml,
};
pub use core::{Access, Extractor, Needs};
pub(crate) use core::{Caller, JsonObject, PathParams};
pub use forms::{PageKey, Query, Submitted, Valid};
