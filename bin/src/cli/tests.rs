//! How `device add` reads the amounts an agent would otherwise report.

use super::*;

/// `device add` with `extra` arguments after its required ones.
fn device_add(extra: &[&str]) -> Result<DeviceAddArgs, clap::Error> {
    let base = [
        "devmgr",
        "device",
        "add",
        "--owner",
        "sam@example.com",
        "--name",
        "Shed",
    ];
    let cli = Cli::try_parse_from(base.iter().chain(extra))?;
    match cli.command {
        Command::Device(DeviceCommand::Add(args)) => Ok(args),
        other => panic!("not device add: {other:?}"),
    }
}

#[test]
fn amounts_default_to_unknown_and_parse_into_amounts() {
    let args = device_add(&[]).unwrap();
    assert_eq!((args.disk_capacity, args.disk_used), (None, None));
    assert_eq!(
        (args.ram_capacity, args.processor_speed),
        (Amount::ZERO, Amount::ZERO)
    );

    let args = device_add(&[
        "--disk-capacity",
        "9223372036854775807",
        "--disk-used",
        "0",
        "--ram-capacity",
        "4096",
        "--processor-speed",
        "1800",
    ])
    .unwrap();
    assert_eq!(args.disk_capacity.map(Amount::get), Some(i64::MAX));
    assert_eq!(args.disk_used, Some(Amount::ZERO));
    assert_eq!(args.ram_capacity.get(), 4096);
    assert_eq!(args.processor_speed.get(), 1800);
}

#[test]
fn amounts_out_of_bounds_are_refused() {
    for (flag, value) in [
        ("--disk-capacity", "-1"),
        ("--disk-used", "9223372036854775808"),
        ("--ram-capacity", "1.5"),
        ("--processor-speed", "fast"),
    ] {
        let error = device_add(&[&format!("{flag}={value}")]).unwrap_err();
        assert_eq!(
            error.kind(),
            clap::error::ErrorKind::ValueValidation,
            "{flag} {value}"
        );
        assert!(error.to_string().contains("not an amount"), "{error}");
    }
}
