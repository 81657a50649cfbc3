//! The configuration file under the flags. (The environment between them is
//! checked end to end, with the real binary: tests here cannot set it.)

use super::parse;
use crate::cli::{Command, Throttle};
use std::io::Write;

/// A configuration file holding `toml`.
fn file(toml: &str) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(toml.as_bytes()).unwrap();
    file
}

fn args<'a>(config: &'a tempfile::NamedTempFile, rest: &[&'a str]) -> Vec<String> {
    let mut args = vec![
        "devmgr".to_owned(),
        "--config".to_owned(),
        config.path().display().to_string(),
    ];
    args.extend(rest.iter().map(|arg| (*arg).to_owned()));
    args
}

const SERVING: &str = r#"
bind = "127.0.0.1:9100"
database_url = "sqlite:///var/lib/devmgr/devmgr.db"
public_url = "https://devmgr.example.com"
online_window = 120
throttle = "off"
trust_proxy = true
registration = "closed"
"#;

#[test]
fn the_file_sets_what_no_flag_sets() {
    let config = file(SERVING);
    let cli = parse(args(&config, &["serve"])).unwrap();
    assert_eq!(cli.bind, "127.0.0.1:9100");
    assert_eq!(cli.database_url, "sqlite:///var/lib/devmgr/devmgr.db");
    assert_eq!(
        cli.public_url.as_deref(),
        Some("https://devmgr.example.com")
    );
    let Command::Serve(serve) = cli.command else {
        panic!("not serve")
    };
    assert_eq!(serve.online_window, 120);
    assert_eq!(serve.throttle, Throttle::Off);
    assert!(serve.trust_proxy);
    assert_eq!(
        application::Registration::from(serve.registration),
        application::Registration::Closed
    );
}

#[test]
fn flags_beat_the_file_before_or_after_the_subcommand() {
    let config = file(SERVING);
    let cli = parse(args(
        &config,
        &["--bind", "127.0.0.1:9200", "serve", "--online-window=30"],
    ))
    .unwrap();
    assert_eq!(cli.bind, "127.0.0.1:9200");
    let Command::Serve(serve) = cli.command else {
        panic!("not serve")
    };
    assert_eq!(serve.online_window, 30);
    assert_eq!(serve.throttle, Throttle::Off);
}

#[test]
fn options_of_serve_in_the_file_leave_other_commands_alone() {
    let config = file(SERVING);
    let cli = parse(args(&config, &["migrate"])).unwrap();
    assert!(matches!(cli.command, Command::Migrate));
    assert_eq!(cli.database_url, "sqlite:///var/lib/devmgr/devmgr.db");
    assert_eq!(cli.bind, "127.0.0.1:9100");
}

#[test]
fn a_switch_set_false_in_the_file_stays_off() {
    let config = file("trust_proxy = false\n");
    let cli = parse(args(&config, &["serve"])).unwrap();
    let Command::Serve(serve) = cli.command else {
        panic!("not serve")
    };
    assert!(!serve.trust_proxy);
}

#[test]
fn an_unknown_key_is_named() {
    let config = file("bind = \"127.0.0.1:1\"\nlisten = \"0.0.0.0:80\"\n");
    let error = parse(args(&config, &["serve"])).unwrap_err().to_string();
    assert!(error.contains("unknown key `listen`"), "{error}");
    assert!(error.contains("known keys: "), "{error}");
    assert!(error.contains("database_url"), "{error}");
    assert!(
        error.contains(&config.path().display().to_string()),
        "{error}"
    );

    let config = file("public-url = \"https://x.example\"\n");
    let error = parse(args(&config, &["migrate"])).unwrap_err().to_string();
    assert!(
        error.contains("unknown key `public-url` (did you mean `public_url`?)"),
        "{error}"
    );

    let config = file("config = \"/etc/other.toml\"\n");
    let error = parse(args(&config, &["migrate"])).unwrap_err().to_string();
    assert!(error.contains("unknown key `config`"), "{error}");
}

#[test]
fn bad_values_in_the_file_are_refused_naming_the_file() {
    for (toml, expected) in [
        ("online_window = 0\n", "--online-window"),
        ("throttle = \"sometimes\"\n", "sometimes"),
        (
            "trust_proxy = \"yes\"\n",
            "`trust_proxy` must be true or false",
        ),
        (
            "bind = [\"a\", \"b\"]\n",
            "`bind` must be a string or a number",
        ),
        ("bind = \n", "line 1"),
    ] {
        let config = file(toml);
        let error = parse(args(&config, &["serve"])).unwrap_err().to_string();
        assert!(error.contains(expected), "{toml}: {error}");
        assert!(
            error.contains(&config.path().display().to_string()),
            "{toml}: {error}"
        );
    }
}

#[test]
fn a_missing_file_is_an_error_naming_it() {
    let error = parse(["devmgr", "--config", "/nonexistent/devmgr.toml", "migrate"])
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("cannot read /nonexistent/devmgr.toml"),
        "{error}"
    );
}

#[test]
fn the_audit_retention_comes_from_the_file_and_is_checked_there() {
    let config = file("audit_retention_days = 30\n");
    let cli = parse(args(&config, &["serve"])).unwrap();
    let Command::Serve(serve) = cli.command else {
        panic!("not serve")
    };
    assert_eq!(serve.audit_retention_days, 30);
    let defaulted = parse(["devmgr", "serve"]).unwrap();
    let Command::Serve(serve) = defaulted.command else {
        panic!("not serve")
    };
    assert_eq!(serve.audit_retention_days, 365);
    let refused = file("audit_retention_days = 0\n");
    let error = parse(args(&refused, &["serve"])).unwrap_err().to_string();
    assert!(error.contains("whole number of days"), "{error}");
}
