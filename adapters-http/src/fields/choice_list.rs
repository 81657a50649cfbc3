//! Lists of choices, DRF `ListField(child=ChoiceField(…), allow_empty=False)`
//! style (a webhook's `events`: `docs/api.md`, "Webhooks"). In a form, the
//! list is its key repeated (`events=alert.opened&events=job.halted`). An
//! item's errors come back under its index, as DRF reports a list's child
//! errors: `{"events": {"1": ["\"x\" is not a valid choice."]}}`.

use super::field::{Field, FieldType};
use super::form::{Form, Rejected};
use super::messages::python_type_name;
use crate::error::ApiError;
use serde_json::{Map, Value};

impl Field {
    /// An optional, non-empty list of `item`s, each one of its choices.
    pub const fn choice_list(
        name: &'static str,
        label: &'static str,
        item: &'static Field,
    ) -> Self {
        Self {
            kind: FieldType::List,
            required: false,
            minimum: Some(1),
            item: Some(item),
            ..Self::text(name, label)
        }
    }

    /// One choice of a list of choices.
    pub const fn choice_item(name: &'static str, choices: &'static [&'static str]) -> Self {
        Self {
            kind: FieldType::Choice,
            ..Self::text(name, name).choices(choices)
        }
    }
}

impl Form {
    /// An optional, non-empty list of choices: each item read by `parse`
    /// (`WebhookEvent::parse`), in the order sent. Refused: anything but a
    /// list, `null`, an empty list, and each item that is not a choice.
    pub fn optional_choice_list<T>(
        &mut self,
        field: &Field,
        parse: impl Fn(&str) -> Option<T>,
    ) -> Result<Option<Vec<T>>, Rejected> {
        let Some(value) = self.raw(field) else {
            return Ok(None);
        };
        let items = match value {
            Value::Array(items) => items,
            Value::Null => return Err(self.error(field.name, "This field may not be null.")),
            other => {
                let message = format!(
                    "Expected a list of items but got type \"{}\".",
                    python_type_name(&other)
                );
                return Err(self.error(field.name, message));
            }
        };
        if items.is_empty() {
            return Err(self.error(field.name, "This list may not be empty."));
        }
        let item_field = field
            .item
            .copied()
            .unwrap_or(Field::choice_item("item", &[]));
        let mut values = Vec::with_capacity(items.len());
        let mut errors = Map::new();
        for (index, item) in items.into_iter().enumerate() {
            let mut one = Map::new();
            one.insert(item_field.name.to_owned(), item);
            let mut form = Form::new(one);
            let read = form.choice(&item_field, &parse);
            match (read, ApiError::from(form)) {
                (Ok(value), _) => values.push(value),
                (Err(_), ApiError::Validation(mut messages)) => {
                    let messages = messages.remove(item_field.name).unwrap_or_default();
                    errors.insert(index.to_string(), messages);
                }
                (Err(_), _) => {}
            }
        }
        if errors.is_empty() {
            Ok(Some(values))
        } else {
            Err(self.nested_errors(field.name, Value::Object(errors)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const COLOUR: Field = Field::choice_item("colour", &["red", "green", "1"]);
    const COLOURS: Field = Field::choice_list("colours", "Colours", &COLOUR);

    fn read(body: Value) -> (Option<Vec<String>>, Value) {
        let mut form = Form::new(body.as_object().cloned().unwrap());
        let value = form
            .optional_choice_list(&COLOURS, |code| Some(code.to_owned()))
            .ok()
            .flatten();
        let errors = match ApiError::from(form) {
            ApiError::Validation(errors) => Value::Object(errors),
            other => panic!("{other}"),
        };
        (value, errors)
    }

    #[test]
    fn a_list_of_choices_is_read_in_the_order_sent() {
        let (value, errors) = read(json!({"colours": ["green", "red", "green", 1]}));
        assert_eq!(value.unwrap(), ["green", "red", "green", "1"]);
        assert_eq!(errors, json!({}));
        assert_eq!(read(json!({})), (None, json!({})));
    }

    #[test]
    fn each_failing_item_is_reported_under_its_index() {
        let (value, errors) = read(json!({"colours": ["red", "blue", null, "green", "Red"]}));
        assert_eq!(value, None);
        assert_eq!(
            errors,
            json!({"colours": {
                "1": ["\"blue\" is not a valid choice."],
                "2": ["This field may not be null."],
                "4": ["\"Red\" is not a valid choice."],
            }})
        );
    }

    #[test]
    fn anything_but_a_non_empty_list_is_refused() {
        for (value, message) in [
            (json!([]), "This list may not be empty."),
            (json!(null), "This field may not be null."),
            (
                json!("red"),
                "Expected a list of items but got type \"str\".",
            ),
            (json!(1), "Expected a list of items but got type \"int\"."),
            (
                json!({"a": 1}),
                "Expected a list of items but got type \"dict\".",
            ),
        ] {
            let (read, errors) = read(json!({ "colours": value }));
            assert_eq!(read, None, "{value}");
            assert_eq!(errors, json!({"colours": [message]}), "{value}");
        }
    }

    #[test]
    fn options_show_a_list_of_choices() {
        let meta = COLOURS.metadata();
        assert_eq!(meta["type"], "list");
        assert_eq!(meta["required"], false);
        assert_eq!(meta["child"]["type"], "choice");
        assert_eq!(
            meta["child"]["choices"][0],
            json!({"value": "red", "display_name": "red"})
        );
    }
}
