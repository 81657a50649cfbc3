//! Extractors of what the caller sent: the body and the query string,
//! validated by the DRF field engine into typed values.

use super::core::{Extractor, Needs, from_request};
use crate::body::{self, FormValue, typed_values};
use crate::error::ApiError;
use crate::fields::{Field, Form, FromForm};
use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest};
use futures_util::future::LocalBoxFuture;
use std::future::{Ready, ready};

/// A body validated into `T` by the DRF field engine: every field's errors
/// at once, with DRF's messages. It reads the body itself (JSON or a form,
/// at most 64 KiB, within 10 s: `docs/api.md`, Request bodies).
pub struct Valid<T>(pub T);

impl<T: FromForm + 'static> FromRequest for Valid<T> {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let submitted = Submitted::<T>::from_request(req, payload);
        Box::pin(async move { submitted.await?.check().map(Valid).map_err(ApiError::from) })
    }
}

impl<T: FromForm + 'static> Extractor for Valid<T> {
    const NEEDS: Needs = Needs {
        fields: Some(T::FIELDS),
        ..Needs::NOTHING
    };
}

/// A body to be validated into `T` by the handler, which may add errors of
/// its own to the field engine's before answering (enrolment does).
pub struct Submitted<T> {
    form: Form,
    _shape: std::marker::PhantomData<T>,
}

impl<T: FromForm> Submitted<T> {
    /// Validates the body: the value, or every field's errors.
    pub fn check(mut self) -> Result<T, Form> {
        let value = T::from_form(&mut self.form);
        match (value, self.form.has_errors()) {
            (Ok(value), false) => Ok(value),
            _ => Err(self.form),
        }
    }
}

impl<T: FromForm + 'static> FromRequest for Submitted<T> {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let (req, payload) = (req.clone(), payload.take());
        Box::pin(async move {
            let object = body::read_object(&req, payload, T::FIELDS).await?;
            Ok(Self {
                form: Form::new(object),
                _shape: std::marker::PhantomData,
            })
        })
    }
}

impl<T: FromForm + 'static> Extractor for Submitted<T> {
    const NEEDS: Needs = Needs {
        fields: Some(T::FIELDS),
        ..Needs::NOTHING
    };
}

/// Query parameters validated into `T` by the DRF field engine. A query
/// string is text: a whole number in it counts as a number.
pub struct Query<T>(pub T);

impl<T: FromForm> FromRequest for Query<T> {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let pairs = actix_web::web::Query::<Vec<(String, String)>>::from_query(req.query_string())
            .map(actix_web::web::Query::into_inner)
            .unwrap_or_default();
        let declared = pairs
            .into_iter()
            .filter(|(name, _)| T::FIELDS.iter().any(|field| field.name == name))
            .map(|(name, value)| (name, FormValue::Text(value)));
        let params = typed_values(declared, T::FIELDS);
        let mut form = Form::new(params);
        let value = T::from_form(&mut form);
        ready(match (value, form.has_errors()) {
            (Ok(value), false) => Ok(Query(value)),
            _ => Err(ApiError::from(form)),
        })
    }
}

impl<T: FromForm> Extractor for Query<T> {
    const NEEDS: Needs = Needs {
        query: T::FIELDS,
        ..Needs::NOTHING
    };
}

/// `key` of the reset link's page (a query parameter).
const PAGE_KEY: Field = Field::text("key", "Key").optional().blank_ok();

/// The `?key=` of a reset link's page, as sent (the form checks it later).
pub struct PageKey(pub Option<String>);

#[derive(serde::Deserialize)]
struct KeyQuery {
    key: Option<String>,
}

from_request!(
    PageKey,
    Needs {
        query: &[PAGE_KEY],
        ..Needs::NOTHING
    },
    |req| Ok(PageKey(
        actix_web::web::Query::<KeyQuery>::from_query(req.query_string())
            .ok()
            .and_then(|query| query.into_inner().key)
    ))
);
