//! Unit tests of the webhooks' use cases over a mocked store and transport.

use super::*;
use crate::use_cases::test_support::{Harness, Notes, account, by, now};
use domain::AccountId;

fn request(secret: Option<&str>) -> WebhookRequest {
    WebhookRequest {
        target: TargetUrl::parse("https://hooks.example.com/devmgr").unwrap(),
        events: EventSet::ALL,
        secret: secret.map(str::to_owned),
    }
}

fn record(id: &WebhookId) -> WebhookRecord {
    WebhookRecord {
        id: id.clone(),
        target_url: "https://hooks.example.com/devmgr".into(),
        events: EventSet::ALL,
        created_time: now(),
    }
}

#[tokio::test]
async fn a_refused_address_creates_nothing() {
    let mut h = Harness::new();
    h.transport
        .expect_check()
        .returning(|_| Err(AddressRefusal::Forbidden));
    h.webhooks.expect_create_webhook().never();
    let refused = h
        .app()
        .webhooks
        .create(by(&account(true, None)), request(None))
        .await;
    assert!(matches!(
        refused,
        Err(CreateWebhookError::Address(AddressRefusal::Forbidden))
    ));
}

#[tokio::test]
async fn a_webhook_without_a_secret_gets_forty_hex_digits_shown_once() {
    let mut h = Harness::new();
    h.transport.expect_check().returning(|_| Ok(()));
    h.webhooks
        .expect_create_webhook()
        .withf(|webhook, _| webhook.owner == AccountId(7) && webhook.secret.len() == 40)
        .times(1)
        .returning(|_, _| Ok(()));
    h.webhooks
        .expect_find_webhook()
        .returning(|_, id| Ok(Some(record(id))));
    let created = h
        .app()
        .webhooks
        .create(by(&account(true, None)), request(None))
        .await
        .unwrap();
    assert_eq!(created.secret.len(), 40);
    assert!(
        created
            .secret
            .chars()
            .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
    );
}

#[tokio::test]
async fn a_given_secret_is_kept() {
    let mut h = Harness::new();
    h.transport.expect_check().returning(|_| Ok(()));
    h.webhooks
        .expect_create_webhook()
        .withf(|webhook, _| webhook.secret == "a secret of my own")
        .returning(|_, _| Ok(()));
    h.webhooks
        .expect_find_webhook()
        .returning(|_, id| Ok(Some(record(id))));
    let created = h
        .app()
        .webhooks
        .create(
            by(&account(true, None)),
            request(Some("a secret of my own")),
        )
        .await
        .unwrap();
    assert_eq!(created.secret, "a secret of my own");
}

#[tokio::test]
async fn a_ping_carries_the_webhook_and_goes_to_it_alone() {
    let mut h = Harness::new();
    let id = WebhookId::from_random_bytes([2; 16]);
    h.webhooks
        .expect_find_webhook()
        .returning(|_, id| Ok(Some(record(id))));
    let expected = id.clone();
    h.webhooks
        .expect_queue_ping()
        .withf(move |owner, webhook, _, event| {
            *owner == AccountId(7)
                && *webhook == expected
                && event.event == WebhookEvent::Ping
                && event.time == now()
                && event.data.contains(expected.as_str())
        })
        .times(1)
        .returning(|_, _, _, _| Ok(true));
    let delivery = h
        .app()
        .webhooks
        .ping(&account(true, None), &id)
        .await
        .unwrap();
    assert!(delivery.is_some());
}

#[tokio::test]
async fn a_ping_of_an_unknown_webhook_queues_nothing() {
    let mut h = Harness::new();
    h.webhooks.expect_find_webhook().returning(|_, _| Ok(None));
    h.webhooks.expect_queue_ping().never();
    let id = WebhookId::from_random_bytes([2; 16]);
    assert_eq!(
        h.app()
            .webhooks
            .ping(&account(true, None), &id)
            .await
            .unwrap(),
        None
    );
}

#[tokio::test]
async fn creating_and_deleting_a_webhook_ask_to_record_it() {
    let mut h = Harness::new();
    let notes = Notes::default();
    let (create, delete) = (notes.clone(), notes.clone());
    h.transport.expect_check().returning(|_| Ok(()));
    h.webhooks
        .expect_create_webhook()
        .times(1)
        .returning(move |_, audit| {
            create.keep(audit);
            Ok(())
        });
    h.webhooks
        .expect_find_webhook()
        .returning(|_, id| Ok(Some(record(id))));
    h.webhooks
        .expect_delete_webhook()
        .times(1)
        .returning(move |_, _, audit| {
            delete.keep(audit);
            Ok(true)
        });
    let app = h.app();
    let owner = account(true, None);
    let created = app
        .webhooks
        .create(by(&owner), request(None))
        .await
        .unwrap();
    let id = created.webhook.id;
    assert!(app.webhooks.delete(by(&owner), &id).await.unwrap());
    let entry = |action: &str| {
        format!(
            "user owner@example.com 203.0.113.9 webhook.{action} webhook:{} {{}}",
            id.as_str()
        )
    };
    assert_eq!(notes.lines(), [entry("create"), entry("delete")]);
}
