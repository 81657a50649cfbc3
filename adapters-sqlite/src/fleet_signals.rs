use crate::store::SqliteStore;
use application::ports::{FleetListener, FleetSignals};
use async_trait::async_trait;
use domain::AccountId;

/// Within this process only: other processes on the same file do not hear
/// the announcement (their consoles look again on their own now and then).
#[async_trait]
impl FleetSignals for SqliteStore {
    async fn announce(&self, owner: AccountId) {
        self.fleets.wake(&owner);
    }

    fn watch(&self, owner: AccountId) -> Box<dyn FleetListener> {
        Box::new(self.fleets.listen(&owner))
    }
}
