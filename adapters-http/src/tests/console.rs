//! The console's page handlers in-process, on the test clock: sessions,
//! CSRF, security headers, the API's messages, and the API's rules kept.

use super::TestApi;
use super::console_support::{PASSWORD, TestBrowser, account, device, html, location};
use actix_web::http::{StatusCode, header};
use serde_json::json;

const OWNER: &str = "owner@example.com";

#[actix_web::test]
async fn signed_out_every_console_page_leads_to_sign_in() {
    let api = TestApi::new();
    account(&api, OWNER).await;
    let serial = device(&api, OWNER, "pi", false).await;
    let mut browser = TestBrowser::new(&api);
    for path in [
        "/console/".to_owned(),
        "/console/account/".to_owned(),
        "/console/add-device/".to_owned(),
        "/console/events/".to_owned(),
        format!("/console/devices/{serial}/"),
        format!("/console/devices/{serial}/edit/"),
    ] {
        let answer = browser.get(&path).await;
        assert_eq!(answer.status, StatusCode::FOUND, "{path}");
        assert_eq!(location(&answer), "/console/login/", "{path}");
    }
    for path in [
        "/console/login/",
        "/console/register/",
        "/console/reset-password/",
    ] {
        assert_eq!(browser.get(path).await.status, StatusCode::OK, "{path}");
    }
}

#[actix_web::test]
async fn signing_in_makes_a_session_cookie_and_opens_the_fleet() {
    let api = TestApi::new();
    account(&api, OWNER).await;
    let mut browser = TestBrowser::new(&api);
    let signed_in = browser.sign_in(OWNER, PASSWORD).await;
    assert_eq!(signed_in.status, StatusCode::SEE_OTHER);
    assert_eq!(location(&signed_in), "/console/");
    let cookie = signed_in
        .headers
        .get(header::SET_COOKIE)
        .unwrap()
        .to_str()
        .unwrap();
    assert!(cookie.starts_with("devmgr_session="), "{cookie}");
    for flag in ["HttpOnly", "SameSite=Lax", "Path=/"] {
        assert!(cookie.contains(flag), "{cookie}");
    }
    assert!(!cookie.contains("Secure"), "{cookie}");
    let fleet = browser.get("/console/").await;
    assert_eq!(fleet.status, StatusCode::OK);
    assert!(html(&fleet).contains("<h1 id=\"devices-heading\">Devices</h1>"));
    assert!(html(&fleet).contains("0 online"));
}

#[actix_web::test]
async fn cookies_are_secure_behind_an_https_public_url() {
    let api = TestApi::with_public_url(Some("https://devmgr.example"));
    account(&api, OWNER).await;
    let mut browser = TestBrowser::new(&api);
    let login = browser.get("/console/login/").await;
    let form_key = login
        .headers
        .get(header::SET_COOKIE)
        .unwrap()
        .to_str()
        .unwrap();
    assert!(form_key.contains("Secure"), "{form_key}");
    let signed_in = browser
        .post(
            "/console/login/",
            &[("email", OWNER), ("password", PASSWORD)],
        )
        .await;
    let cookie = signed_in
        .headers
        .get(header::SET_COOKIE)
        .unwrap()
        .to_str()
        .unwrap();
    assert!(cookie.contains("Secure"), "{cookie}");
}

#[actix_web::test]
async fn a_form_without_this_browsers_csrf_token_is_403() {
    let api = TestApi::new();
    account(&api, OWNER).await;
    let serial = device(&api, OWNER, "pi", false).await;
    let mut browser = TestBrowser::new(&api);
    browser.get("/console/login/").await;
    let missing = browser
        .post_raw(
            "/console/login/",
            &[("email", OWNER), ("password", PASSWORD)],
        )
        .await;
    assert_eq!(missing.status, StatusCode::FORBIDDEN);
    let forged = browser
        .post_raw(
            "/console/login/",
            &[
                ("csrf_token", "x".repeat(43).as_str()),
                ("email", OWNER),
                ("password", PASSWORD),
            ],
        )
        .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
    browser.sign_in(OWNER, PASSWORD).await;
    browser.get("/console/").await;
    for path in [
        format!("/console/devices/{serial}/reboot/"),
        format!("/console/devices/{serial}/delete/"),
        "/console/account/logout-all/".to_owned(),
        "/console/logout/".to_owned(),
    ] {
        let answer = browser.post_raw(&path, &[]).await;
        assert_eq!(answer.status, StatusCode::FORBIDDEN, "{path}");
    }
    // Nothing happened: the device is there, the session too.
    let page = browser.get(&format!("/console/devices/{serial}/")).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(html(&page).contains("No commands yet."));
}

#[actix_web::test]
async fn pages_carry_a_strict_policy_and_no_inline_script() {
    let api = TestApi::new();
    let mut browser = TestBrowser::new(&api);
    let page = browser.get("/console/login/").await;
    let policy = page
        .headers
        .get(header::CONTENT_SECURITY_POLICY)
        .unwrap()
        .to_str()
        .unwrap();
    assert!(policy.contains("script-src 'self'"), "{policy}");
    assert!(policy.contains("frame-ancestors 'none'"), "{policy}");
    assert!(!policy.contains("unsafe-inline"), "{policy}");
    assert_eq!(
        page.headers.get(header::X_CONTENT_TYPE_OPTIONS).unwrap(),
        "nosniff"
    );
    let text = html(&page);
    assert_eq!(
        text.matches("<script").count(),
        text.matches("<script src=\"/console/static/console.js\" defer></script>")
            .count()
    );
    assert!(!text.contains("style=\""));
}

#[actix_web::test]
async fn a_session_ends_after_fourteen_idle_days_and_use_keeps_it() {
    let api = TestApi::new();
    account(&api, OWNER).await;
    let mut browser = TestBrowser::new(&api);
    browser.sign_in(OWNER, PASSWORD).await;
    api.clock().advance(chrono::Duration::days(13));
    assert_eq!(browser.get("/console/").await.status, StatusCode::OK);
    api.clock().advance(chrono::Duration::days(13));
    assert_eq!(browser.get("/console/").await.status, StatusCode::OK);
    api.clock()
        .advance(chrono::Duration::days(14) + chrono::Duration::seconds(1));
    let expired = browser.get("/console/").await;
    assert_eq!(expired.status, StatusCode::FOUND);
    assert_eq!(location(&expired), "/console/login/");
}

#[actix_web::test]
async fn wrong_credentials_show_the_apis_message_and_share_its_lockout() {
    let api = TestApi::new();
    account(&api, OWNER).await;
    let mut browser = TestBrowser::new(&api);
    let wrong = browser.sign_in(OWNER, "not-the-password").await;
    assert_eq!(wrong.status, StatusCode::BAD_REQUEST);
    assert!(html(&wrong).contains("Unable to log in with provided credentials."));
    for _ in 0..4 {
        api.call(
            actix_web::http::Method::POST,
            "/auth/",
            Some(json!({"email": OWNER, "password": "nope-nope-nope"})),
        )
        .await;
    }
    let locked = browser.sign_in(OWNER, PASSWORD).await;
    assert_eq!(locked.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(
        html(&locked).contains("Request was throttled. Expected available in"),
        "{}",
        html(&locked)
    );
}

#[actix_web::test]
async fn the_api_never_reads_the_console_cookie() {
    let api = TestApi::new();
    account(&api, OWNER).await;
    let mut browser = TestBrowser::new(&api);
    browser.sign_in(OWNER, PASSWORD).await;
    let cookie = format!("devmgr_session={}", browser.cookies["devmgr_session"]);
    let answer = api
        .send(|r| r.uri("/devices/").insert_header((header::COOKIE, cookie)))
        .await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
}

#[actix_web::test]
async fn logging_out_everywhere_ends_api_tokens_and_sessions() {
    let api = TestApi::new();
    let token = account(&api, OWNER).await;
    let mut browser = TestBrowser::new(&api);
    browser.sign_in(OWNER, PASSWORD).await;
    let mut other = TestBrowser::new(&api);
    other.sign_in(OWNER, PASSWORD).await;
    browser.get("/console/account/").await;
    let out = browser.post("/console/account/logout-all/", &[]).await;
    assert_eq!(out.status, StatusCode::SEE_OTHER);
    assert!(location(&out).starts_with("/console/login/"));
    let devices = api
        .send(|r| {
            r.uri("/devices/")
                .insert_header((header::AUTHORIZATION, format!("Token {token}")))
        })
        .await;
    assert_eq!(devices.status, StatusCode::UNAUTHORIZED);
    assert_eq!(other.get("/console/").await.status, StatusCode::FOUND);
}

#[actix_web::test]
async fn editing_shows_the_apis_messages_beside_the_fields() {
    let api = TestApi::new();
    account(&api, OWNER).await;
    let serial = device(&api, OWNER, "pi", false).await;
    let mut browser = TestBrowser::new(&api);
    browser.sign_in(OWNER, PASSWORD).await;
    let edit = format!("/console/devices/{serial}/edit/");
    browser.get(&edit).await;
    let blank = browser
        .post(&edit, &[("name", "   "), ("description", "x")])
        .await;
    assert_eq!(blank.status, StatusCode::BAD_REQUEST);
    let text = html(&blank);
    assert!(text.contains("aria-describedby=\"name-errors\""), "{text}");
    assert!(
        text.contains("<li>This field may not be blank.</li>"),
        "{text}"
    );
    let saved = browser
        .post(
            &edit,
            &[("name", "kitchen <pi>"), ("description", "by the window")],
        )
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER);
    let page = browser.get(&format!("/console/devices/{serial}/")).await;
    assert!(
        html(&page).contains("<h1>kitchen &#60;pi&#62;</h1>"),
        "{}",
        html(&page)
    );
}

#[actix_web::test]
async fn another_accounts_device_is_not_found() {
    let api = TestApi::new();
    account(&api, OWNER).await;
    account(&api, "other@example.com").await;
    let theirs = device(&api, "other@example.com", "theirs", false).await;
    let mut browser = TestBrowser::new(&api);
    browser.sign_in(OWNER, PASSWORD).await;
    let page = browser.get(&format!("/console/devices/{theirs}/")).await;
    assert_eq!(page.status, StatusCode::NOT_FOUND);
    browser.get("/console/").await;
    let reboot = browser
        .post(&format!("/console/devices/{theirs}/reboot/"), &[])
        .await;
    assert_eq!(reboot.status, StatusCode::NOT_FOUND);
}

#[actix_web::test]
async fn a_reboot_from_the_console_is_a_pending_command_of_the_api() {
    let api = TestApi::new();
    let token = account(&api, OWNER).await;
    let serial = device(&api, OWNER, "pi", true).await;
    let mut browser = TestBrowser::new(&api);
    browser.sign_in(OWNER, PASSWORD).await;
    browser.get(&format!("/console/devices/{serial}/")).await;
    let rebooted = browser
        .post(&format!("/console/devices/{serial}/reboot/"), &[])
        .await;
    assert_eq!(rebooted.status, StatusCode::SEE_OTHER);
    let commands = api
        .send(|r| {
            r.uri(&format!("/devices/{serial}/commands/"))
                .insert_header((header::AUTHORIZATION, format!("Token {token}")))
        })
        .await;
    assert_eq!(commands.body[0]["status"], "pending", "{}", commands.body);
    let page = browser.get(location(&rebooted)).await;
    assert!(html(&page).contains("<span class=\"state pending\">pending</span>"));
}
