//! Typed extractors: what a handler asks for in its arguments is what it
//! gets, already checked. Each stands on its own, as an actix `FromRequest`
//! that works on any route: the caller's extractors look the credentials up
//! (once per request), the path's read actix's match info, and the body's
//! read and parse the body themselves. Each also says what it
//! needs ([`Extractor::NEEDS`]), so an endpoint's access, body fields and
//! query parameters are read from its handler's signature: a handler that
//! takes a [`User`] serves a user route, and cannot be written without one.

mod caller;
mod core;
mod forms;

pub use caller::{
    Agent, BaseUrl, ClientIp, CommandIdPath, FilePath, KeyPath, PasswordChangeTurn, SerialPath,
    SignedOut, User, WantsHtml,
};
pub(crate) use caller::{authenticate, state};
pub use core::{Access, Extractor, Needs};
pub use forms::{PageKey, Query, Submitted, Valid};
