use crate::notifications::{FLEET_CHANNEL, fleet_payload};
use crate::prepared;
use crate::store::PgStore;
use application::ports::{FleetListener, FleetSignals};
use async_trait::async_trait;
use domain::AccountId;

/// This instance's watchers are woken at once; every other instance on the
/// database hears a notification. This instance's own notification comes
/// back too and is ignored, so none of its watchers is woken twice.
#[async_trait]
impl FleetSignals for PgStore {
    async fn announce(&self, owner: AccountId) {
        self.fleets.wake(&owner);
        let payload = fleet_payload(owner, self.origin);
        let announced = self
            .run("announce a fleet change", |c| {
                let payload = payload.clone();
                Box::pin(async move {
                    prepared::execute(c, "SELECT pg_notify($1, $2)", &[&FLEET_CHANNEL, &payload])
                        .await?;
                    Ok(())
                })
            })
            .await;
        if let Err(error) = announced {
            tracing::warn!(account = owner.0, %error, "cannot announce a fleet change");
        }
    }

    fn watch(&self, owner: AccountId) -> Box<dyn FleetListener> {
        Box::new(self.fleets.listen(&owner))
    }
}
