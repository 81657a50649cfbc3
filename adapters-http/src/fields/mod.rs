//! Request body fields: one description per field drives validation (with
//! DRF's messages, in [`Form`]), the OPTIONS metadata and the OpenAPI schemas.

mod field;
mod form;
pub mod messages;
#[cfg(test)]
mod tests;

pub use field::{Field, FieldType, actions_entry};
pub use form::{Form, FromForm, Rejected, ToForm, form_of, reads_back};
