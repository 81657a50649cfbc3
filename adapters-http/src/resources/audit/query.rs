//! The query of `GET /audit/` (`docs/api.md`, "Audit log"): a page
//! (`limit`, `offset`, as the jobs' lists) and two filters, `action` and
//! `target`, each keeping the entries whose value equals it, as
//! django-filter's exact filters do: an empty value is no filter, and a
//! value no entry can hold (an unknown action) matches nothing.

use crate::description::Parameter;
use crate::description::examples as ex;
use crate::fields::{Field, Form, FromForm, Rejected};
use crate::resources::lists::PageQuery;
use application::ports::{AuditFilter, Window};
use serde_json::Value;

/// `action`: only entries of this action.
const ACTION: Field = Field::text("action", "Action").optional().blank_ok();
/// `target`: only entries about this target.
const TARGET: Field = Field::text("target", "Target").optional().blank_ok();

/// The filters, as the OpenAPI document shows them.
pub(super) const FILTERS: [Parameter; 2] = [
    Parameter {
        name: "action",
        description: "Only the entries of this action (`device.reboot`; empty: no filter; a name that is no action matches nothing).",
        format: None,
        example: || "device.reboot".into(),
    },
    Parameter {
        name: "target",
        description: "Only the entries about this target (`device:<serial>`, `account:<e-mail>`, `job:<id>`, `monitor:<id>` or `webhook:<id>`; empty: no filter).",
        format: None,
        example: || format!("device:{}", ex::SERIAL).into(),
    },
];

/// What `GET /audit/` asks for.
pub struct AuditQuery {
    /// The page.
    pub window: Window,
    /// The filters, or `None` when one of them is text no entry can hold
    /// (a NUL character, which no database column stores).
    pub filter: Option<AuditFilter>,
}

impl FromForm for AuditQuery {
    const FIELDS: &'static [Field] = &[PageQuery::FIELDS[0], PageQuery::FIELDS[1], ACTION, TARGET];

    fn from_form(form: &mut Form) -> Result<Self, Rejected> {
        let window = PageQuery::from_form(form)?.0;
        let action = read_filter(form, &ACTION);
        let target = read_filter(form, &TARGET);
        let holdable = |value: &Option<String>| !value.as_deref().is_some_and(|v| v.contains('\0'));
        let filter =
            (holdable(&action) && holdable(&target)).then_some(AuditFilter { action, target });
        Ok(Self { window, filter })
    }
}

/// A filter's value as sent (a query string is text, though a whole number
/// in it reads as a number); absent or empty, no filter.
fn read_filter(form: &mut Form, field: &Field) -> Option<String> {
    let text = match form.raw(field)? {
        Value::String(text) => text,
        other => other.to_string(),
    };
    (!text.is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ApiError;
    use serde_json::{Value, json};

    fn read(query: Value) -> Result<AuditQuery, Value> {
        let mut form = Form::new(query.as_object().cloned().unwrap());
        let value = AuditQuery::from_form(&mut form);
        match (value, ApiError::from(form)) {
            (Ok(query), ApiError::Validation(errors)) if errors.is_empty() => Ok(query),
            (_, ApiError::Validation(errors)) => Err(Value::Object(errors)),
            (_, other) => panic!("{other}"),
        }
    }

    #[test]
    fn filters_are_kept_as_sent_and_empty_ones_dropped() {
        let query = read(json!({})).unwrap();
        assert_eq!(query.filter, Some(AuditFilter::default()));
        assert_eq!(
            query.window,
            Window {
                limit: 100,
                offset: 0
            }
        );
        let query = read(json!({"action": "device.reboot", "target": "", "limit": 5})).unwrap();
        assert_eq!(
            query.filter,
            Some(AuditFilter {
                action: Some("device.reboot".into()),
                target: None,
            })
        );
        assert_eq!(query.window.limit, 5);
        let query = read(json!({"action": "nope", "target": 12})).unwrap();
        assert_eq!(query.filter.unwrap().target.as_deref(), Some("12"));
    }

    #[test]
    fn text_no_entry_holds_matches_nothing() {
        let query = read(json!({"target": "device:\u{0}"})).unwrap();
        assert_eq!(query.filter, None);
    }

    #[test]
    fn the_page_is_judged_as_the_jobs_lists() {
        assert_eq!(
            read(json!({"limit": 0, "offset": -1, "action": ""})).err(),
            Some(json!({
                "limit": ["Ensure this value is greater than or equal to 1."],
                "offset": ["Ensure this value is greater than or equal to 0."],
            }))
        );
    }
}
