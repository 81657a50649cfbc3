//! The extractor machinery: what an extractor needs ([`Needs`]), and a
//! macro for synchronous extractors.

use crate::fields::Field;
use actix_web::http::Method;
use actix_web::web::Data;
use actix_web::{FromRequest, HttpRequest};

/// Who may call an endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Anyone (a presented token must still be valid).
    Public,
    /// Only a caller with a valid user token.
    User,
    /// Only a device's agent with a valid device token.
    Device,
}

/// What an extractor needs from the request, for the route table.
#[derive(Clone, Copy)]
pub struct Needs {
    /// Who may call.
    pub access: Access,
    /// The body's fields, when it reads one.
    pub fields: Option<&'static [Field]>,
    /// The query parameters it reads.
    pub query: &'static [Field],
}

impl Needs {
    /// Nothing: public, no body, no query.
    pub const NOTHING: Needs = Needs {
        access: Access::Public,
        fields: None,
        query: &[],
    };

    /// What two extractors need together.
    pub const fn and(self, other: Needs) -> Needs {
        Needs {
            access: match (self.access, other.access) {
                (Access::Public, access) | (access, _) => access,
            },
            fields: match self.fields {
                Some(fields) => Some(fields),
                None => other.fields,
            },
            query: if self.query.is_empty() {
                other.query
            } else {
                self.query
            },
        }
    }
}

/// An argument of a handler.
pub trait Extractor: FromRequest {
    /// What it needs from the request.
    const NEEDS: Needs;
}

macro_rules! tuple_extractor {
    ($($T:ident),+) => {
        impl<$($T: Extractor + 'static),+> Extractor for ($($T,)+) {
            const NEEDS: Needs = Needs::NOTHING $(.and($T::NEEDS))+;
        }
    };
}
tuple_extractor!(A);
tuple_extractor!(A, B);
tuple_extractor!(A, B, C);
tuple_extractor!(A, B, C, D);
tuple_extractor!(A, B, C, D, E);

impl Extractor for () {
    const NEEDS: Needs = Needs::NOTHING;
}

impl<T: ?Sized + 'static> Extractor for Data<T> {
    const NEEDS: Needs = Needs::NOTHING;
}

impl Extractor for Method {
    const NEEDS: Needs = Needs::NOTHING;
}

impl Extractor for HttpRequest {
    const NEEDS: Needs = Needs::NOTHING;
}

/// The `{param}` of the matched path named `name`: actix's match info,
/// which the dispatcher fills as actix's router does.
pub(crate) fn param(req: &HttpRequest, name: &str) -> Option<String> {
    req.match_info().get(name).map(str::to_owned)
}

/// Implements [`FromRequest`] and [`Extractor`] with a synchronous reader.
macro_rules! from_request {
    ($type:ty, $needs:expr, |$req:ident| $read:expr) => {
        impl ::actix_web::FromRequest for $type {
            type Error = $crate::error::ApiError;
            type Future = ::std::future::Ready<Result<Self, $crate::error::ApiError>>;

            fn from_request(
                $req: &::actix_web::HttpRequest,
                _: &mut ::actix_web::dev::Payload,
            ) -> Self::Future {
                let read = || -> Result<Self, $crate::error::ApiError> { $read };
                ::std::future::ready(read())
            }
        }

        impl $crate::extract::Extractor for $type {
            const NEEDS: $crate::extract::Needs = $needs;
        }
    };
}
pub(crate) use from_request;
