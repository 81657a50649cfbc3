//! The command line refuses what the API refuses: every bounded
//! value of `device add` and `user create` is checked by the same domain
//! type as the API's field, and the refusal names the option and the limit.

use crate::support::*;

/// `devmgr <args…>` is refused, and stderr names `option` and `problem`.
#[track_caller]
fn refused_naming(db: &Db, args: &[&str], option: &str, problem: &str) {
    let output = db.run(args);
    assert_refused(&output, &args.join(" "));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(option) && stderr.contains(problem),
        "`{option}` and `{problem}` named in: {stderr}"
    );
}

e2e!(device_add_refuses_an_over_long_agent_version_and_uname);
fn device_add_refuses_an_over_long_agent_version_and_uname() {
    let db = Db::new();
    let owner = "sam@example.com";
    db.account_with(owner, &[]);
    let version = "v".repeat(300);
    let uname = "u".repeat(1500);
    let add = ["device", "add", "--owner", owner, "--name", "Shed"];
    let with_version = [&add[..], &["--agent-version", &version]].concat();
    refused_naming(
        &db,
        &with_version,
        "--agent-version",
        "longer than 100 characters",
    );
    let with_uname = [&add[..], &["--uname", &uname]].concat();
    refused_naming(&db, &with_uname, "--uname", "longer than 1000 characters");
}

e2e!(every_bounded_option_names_its_limit);
fn every_bounded_option_names_its_limit() {
    let db = Db::new();
    let owner = "kim@example.com";
    db.account_with(owner, &[]);
    let cases = [
        ("--name", 100),
        ("--description", 1000),
        ("--agent-version", 100),
        ("--operating-system", 200),
        ("--uname", 1000),
    ];
    for (option, max) in cases {
        let long = "x".repeat(max + 1);
        let mut args = vec!["device", "add", "--owner", owner];
        if option != "--name" {
            args.extend(["--name", "Shed"]);
        }
        args.extend([option, long.as_str()]);
        refused_naming(&db, &args, option, &format!("longer than {max} characters"));
    }
    refused_naming(
        &db,
        &["device", "add", "--owner", owner, "--name", " "],
        "--name",
        "may not be blank",
    );
    let long_name = "n".repeat(151);
    refused_naming(
        &db,
        &[
            "user",
            "create",
            "--email",
            "lee@example.com",
            "--name",
            &long_name,
        ],
        "--name",
        "longer than 150 characters",
    );
}
