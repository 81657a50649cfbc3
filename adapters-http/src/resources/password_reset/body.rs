//! The body of `POST /reset-password/confirm/`, which the console's reset
//! page sends too.

use crate::fields::{Field, Form, FromForm, Rejected, ToForm, form_of};
use crate::resources::accounts::NEW_PASSWORD;
use serde_json::{Map, Value};

/// `key` of a reset.
pub(crate) const KEY: Field = Field::text("key", "Key");

/// A reset's body: the link's key and the new password.
pub struct Reset {
    pub(crate) key: String,
    pub(crate) new_password: String,
}

impl FromForm for Reset {
    const FIELDS: &'static [Field] = &[KEY, NEW_PASSWORD];

    fn from_form(form: &mut Form) -> Result<Self, Rejected> {
        let key = form.text(&KEY);
        let new_password = form.text(&NEW_PASSWORD);
        Ok(Self {
            key: key?,
            new_password: new_password?,
        })
    }
}

impl ToForm for Reset {
    fn to_form(&self) -> Map<String, Value> {
        form_of([
            (&KEY, self.key.as_str().into()),
            (&NEW_PASSWORD, self.new_password.as_str().into()),
        ])
    }
}
