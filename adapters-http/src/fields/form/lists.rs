//! Lists of objects in a body, DRF `ListSerializer` style.

use super::{Form, Rejected};
use crate::error::NON_FIELD_ERRORS;
use crate::fields::field::Field;
use serde_json::{Value, json};

impl Form {
    /// Reads a present list; `None` once its errors are recorded.
    fn read_objects<T>(
        &mut self,
        field: &Field,
        mut item: impl FnMut(&mut Form) -> Result<T, Rejected>,
    ) -> Option<Vec<T>> {
        let value = self.raw(field)?;
        let items = match value {
            Value::Array(items) => items,
            Value::Null => {
                self.error(field.name, "This field may not be null.");
                return None;
            }
            other => {
                self.error(
                    field.name,
                    format!(
                        "Expected a list of items but got type \"{}\".",
                        crate::body::python_type_name(&other)
                    ),
                );
                return None;
            }
        };
        let mut values = Vec::with_capacity(items.len());
        let mut item_errors = Vec::with_capacity(items.len());
        for entry in items {
            let Value::Object(map) = entry else {
                item_errors.push(json!({
                    NON_FIELD_ERRORS: [format!(
                        "Invalid data. Expected a dictionary, but got {}.",
                        crate::body::python_type_name(&entry)
                    )]
                }));
                continue;
            };
            let mut form = Form::new(map);
            let value = item(&mut form);
            item_errors.push(Value::Object(form.errors));
            values.extend(value.ok());
        }
        if item_errors
            .iter()
            .any(|e| e.as_object().is_some_and(|e| !e.is_empty()))
        {
            self.error_value(field.name, Value::Array(item_errors));
            return None;
        }
        Some(values)
    }

    /// An optional list of objects, DRF `ListSerializer` style: each item is
    /// read by `item` on a [`Form`] of its own; the errors come back as a
    /// list with one object per item (empty for good items).
    pub fn optional_objects<T>(
        &mut self,
        field: &Field,
        item: impl FnMut(&mut Form) -> Result<T, Rejected>,
    ) -> Result<Option<Vec<T>>, Rejected> {
        if !self.given(field) {
            return Ok(None);
        }
        self.read_objects(field, item).map(Some).ok_or(Rejected(()))
    }
}
