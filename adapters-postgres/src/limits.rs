//! Rate budgets in the database, so every instance on it counts against the
//! same ones: GCRA, one statement per request, by the database's clock
//! (`clock_timestamp()`), so instances whose clocks disagree still agree on
//! every budget. A key's row is locked while its statement runs, so requests
//! of one key at once are counted one after the other and exactly the
//! budget is allowed.

use crate::prepared;
use crate::store::PgStore;
use application::StoreError;
use application::ports::{LimitKey, Rate, RateLimits, Verdict};
use async_trait::async_trait;
use std::time::Duration;

/// Counts one request of key `$1` whose interval is `$2` seconds, with a
/// tolerance of `$3` seconds: a new key's TAT is now + interval; a known key's
/// moves one interval on from the later of its TAT and now, if that stays
/// within interval + tolerance of now; otherwise it stays where it is.
/// Returns the verdict and how far the TAT lies ahead of now, in seconds
/// (for a refused key, the wait is that less the tolerance). `EXCLUDED.tat`
/// is now + interval.
const COUNT: &str = "INSERT INTO rate_budgets AS b (key, tat, allowed) \
     VALUES ($1, clock_timestamp() + $2::FLOAT8 * INTERVAL '1 second', TRUE) \
     ON CONFLICT (key) DO UPDATE SET \
       allowed = GREATEST(b.tat + $2::FLOAT8 * INTERVAL '1 second', EXCLUDED.tat) \
                 <= EXCLUDED.tat + $3::FLOAT8 * INTERVAL '1 second', \
       tat = CASE WHEN GREATEST(b.tat + $2::FLOAT8 * INTERVAL '1 second', EXCLUDED.tat) \
                       <= EXCLUDED.tat + $3::FLOAT8 * INTERVAL '1 second' \
                  THEN GREATEST(b.tat + $2::FLOAT8 * INTERVAL '1 second', EXCLUDED.tat) \
                  ELSE b.tat END \
     RETURNING allowed, EXTRACT(EPOCH FROM tat - clock_timestamp())::FLOAT8";

/// Keys whose TAT has passed have their whole budget: a missing row says
/// the same. (No index on `tat`: it changes with every request, and an index
/// would cost each of them more than this once-a-minute scan.)
const FORGET_IDLE: &str = "DELETE FROM rate_budgets WHERE tat < clock_timestamp()";

#[async_trait]
impl RateLimits for PgStore {
    async fn count(&self, key: LimitKey, rate: Rate) -> Result<Verdict, StoreError> {
        let key = key.to_string();
        let interval = rate.interval().as_secs_f64();
        let tolerance = rate.tolerance().as_secs_f64();
        let (allowed, ahead) = self
            .run("count a request against its rate", |c| {
                let key = key.clone();
                Box::pin(async move {
                    let row = prepared::query_one(c, COUNT, &[&key, &interval, &tolerance]).await?;
                    Ok((row.try_get::<_, bool>(0)?, row.try_get::<_, f64>(1)?))
                })
            })
            .await?;
        if allowed {
            return Ok(Verdict::Allowed);
        }
        let wait = ahead - tolerance;
        Ok(Verdict::wait(
            Duration::try_from_secs_f64(wait).unwrap_or(Duration::ZERO),
        ))
    }

    async fn forget_idle(&self) -> Result<(), StoreError> {
        self.run("forget idle rate budgets", |c| {
            Box::pin(async move {
                prepared::execute(c, FORGET_IDLE, &[]).await?;
                Ok(())
            })
        })
        .await
    }
}
