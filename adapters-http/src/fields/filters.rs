//! Readers of a list's filters in a query string (`GET /devices/`,
//! `docs/api.md`), as django-filter reads them: a filter that cannot match
//! narrows the list to nothing rather than failing the request.

use super::field::Field;
use super::form::{Form, Rejected};
use domain::selector::Search;
use serde_json::Value;

/// What a search filter asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchFilter {
    /// Not given, or empty: no filter.
    Everything,
    /// Devices whose name, description or serial holds the text.
    Matching(Search),
    /// Text no device can hold (a NUL character): nothing.
    Nothing,
}

impl Form {
    /// A boolean filter, django-filter's `BooleanFilter` with DRF's widget:
    /// `true`/`1` and `false`/`0` in any letter case (the query reader has
    /// made them booleans); anything else is refused.
    pub fn filter_boolean(&mut self, field: &Field) -> Result<Option<bool>, Rejected> {
        match self.raw(field) {
            None => Ok(None),
            Some(Value::Bool(value)) => Ok(Some(value)),
            Some(_) => Err(self.error(field.name, "Must be a valid boolean.")),
        }
    }

    /// A search filter: any text, as sent.
    pub fn filter_search(&mut self, field: &Field) -> SearchFilter {
        match self.raw(field) {
            Some(Value::String(text)) if text.contains('\0') => SearchFilter::Nothing,
            Some(Value::String(text)) => {
                Search::new(&text).map_or(SearchFilter::Everything, SearchFilter::Matching)
            }
            _ => SearchFilter::Everything,
        }
    }
}
