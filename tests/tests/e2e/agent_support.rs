//! Helpers shared by the agent API tests (docs/agent-protocol.md).

use crate::device_support::*;
use crate::support::*;
use serde_json::Value;

/// A server with alice and one device installed with her install token.
pub fn setup() -> (Server, Account, Agent) {
    let server = Server::start();
    let alice = server.account("alice@example.com");
    let agent = install(&server, &alice, "Kitchen Pi");
    (server, alice, agent)
}

/// A heartbeat that must be refused with exactly this 400 body.
#[track_caller]
pub fn refused_heartbeat(server: &Server, agent: &Agent, body: Value, errors: Value) {
    heartbeat_call(server, &agent.token, &body).expect(400, errors);
}
