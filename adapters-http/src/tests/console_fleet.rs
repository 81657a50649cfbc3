//! The console's fleet view in-process (docs/console.md, Devices): filters
//! and pages in the URL, tag chips, "Tag devices" (preview, CSRF, the API's
//! refusals, all or nothing) and a device's tags on its edit form.

use super::TestApi;
use super::console_support::{PASSWORD, TestBrowser, account, html, location};
use actix_web::http::StatusCode;
use application::use_cases::DeviceSpec;
use domain::{BoundedText, DeviceFacts, EmailAddress, Tag, TagSet};

const OWNER: &str = "owner@example.com";

/// A device of [`OWNER`] with these tags, made a second after the last
/// (so the fleet lists devices in the order they are made); its serial.
async fn tagged(api: &TestApi, name: &str, online: bool, tags: &[&str]) -> String {
    api.clock().advance(chrono::Duration::seconds(1));
    let spec = DeviceSpec {
        name: BoundedText::parse(name).expect("a name"),
        serial: None,
        description: BoundedText::parse("").expect("a description"),
        facts: DeviceFacts::default(),
        online,
        tags: TagSet::new(tags.iter().map(|t| Tag::parse(t).expect("a tag"))).expect("tags"),
    };
    let owner = EmailAddress::parse(OWNER).expect("an address");
    let view = api
        .state()
        .app
        .devices
        .add(&owner, spec)
        .await
        .expect("added");
    view.device.serial.as_str().to_owned()
}

/// The tags of a device of the account with this API token, as the store keeps them.
async fn tags_of(api: &TestApi, token: &str, serial: &str) -> Vec<String> {
    let state = api.state();
    let account = state
        .app
        .sessions
        .authenticate(token)
        .await
        .expect("read")
        .expect("found");
    let serial = domain::Serial::parse(serial).expect("a serial");
    let view = state
        .app
        .devices
        .get(&account, &serial)
        .await
        .expect("read")
        .expect("found");
    view.device
        .tags
        .as_slice()
        .iter()
        .map(|t| t.as_str().to_owned())
        .collect()
}

/// The rows' device names of a fleet page, in order.
fn names(page: &str) -> Vec<String> {
    page.split("<tr data-serial=")
        .skip(1)
        .filter_map(|row| {
            let link = row.split("/\">").nth(1)?;
            Some(link[..link.find("</a>")?].to_owned())
        })
        .collect()
}

async fn signed_in(api: &TestApi) -> TestBrowser<'_> {
    let mut browser = TestBrowser::new(api);
    browser.sign_in(OWNER, PASSWORD).await;
    browser
}

#[actix_web::test]
async fn the_fleet_is_filtered_by_its_url_with_tag_chips_and_counts() {
    let api = TestApi::new();
    account(&api, OWNER).await;
    tagged(&api, "Kitchen Pi", true, &["lab", "site:berlin"]).await;
    tagged(&api, "Garage NAS", false, &["lab"]).await;
    tagged(&api, "Office printer", false, &[]).await;
    let mut browser = signed_in(&api).await;

    let all = browser.get("/console/").await;
    let text = html(&all);
    assert_eq!(names(text), ["Kitchen Pi", "Garage NAS", "Office printer"]);
    assert!(text.contains(">3 devices.</p>"), "{text}");
    assert!(text.contains("1 online</span>") && text.contains("2 offline</span>"));
    assert!(
        text.contains("<a class=\"tag\" href=\"/console/?tag=site%3Aberlin\">site:berlin</a>"),
        "{text}"
    );
    assert!(
        text.contains("<option value=\"lab\">lab (2)</option>"),
        "{text}"
    );
    assert!(text.contains("data-events=\"/console/events/\""));

    let lab = html(&browser.get("/console/?tag=Lab").await).to_owned();
    assert_eq!(names(&lab), ["Kitchen Pi", "Garage NAS"]);
    assert!(lab.contains(">2 of 3 devices match.</p>"), "{lab}");
    assert!(
        lab.contains("<option value=\"lab\" selected>lab (2)</option>"),
        "{lab}"
    );
    assert!(
        lab.contains("data-events=\"/console/events/?tag=lab\""),
        "{lab}"
    );
    // The counts beside the heading stay the fleet's.
    assert!(lab.contains("1 online</span>") && lab.contains("2 offline</span>"));

    let offline = html(&browser.get("/console/?status=offline&tag=lab").await).to_owned();
    assert_eq!(names(&offline), ["Garage NAS"]);
    assert!(offline.contains("<option value=\"offline\" selected>Offline</option>"));
    let search = html(&browser.get("/console/?search=+printer+").await).to_owned();
    assert_eq!(names(&search), ["Office printer"]);
    assert!(search.contains("value=\"printer\""), "{search}");

    let none = html(&browser.get("/console/?machine_type=x86_64").await).to_owned();
    assert!(names(&none).is_empty());
    assert!(
        none.contains("id=\"no-match\" aria-labelledby=\"no-match-heading\">"),
        "{none}"
    );
    assert!(none.contains("<option value=\"x86_64\" selected>x86-64 PC</option>"));
    assert!(none.contains("id=\"tag-action\" hidden"), "{none}");
    // A value that means nothing is no filter.
    let nonsense = html(
        &browser
            .get("/console/?status=maybe&machine_type=toaster")
            .await,
    )
    .to_owned();
    assert_eq!(names(&nonsense).len(), 3);
}

#[actix_web::test]
async fn the_fleet_pages_by_fifty_and_a_page_past_the_end_shows_the_last() {
    let api = TestApi::new();
    account(&api, OWNER).await;
    for n in 0..53 {
        tagged(&api, &format!("pi {n:02}"), false, &["rack"]).await;
    }
    let mut browser = signed_in(&api).await;
    let first = html(&browser.get("/console/?tag=rack").await).to_owned();
    assert_eq!(names(&first).len(), 50);
    assert!(
        first.contains("53 of 53 devices match. Showing 1–50."),
        "{first}"
    );
    assert!(
        first.contains("<a href=\"/console/?tag=rack&#38;page=2\" rel=\"next\">Next page</a>"),
        "{first}"
    );
    assert!(!first.contains("Previous page"));
    let second = html(&browser.get("/console/?tag=rack&page=2").await).to_owned();
    assert_eq!(names(&second), ["pi 50", "pi 51", "pi 52"]);
    assert!(second.contains("Showing 51–53."), "{second}");
    assert!(second.contains("rel=\"prev\">Previous page</a>"));
    assert!(
        second.contains("data-events=\"/console/events/?tag=rack&#38;page=2\""),
        "{second}"
    );
    let past = html(&browser.get("/console/?tag=rack&page=9").await).to_owned();
    assert_eq!(names(&past), ["pi 50", "pi 51", "pi 52"]);
}

#[actix_web::test]
async fn tagging_devices_previews_the_selection_then_changes_it_with_a_notice() {
    let api = TestApi::new();
    let token = account(&api, OWNER).await;
    let kitchen = tagged(&api, "Kitchen Pi", true, &["lab"]).await;
    let garage = tagged(&api, "Garage NAS", false, &["lab", "old"]).await;
    let printer = tagged(&api, "Office printer", false, &[]).await;
    let mut browser = signed_in(&api).await;

    let preview = browser.get("/console/tag-devices/?tag=lab").await;
    let text = html(&preview);
    assert_eq!(preview.status, StatusCode::OK);
    assert!(
        text.contains("<strong>2 devices</strong> (tagged lab)"),
        "{text}"
    );
    assert!(text.contains("<li>Kitchen Pi</li>") && text.contains("<li>Garage NAS</li>"));
    assert!(
        text.contains("<input type=\"hidden\" name=\"tag\" value=\"lab\">"),
        "{text}"
    );
    let every = html(&browser.get("/console/tag-devices/").await).to_owned();
    assert!(
        every.contains("<strong>3 devices</strong> (every device of the account)"),
        "{every}"
    );

    browser.get("/console/tag-devices/?tag=lab").await;
    let forged = browser
        .post_raw(
            "/console/tag-devices/",
            &[("tag", "lab"), ("add", "site:berlin")],
        )
        .await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
    assert!(tags_of(&api, &token, &kitchen).await == ["lab"]);

    let applied = browser
        .post(
            "/console/tag-devices/",
            &[
                ("tag", "lab"),
                ("add", "Site:Berlin, spare"),
                ("remove", "old"),
            ],
        )
        .await;
    assert_eq!(applied.status, StatusCode::SEE_OTHER);
    assert_eq!(
        location(&applied),
        "/console/?tag=lab&notice=tagged&tagged=2"
    );
    assert_eq!(
        tags_of(&api, &token, &kitchen).await,
        ["lab", "site:berlin", "spare"]
    );
    assert_eq!(
        tags_of(&api, &token, &garage).await,
        ["lab", "site:berlin", "spare"]
    );
    assert!(tags_of(&api, &token, &printer).await.is_empty());
    let back = html(&browser.get(location(&applied)).await).to_owned();
    assert!(
        back.contains("role=\"status\">Tags changed on 2 devices.</p>"),
        "{back}"
    );
    assert_eq!(names(&back), ["Kitchen Pi", "Garage NAS"]);
}

#[actix_web::test]
async fn a_refused_tagging_says_why_and_changes_nothing() {
    let api = TestApi::new();
    let token = account(&api, OWNER).await;
    let full: Vec<String> = (0..20).map(|n| format!("t{n:02}")).collect();
    let full: Vec<&str> = full.iter().map(String::as_str).collect();
    let crowded = tagged(&api, "Crowded", false, &full).await;
    let calm = tagged(&api, "Calm", false, &["lab"]).await;
    let mut browser = signed_in(&api).await;
    browser.get("/console/tag-devices/").await;

    let nothing = browser
        .post("/console/tag-devices/", &[("add", " "), ("remove", "")])
        .await;
    assert_eq!(nothing.status, StatusCode::BAD_REQUEST);
    assert!(
        html(&nothing).contains("<li>Give tags to add or to remove.</li>"),
        "{}",
        html(&nothing)
    );

    let invalid = browser
        .post(
            "/console/tag-devices/",
            &[("add", "fine -bad"), ("remove", "x")],
        )
        .await;
    assert_eq!(invalid.status, StatusCode::BAD_REQUEST);
    let text = html(&invalid);
    assert!(text.contains("aria-describedby=\"add-errors\""), "{text}");
    assert!(
        text.contains("beginning with a letter or digit.</li>"),
        "{text}"
    );
    assert!(
        text.contains("value=\"fine -bad\""),
        "the typed text is kept: {text}"
    );

    let too_many = browser
        .post("/console/tag-devices/", &[("add", "one-more")])
        .await;
    assert_eq!(too_many.status, StatusCode::BAD_REQUEST);
    assert!(html(&too_many).contains("<li>A device would have more than 20 tags.</li>"));
    assert_eq!(tags_of(&api, &token, &crowded).await.len(), 20);
    assert_eq!(
        tags_of(&api, &token, &calm).await,
        ["lab"],
        "all or nothing"
    );
}

#[actix_web::test]
async fn a_devices_tags_are_shown_and_edited_with_the_apis_messages() {
    let api = TestApi::new();
    let token = account(&api, OWNER).await;
    let serial = tagged(&api, "Kitchen Pi", false, &["lab"]).await;
    let mut browser = signed_in(&api).await;
    let page = html(&browser.get(&format!("/console/devices/{serial}/")).await).to_owned();
    assert!(page.contains("<dt>Tags</dt><dd id=\"device-tags\"><ul class=\"tags\"><li><a class=\"tag\" href=\"/console/?tag=lab\">lab</a>"), "{page}");
    let edit = format!("/console/devices/{serial}/edit/");
    let form = html(&browser.get(&edit).await).to_owned();
    assert!(
        form.contains("name=\"tags\" type=\"text\" value=\"lab\""),
        "{form}"
    );

    let many: Vec<String> = (0..21).map(|n| format!("t{n}")).collect();
    let refused = browser
        .post(
            &edit,
            &[("name", ""), ("tags", &format!("{} Bad!", many.join(" ")))],
        )
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST);
    let text = html(&refused);
    assert!(
        text.contains("<li>This field may not be blank.</li>"),
        "{text}"
    );
    assert!(text.contains("beginning with a letter or digit.</li><li>Ensure this field has no more than 20 elements.</li>"), "{text}");
    assert_eq!(tags_of(&api, &token, &serial).await, ["lab"]);

    let saved = browser
        .post(
            &edit,
            &[
                ("name", "Kitchen Pi"),
                ("description", ""),
                ("tags", "Rack-2, lab site:berlin"),
            ],
        )
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER);
    assert_eq!(
        tags_of(&api, &token, &serial).await,
        ["lab", "rack-2", "site:berlin"]
    );
    let cleared = browser
        .post(&edit, &[("name", "Kitchen Pi"), ("tags", "")])
        .await;
    assert_eq!(cleared.status, StatusCode::SEE_OTHER);
    assert!(tags_of(&api, &token, &serial).await.is_empty());
    let page = html(&browser.get(&format!("/console/devices/{serial}/")).await).to_owned();
    assert!(page.contains("<dd id=\"device-tags\">none</dd>"), "{page}");
}
