//! Extractors of what the caller sent: the body and the query string,
//! validated by the DRF field engine into typed values.

use super::core::{Extractor, JsonObject, Needs, from_request};
use crate::error::ApiError;
use crate::fields::{Field, FieldType, Form, FromForm};
use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpMessage, HttpRequest};
use serde_json::{Map, Value};
use std::future::{Ready, ready};

/// A body validated into `T` by the DRF field engine: every field's errors
/// at once, with DRF's messages.
pub struct Valid<T>(pub T);

impl<T: FromForm> FromRequest for Valid<T> {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(
            Submitted::<T>::read(req)
                .check()
                .map(Valid)
                .map_err(ApiError::from),
        )
    }
}

impl<T: FromForm> Extractor for Valid<T> {
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
    fn read(req: &HttpRequest) -> Self {
        let body = req
            .extensions_mut()
            .remove::<JsonObject>()
            .unwrap_or_default();
        Self {
            form: Form::new(body.0),
            _shape: std::marker::PhantomData,
        }
    }

    /// Validates the body: the value, or every field's errors.
    pub fn check(mut self) -> Result<T, Form> {
        let value = T::from_form(&mut self.form);
        match (value, self.form.has_errors()) {
            (Ok(value), false) => Ok(value),
            _ => Err(self.form),
        }
    }
}

impl<T: FromForm> FromRequest for Submitted<T> {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(Ok(Self::read(req)))
    }
}

impl<T: FromForm> Extractor for Submitted<T> {
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
        // The last of repeated parameters counts.
        let pairs: Vec<(String, String)> = pairs.into_iter().rev().collect();
        let mut params = Map::new();
        for field in T::FIELDS {
            if let Some((_, raw)) = pairs.iter().find(|(name, _)| name == field.name) {
                let value = match field.kind {
                    FieldType::Integer => raw
                        .trim()
                        .parse::<i64>()
                        .map_or_else(|_| Value::String(raw.clone()), Value::from),
                    _ => Value::String(raw.clone()),
                };
                params.insert(field.name.to_owned(), value);
            }
        }
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
