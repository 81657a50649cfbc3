//! The typed readers a body type's [`FromForm`](super::FromForm) calls, one
//! per kind of field: each gives the field's value in the type that holds
//! it, or a [`Rejected`] once the field's errors are recorded.

use super::{Form, Rejected};
use crate::fields::field::Field;
use crate::fields::messages::text_error_message;
use domain::{BoundedText, EmailAddress};

/// The typed readers. A required reader reports "This field is required."
/// for an absent field; an optional one gives `None`.
impl Form {
    fn present(&mut self, field: &Field) -> Result<(), Rejected> {
        if self.data.contains_key(field.name) {
            Ok(())
        } else {
            Err(self.error(field.name, "This field is required."))
        }
    }

    pub(crate) fn given(&self, field: &Field) -> bool {
        self.data.contains_key(field.name)
    }

    /// A required text field, DRF `CharField` style: only JSON strings are
    /// text; blank text and bidirectional controls are judged by the
    /// domain's text rules.
    pub fn text(&mut self, field: &Field) -> Result<String, Rejected> {
        self.present(field)?;
        self.read_text(field).ok_or(Rejected(()))
    }

    /// An optional text field.
    pub fn optional_text(&mut self, field: &Field) -> Result<Option<String>, Rejected> {
        if !self.given(field) {
            return Ok(None);
        }
        self.read_text(field).map(Some).ok_or(Rejected(()))
    }

    /// A required text field read into the domain type that holds it; the
    /// type's rule is the field's, so a refusal is a field error.
    pub fn checked<T: BoundedText>(&mut self, field: &Field) -> Result<T, Rejected> {
        let text = self.text(field)?;
        T::parse(text).map_err(|e| self.error(field.name, text_error_message(e)))
    }

    /// An optional text field read into its domain type.
    pub fn optional_checked<T: BoundedText>(
        &mut self,
        field: &Field,
    ) -> Result<Option<T>, Rejected> {
        match self.optional_text(field)? {
            None => Ok(None),
            Some(text) => T::parse(text)
                .map(Some)
                .map_err(|e| self.error(field.name, text_error_message(e))),
        }
    }

    /// A required e-mail address field.
    pub fn email(&mut self, field: &Field) -> Result<EmailAddress, Rejected> {
        self.present(field)?;
        self.read_email(field).ok_or(Rejected(()))
    }

    /// A required whole number within the field's range, DRF `IntegerField`
    /// style: JSON integers (and numbers with no fraction, which JSON Schema
    /// counts as integers), never text; read into the type that holds it
    /// (`i64`, or a domain type whose bounds are the field's).
    pub fn integer<T: TryFrom<i64>>(&mut self, field: &Field) -> Result<T, Rejected> {
        self.present(field)?;
        match self.read_integer(field) {
            Some(Some(number)) => self.convert(field, number),
            Some(None) => Err(self.error(field.name, "This field may not be null.")),
            None => Err(Rejected(())),
        }
    }

    /// A number within the field's range as `T`; a type that refuses it
    /// disagrees with the field, and the number is refused alike.
    fn convert<T: TryFrom<i64>>(&mut self, field: &Field, number: i64) -> Result<T, Rejected> {
        T::try_from(number).map_err(|_| self.error(field.name, "A valid integer is required."))
    }

    /// An optional whole number; `null` is refused.
    pub fn optional_integer<T: TryFrom<i64>>(
        &mut self,
        field: &Field,
    ) -> Result<Option<T>, Rejected> {
        if !self.given(field) {
            return Ok(None);
        }
        self.integer(field).map(Some)
    }

    /// An optional whole number that may be `null` (an unknown value):
    /// `None` when absent, `Some(None)` for `null`.
    pub fn optional_nullable_integer<T: TryFrom<i64>>(
        &mut self,
        field: &Field,
    ) -> Result<Option<Option<T>>, Rejected> {
        if !self.given(field) {
            return Ok(None);
        }
        match self.read_integer(field) {
            Some(Some(number)) => self.convert(field, number).map(|value| Some(Some(value))),
            Some(None) => Ok(Some(None)),
            None => Err(Rejected(())),
        }
    }

    /// A required choice among the field's choices, DRF `ChoiceField` style
    /// (a number is compared as its text), read into its domain value by
    /// `parse` (`Protocol::from_code`).
    pub fn choice<T>(
        &mut self,
        field: &Field,
        parse: impl Fn(&str) -> Option<T>,
    ) -> Result<T, Rejected> {
        self.present(field)?;
        let code = self.read_choice(field).ok_or(Rejected(()))?;
        parse(code)
            .ok_or_else(|| self.error(field.name, format!("\"{code}\" is not a valid choice.")))
    }

    /// An optional choice.
    pub fn optional_choice<T>(
        &mut self,
        field: &Field,
        parse: impl Fn(&str) -> Option<T>,
    ) -> Result<Option<T>, Rejected> {
        if !self.given(field) {
            return Ok(None);
        }
        self.choice(field, parse).map(Some)
    }

    /// An optional UUID, DRF `UUIDField` style: any spelling that names a
    /// UUID; the value comes back canonical (lowercase, hyphenated).
    pub fn optional_serial(&mut self, field: &Field) -> Result<Option<domain::Serial>, Rejected> {
        if !self.given(field) {
            return Ok(None);
        }
        self.read_serial(field).map(Some).ok_or(Rejected(()))
    }

    /// Whether the field was given as valid text (its value then), whatever
    /// the other fields' fate: for checks a handler adds to the engine's.
    pub fn valid_text(&mut self, field: &Field) -> Option<String> {
        let before = self.errors.clone();
        let value = self.optional_text(field).ok().flatten();
        self.errors = before;
        value
    }
}
