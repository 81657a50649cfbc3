//! Numbers that may have a fraction, as DRF's `FloatField` reads them
//! (`docs/api.md`, "Jobs": a job's `halt_failure_ratio`).

use super::field::{Field, FieldType};
use super::form::{Form, Rejected};
use serde_json::Value;

/// DRF `FloatField`'s message for a value that is no number.
pub const INVALID_NUMBER: &str = "A valid number is required.";

impl Field {
    /// A required number field (with or without a fraction).
    pub const fn float(name: &'static str, label: &'static str) -> Self {
        Self {
            kind: FieldType::Float,
            ..Self::text(name, label)
        }
    }
}

impl Form {
    /// An optional number within the field's range, DRF `FloatField` style:
    /// any JSON number (a form's text that spells one has become one), never
    /// text or a boolean, as the OpenAPI document says; `null` is refused.
    pub fn optional_float(&mut self, field: &Field) -> Result<Option<f64>, Rejected> {
        let Some(value) = self.raw(field) else {
            return Ok(None);
        };
        let number = match value {
            Value::Null => return Err(self.error(field.name, "This field may not be null.")),
            Value::Number(number) => number.as_f64().filter(|n| n.is_finite()),
            _ => None,
        };
        let Some(number) = number else {
            return Err(self.error(field.name, INVALID_NUMBER));
        };
        if let Some(minimum) = field.minimum
            && number < minimum as f64
        {
            let message = format!("Ensure this value is greater than or equal to {minimum}.");
            return Err(self.error(field.name, message));
        }
        if let Some(maximum) = field.maximum
            && number > maximum as f64
        {
            let message = format!("Ensure this value is less than or equal to {maximum}.");
            return Err(self.error(field.name, message));
        }
        Ok(Some(number))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ApiError;
    use serde_json::json;

    const RATIO: Field = Field::float("ratio", "Ratio").optional().range(0, 1);

    fn read(body: Value) -> (Result<Option<f64>, Rejected>, Value) {
        let mut form = Form::new(body.as_object().cloned().unwrap());
        let value = form.optional_float(&RATIO);
        let errors = match ApiError::from(form) {
            ApiError::Validation(errors) => Value::Object(errors),
            other => panic!("{other}"),
        };
        (value, errors)
    }

    #[test]
    fn numbers_with_and_without_a_fraction_are_read_within_the_bounds() {
        assert_eq!(read(json!({})).0, Ok(None));
        assert_eq!(read(json!({"ratio": 0.25})).0, Ok(Some(0.25)));
        assert_eq!(read(json!({"ratio": 1})).0, Ok(Some(1.0)));
        assert_eq!(read(json!({"ratio": 0})).0, Ok(Some(0.0)));
    }

    #[test]
    fn anything_else_gets_drfs_messages() {
        let cases = [
            (json!("0.5"), INVALID_NUMBER),
            (json!(true), INVALID_NUMBER),
            (json!([0.5]), INVALID_NUMBER),
            (json!(null), "This field may not be null."),
            (json!(1.5), "Ensure this value is less than or equal to 1."),
            (
                json!(-0.01),
                "Ensure this value is greater than or equal to 0.",
            ),
        ];
        for (value, message) in cases {
            let (read, errors) = read(json!({ "ratio": value }));
            assert!(read.is_err(), "{value}");
            assert_eq!(errors, json!({"ratio": [message]}), "{value}");
        }
    }

    #[test]
    fn options_show_the_type_and_the_bounds() {
        let meta = RATIO.metadata();
        assert_eq!(meta["type"], "float");
        assert_eq!(meta["min_value"], 0);
        assert_eq!(meta["max_value"], 1);
    }
}
