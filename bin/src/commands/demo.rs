use crate::CommandError;
use adapters_system::OsRandom;
use application::Services;
use application::ports::RandomSource;
use application::use_cases::DeviceSpec;
use domain::{Amount, BoundedText, DeviceFacts, EmailAddress, MachineType};
use serde_json::json;

const GIB: i64 = 1024 * 1024 * 1024;

/// `devmgr demo`: a fresh verified account with three devices, none of them
/// online (no agent runs behind them: a reboot stays pending until it
/// lapses). Besides the account's credentials it prints how to list them and
/// how to enrol this machine with a real agent, whose reboots are carried out.
pub async fn run(app: &Services, base_url: &str) -> Result<serde_json::Value, CommandError> {
    let suffix = random_text(6);
    let email = EmailAddress::parse(&format!("demo-{suffix}@example.com"))
        .map_err(CommandError::from_display)?;
    let password = format!("demo-{}", random_text(14));
    let user = app
        .accounts
        .create_user(email.clone(), Some(&password), text("Demo User"), true)
        .await
        .map_err(CommandError::from_display)?;
    for spec in devices() {
        app.devices
            .add(&email, spec)
            .await
            .map_err(CommandError::from_display)?;
    }
    Ok(json!({
        "email": user.email,
        "password": password,
        "token": user.token,
        "install_token": user.install_token.as_str(),
        "curl": format!("curl -H 'Authorization: Token {}' {base_url}/devices/", user.token),
        "agent": format!(
            "devmgr-agent install --server {base_url} --token {} --config ./agent.json",
            user.install_token.as_str()
        ),
    }))
}

/// Text of the demo data, which keeps within its rules.
fn text<T: BoundedText>(value: &str) -> T {
    T::parse(value).unwrap_or_else(|e| panic!("demo text {value:?}: {e}"))
}

/// An amount of the demo data, which is never negative.
fn amount(value: i64) -> Amount {
    Amount::new(value).unwrap_or_else(|e| panic!("demo amount {value}: {e}"))
}

fn random_text(len: usize) -> String {
    const ALPHABET: &[u8] = b"abcdefghjkmnpqrstuvwxyz23456789";
    OsRandom
        .bytes(len)
        .iter()
        .map(|b| char::from(ALPHABET[usize::from(*b) % ALPHABET.len()]))
        .collect()
}

fn devices() -> Vec<DeviceSpec> {
    let machine = |code| MachineType::from_code(code).unwrap_or_default();
    vec![
        DeviceSpec {
            name: text("kitchen-display"),
            description: text("Raspberry Pi behind the kitchen screen"),
            facts: DeviceFacts {
                agent_version: text("1.4.2"),
                operating_system: text("Raspberry Pi OS 12 (bookworm)"),
                uname: text(
                    "Linux kitchen-display 6.6.51+rpt-rpi-v8 #1 SMP PREEMPT aarch64 GNU/Linux",
                ),
                machine_type: machine("rpi_4b"),
                disk_capacity: Some(amount(32 * GIB)),
                disk_used: Some(amount(9 * GIB)),
                processor_speed: amount(1800),
                ram_capacity: amount(4096),
            },
            online: false,
            tags: domain::TagSet::default(),
            serial: None,
        },
        DeviceSpec {
            name: text("garden-sensor"),
            description: text("Soil moisture and temperature"),
            facts: DeviceFacts {
                agent_version: text("1.3.0"),
                operating_system: text("Raspberry Pi OS Lite 12 (bookworm)"),
                uname: text("Linux garden-sensor 6.6.51+rpt-rpi-v7 #1 SMP armv7l GNU/Linux"),
                machine_type: machine("rpi_zero_2_w"),
                disk_capacity: Some(amount(16 * GIB)),
                disk_used: Some(amount(3 * GIB)),
                processor_speed: amount(1000),
                ram_capacity: amount(512),
            },
            online: false,
            tags: domain::TagSet::default(),
            serial: None,
        },
        DeviceSpec {
            name: text("media-server"),
            description: text(""),
            facts: DeviceFacts {
                agent_version: text("1.4.2"),
                operating_system: text("Debian GNU/Linux 12 (bookworm)"),
                uname: text("Linux media-server 6.1.0-26-amd64 #1 SMP Debian x86_64 GNU/Linux"),
                machine_type: machine("x86_64"),
                disk_capacity: Some(amount(2000 * GIB)),
                disk_used: Some(amount(1200 * GIB)),
                processor_speed: amount(3400),
                ram_capacity: amount(16384),
            },
            online: false,
            tags: domain::TagSet::default(),
            serial: None,
        },
    ]
}
