//! Probes for load balancers and orchestrators (`docs/operations.md`,
//! "Health, metrics and logs"): whether the process serves (live) and
//! whether it can serve requests, its database answering (ready). They read
//! no credentials, are never throttled, and their successes are logged at
//! debug only.

use crate::answer::Answer;
use crate::description::{AnswerObject, Described, ObjectSchema, Reply, ReplyBody, Tag};
use crate::error::ApiError;
use crate::fields::{Field, FieldType};
use crate::route::Route;
use crate::state::HttpState;
use actix_web::web::Data;
use actix_web::{HttpRequest, HttpResponse};
use serde::Serialize;
use std::time::Duration;

/// How long readiness waits for the database.
const DATABASE_TIMEOUT: Duration = Duration::from_secs(1);

/// The routes of this resource.
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(
            Tag::Health,
            "/health/live/",
            "Health Live",
            "Whether the process serves: 200 for as long as it does.",
        )
        .get("checkLiveness", "Whether the server process serves", live)
        .quiet()
        .without_credentials(),
        Route::new(
            Tag::Health,
            "/health/ready/",
            "Health Ready",
            "Whether the server can serve requests: 200 when its database answers\nwithin 1 s, else 503.",
        )
        .get("checkReadiness", "Whether the database answers", ready)
        .quiet()
        .without_credentials()
        .failure_example(503, Health::unavailable()),
    ]
}

/// Field `status`: `ok`, or `unavailable` when something it needs is not.
const STATUS: Field =
    Field::read_only("status", "Status", FieldType::String).choices(&["ok", "unavailable"]);

/// The liveness answer.
pub const LIVENESS_SCHEMA: ObjectSchema = ObjectSchema {
    name: "Liveness",
    description: "The process serves.",
    fields: &[STATUS],
};

/// The readiness answer.
pub const READINESS_SCHEMA: ObjectSchema = ObjectSchema {
    name: "Readiness",
    description: "Whether the server can serve requests, and its database's state.",
    fields: &[
        STATUS,
        Field::read_only("database", "Database", FieldType::String).choices(&["ok", "unavailable"]),
    ],
};

/// `{"status": "ok"}`.
#[derive(Debug, Serialize)]
pub struct Liveness {
    status: &'static str,
}

impl Described for Liveness {
    const SCHEMA: &'static ObjectSchema = &LIVENESS_SCHEMA;

    fn example() -> Self {
        Self { status: "ok" }
    }
}

/// `{"status": …, "database": …}`, answered with 200 when both are `ok`,
/// else 503.
#[derive(Debug, Serialize)]
pub struct Health {
    status: &'static str,
    database: &'static str,
}

impl Health {
    fn ready() -> Self {
        Self {
            status: "ok",
            database: "ok",
        }
    }

    fn unavailable() -> Self {
        Self {
            status: "unavailable",
            database: "unavailable",
        }
    }
}

impl Described for Health {
    const SCHEMA: &'static ObjectSchema = &READINESS_SCHEMA;

    fn example() -> Self {
        Self::ready()
    }
}

impl Answer for Health {
    const REPLY: Reply = Reply {
        status: 200,
        body: ReplyBody::One(AnswerObject::of::<Health>()),
        location: None,
    };

    fn respond(self, _req: &HttpRequest) -> HttpResponse {
        let mut response = if self.database == "ok" {
            HttpResponse::Ok()
        } else {
            HttpResponse::ServiceUnavailable()
        };
        response.json(self)
    }
}

/// `GET /health/live/`.
async fn live() -> Result<crate::answer::Json<Liveness>, ApiError> {
    Ok(crate::answer::Json(Liveness::example()))
}

/// `GET /health/ready/`: 503 when the database does not answer within 1 s.
async fn ready(state: Data<HttpState>) -> Result<Health, ApiError> {
    let answered = tokio::time::timeout(DATABASE_TIMEOUT, state.app.probes.database()).await;
    Ok(match answered {
        Ok(Ok(())) => Health::ready(),
        Ok(Err(error)) => {
            tracing::warn!(%error, "not ready: the database failed");
            Health::unavailable()
        }
        Err(_) => {
            tracing::warn!("not ready: the database did not answer within 1 s");
            Health::unavailable()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::description::assert_described;

    #[test]
    fn answers_write_their_described_fields() {
        assert_described(&Liveness::example());
        assert_described(&Health::ready());
        assert_described(&Health::unavailable());
    }
}
