//! Request body fields: one description per field drives validation (with
//! DRF's messages, in [`Form`]), the OPTIONS metadata and the OpenAPI schemas.

mod choice_list;
pub mod datetime;
mod field;
mod filters;
mod form;
pub mod messages;
pub mod numbers;
pub mod selector;
mod tags;
#[cfg(test)]
mod tests;

pub use field::{Field, FieldType, actions_entry};
pub use filters::SearchFilter;
pub use form::{Form, FromForm, Rejected, ToForm, form_of, reads_back};
pub use tags::{TAG_ITEM, TAG_PATTERN};
