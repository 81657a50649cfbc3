//! Times in a body, as the API writes them (`docs/api.md`, Conventions):
//! UTC, `YYYY-MM-DDThh:mm:ss`, no fraction, no zone; DRF `DateTimeField`'s
//! message for anything else.

use super::field::{Field, FieldType};
use super::form::{Form, Rejected};
use chrono::{NaiveDate, NaiveDateTime, NaiveTime};
use domain::Timestamp;
use serde_json::Value;

/// DRF `DateTimeField`'s message for a value in another form.
pub const INVALID_DATETIME: &str =
    "Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm:ss.";

impl Field {
    /// A required time field.
    pub const fn datetime(name: &'static str, label: &'static str) -> Self {
        Self {
            kind: FieldType::Datetime,
            ..Self::text(name, label)
        }
    }
}

impl Form {
    /// An optional time that may be `null`: `None` when absent or `null`.
    /// Only text of exactly the API's form names a time.
    pub fn optional_nullable_datetime(
        &mut self,
        field: &Field,
    ) -> Result<Option<Timestamp>, Rejected> {
        match self.raw(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) if parse_api_time(&text).is_some() => {
                Ok(parse_api_time(&text))
            }
            Some(_) => Err(self.error(field.name, INVALID_DATETIME)),
        }
    }
}

impl Form {
    /// A required time that may be `null` (a snooze's `until`): `None` for
    /// `null`; absent is "This field is required.".
    pub fn nullable_datetime(&mut self, field: &Field) -> Result<Option<Timestamp>, Rejected> {
        if !self.given(field) {
            return Err(self.error(field.name, "This field is required."));
        }
        self.optional_nullable_datetime(field)
    }
}

/// The time `text` writes in the API's form (`2026-11-24T09:30:00`, UTC);
/// `None` for any other text, or a date or time that does not exist.
pub fn parse_api_time(text: &str) -> Option<Timestamp> {
    let bytes = text.as_bytes();
    let shape = b"dddd-dd-ddTdd:dd:dd";
    let shaped = bytes.len() == shape.len()
        && bytes
            .iter()
            .zip(shape)
            .all(|(byte, expected)| match expected {
                b'd' => byte.is_ascii_digit(),
                other => byte == other,
            });
    if !shaped {
        return None;
    }
    let number = |range: std::ops::Range<usize>| text[range].parse::<u32>().ok();
    let year = i32::try_from(number(0..4)?).ok()?;
    let date = NaiveDate::from_ymd_opt(year, number(5..7)?, number(8..10)?)?;
    let time = NaiveTime::from_hms_opt(number(11..13)?, number(14..16)?, number(17..19)?)?;
    Some(NaiveDateTime::new(date, time).and_utc())
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::time::format_api;

    #[test]
    fn the_apis_form_reads_back_as_written() {
        for text in [
            "2026-11-24T09:30:00",
            "2028-02-29T23:59:59",
            "0001-01-01T00:00:00",
        ] {
            let at = parse_api_time(text).unwrap_or_else(|| panic!("{text}"));
            assert_eq!(format_api(at), text);
        }
    }

    #[test]
    fn other_forms_and_times_that_do_not_exist_are_refused() {
        for text in [
            "",
            "2026-11-24",
            "2026-11-24 09:30:00",
            "2026-11-24T09:30:00Z",
            "2026-11-24T09:30:00.5",
            "2026-11-24T09:30",
            "2026-1-24T09:30:00",
            "+2026-11-24T09:30:00",
            "2026-13-01T00:00:00",
            "2027-02-29T00:00:00",
            "2026-11-24T24:00:00",
            "2026-11-24T23:59:60",
            "２026-11-24T09:30:00",
        ] {
            assert_eq!(parse_api_time(text), None, "{text:?}");
        }
    }

    #[test]
    fn a_body_reads_a_time_null_or_nothing_and_refuses_the_rest() {
        const AT: Field = Field::datetime("at", "At").optional().nullable();
        let read = |value: serde_json::Value| {
            let mut form = Form::new(
                serde_json::json!({ "at": value })
                    .as_object()
                    .cloned()
                    .unwrap(),
            );
            (form.optional_nullable_datetime(&AT), form.has_errors())
        };
        assert_eq!(
            read("2026-11-24T09:30:00".into()),
            (Ok(parse_api_time("2026-11-24T09:30:00")), false)
        );
        assert_eq!(read(serde_json::Value::Null), (Ok(None), false));
        for refused in [
            serde_json::json!(1_700_000_000),
            serde_json::json!("tomorrow"),
            serde_json::json!(true),
        ] {
            let (value, errors) = read(refused.clone());
            assert!(value.is_err() && errors, "{refused}");
        }
        let mut absent = Form::new(serde_json::Map::new());
        assert_eq!(absent.optional_nullable_datetime(&AT), Ok(None));
        assert!(!absent.has_errors());
        assert!(absent.nullable_datetime(&AT).is_err() && absent.has_errors());
        let (mut null, mut late) = (
            Form::new(
                serde_json::json!({"at": null})
                    .as_object()
                    .cloned()
                    .unwrap(),
            ),
            Form::new(serde_json::json!({"at": "x"}).as_object().cloned().unwrap()),
        );
        assert_eq!(null.nullable_datetime(&AT), Ok(None));
        assert!(late.nullable_datetime(&AT).is_err() && late.has_errors());
    }
}
