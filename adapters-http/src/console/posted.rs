//! A form sent from a console page: read as the API reads a form body (at
//! most 64 KiB, within 10 s), refused with 403 unless it carries this
//! browser's CSRF token, then validated by the API's own field engine.

use super::browser::{Browser, CSRF_FIELD};
use super::failure::Failure;
use super::shown::Shown;
use crate::body;
use crate::error::ApiError;
use crate::fields::{Form, FromForm};
use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest};
use futures_util::future::LocalBoxFuture;
use serde_json::{Map, Value};

/// A console form whose CSRF token checked out.
pub(crate) struct Posted {
    values: Map<String, Value>,
    /// The browser that sent it.
    pub(crate) browser: Browser,
}

impl Posted {
    /// The form validated into `T`, or its errors as the page shows them.
    pub(crate) fn read<T: FromForm>(&self) -> Result<T, Shown> {
        self.read_without(&[])
    }

    /// Like [`read`](Self::read), leaving out the fields named in `skip`
    /// (those the page reads its own way).
    pub(crate) fn read_without<T: FromForm>(&self, skip: &[&str]) -> Result<T, Shown> {
        let mut values = self.values.clone();
        for field in skip {
            values.remove(*field);
        }
        let mut form = Form::new(values);
        let value = T::from_form(&mut form);
        match (value, form.has_errors()) {
            (Ok(value), false) => Ok(value),
            _ => Err(Shown::of(ApiError::from(form)).unwrap_or_default()),
        }
    }

    /// A field's text as sent, to fill the form in again.
    pub(crate) fn text(&self, name: &str) -> String {
        match self.values.get(name) {
            Some(Value::String(text)) => text.clone(),
            Some(Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        }
    }
}

impl FromRequest for Posted {
    type Error = Failure;
    type Future = LocalBoxFuture<'static, Result<Self, Failure>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let browser = Browser::from_request(req, payload);
        let (req, payload) = (req.clone(), payload.take());
        Box::pin(async move {
            let browser = browser.await?;
            let mut values = body::read_object(&req, payload, &[]).await?;
            let token = match values.remove(CSRF_FIELD) {
                Some(Value::String(token)) => token,
                _ => String::new(),
            };
            if !browser.accepts(&token) {
                return Err(Failure::ForgedForm);
            }
            Ok(Posted { values, browser })
        })
    }
}
