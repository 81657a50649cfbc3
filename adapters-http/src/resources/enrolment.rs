//! `/install/`: enrolling a device with an account's install token.

use super::devices::DEVICE_NAME;
use crate::answer::SecretJson;
use crate::description::examples as ex;
use crate::description::{Described, ObjectSchema, Tag};
use crate::error::ApiError;
use crate::extract::{BaseUrl, ClientIp, Submitted};
use crate::fields::{Field, FieldType, Form, FromForm, Rejected, ToForm, form_of};
use crate::route::Route;
use crate::state::HttpState;
use actix_web::web::Data;
use application::use_cases::{InstallError, InstallRequest};
use domain::{DeviceName, InstallToken, MachineType};
use serde::Serialize;
use serde_json::{Map, Value};

/// `install_token` of an enrolment.
pub(crate) const INSTALL_TOKEN: Field = Field::text("install_token", "Install token");
/// `serial` of an enrolment.
pub(crate) const SERIAL: Field = Field::text("serial", "Serial").optional().format("uuid");
/// `machine_type` of an enrolment or a heartbeat.
pub(crate) const MACHINE_TYPE: Field = Field::text("machine_type", "Machine type")
    .optional()
    .choices(&MachineType::CODES);

/// The routes of this resource.
pub fn routes() -> Vec<Route> {
    vec![
        Route::new(
            Tag::Agent,
            "/install/",
            "Install",
            "Enrol a device in the account of an install token; returns its serial and\ndevice token. Installing a serial of the same account again re-keys it.",
        )
        .post("installDevice", "Enrol a device", install)
        .request_example(Enrol(InstallRequest {
            install_token: ex::install_token(),
            name: DeviceName::parse(ex::DEVICE_NAME).expect("a valid name"),
            serial: None,
            machine_type: Some(ex::machine_type()),
            address: None,
        }))
        .throttled(),
    ]
}

/// The optional `machine_type` of a body.
pub(crate) fn machine_type(form: &mut Form) -> Result<Option<MachineType>, Rejected> {
    form.optional_choice(&MACHINE_TYPE, MachineType::from_code)
}

/// The error of an install token no account has (or could have: one not
/// shaped as an install token).
const INVALID_INSTALL_TOKEN: &str = "Invalid install token.";

/// The `install_token` of a body: text shaped as an install token.
fn install_token(form: &mut Form) -> Result<InstallToken, Rejected> {
    let text = form.text(&INSTALL_TOKEN)?;
    InstallToken::parse(&text).map_err(|_| form.error(INSTALL_TOKEN.name, INVALID_INSTALL_TOKEN))
}

/// An enrolment's body.
pub struct Enrol(InstallRequest);

impl FromForm for Enrol {
    const FIELDS: &'static [Field] = &[INSTALL_TOKEN, DEVICE_NAME, SERIAL, MACHINE_TYPE];

    fn from_form(form: &mut Form) -> Result<Self, Rejected> {
        let install_token = install_token(form);
        let name = form.checked(&DEVICE_NAME);
        let serial = form.optional_serial(&SERIAL);
        let machine_type = machine_type(form);
        Ok(Self(InstallRequest {
            install_token: install_token?,
            name: name?,
            serial: serial?,
            machine_type: machine_type?,
            address: None,
        }))
    }
}

impl ToForm for Enrol {
    fn to_form(&self) -> Map<String, Value> {
        let request = &self.0;
        let mut form = form_of([
            (&INSTALL_TOKEN, request.install_token.as_str().into()),
            (&DEVICE_NAME, request.name.as_str().into()),
        ]);
        if let Some(serial) = &request.serial {
            form.extend(form_of([(&SERIAL, serial.as_str().into())]));
        }
        if let Some(machine_type) = request.machine_type {
            form.extend(form_of([(&MACHINE_TYPE, machine_type.code().into())]));
        }
        form
    }
}

/// An enrolled device's credentials.
pub const ENROLMENT_SCHEMA: ObjectSchema = ObjectSchema {
    name: "Enrolment",
    description: "The enrolled device: its serial, its URL, and the device token its agent sends as `Authorization: Device <device_token>`.",
    fields: &[
        Field::read_only("serial", "Serial", FieldType::String).format("uuid"),
        Field::read_only("device_token", "Device token", FieldType::String),
        Field::read_only("url", "Url", FieldType::Url),
    ],
};

/// An enrolled device's credentials as the API shows them.
#[derive(Debug, Serialize)]
pub struct EnrolmentJson {
    serial: String,
    device_token: String,
    url: String,
}

impl Described for EnrolmentJson {
    const SCHEMA: &'static ObjectSchema = &ENROLMENT_SCHEMA;

    fn example() -> Self {
        let serial = ex::serial().to_string();
        Self {
            url: device_url(ex::BASE_URL, &serial),
            serial,
            device_token: ex::DEVICE_TOKEN.to_owned(),
        }
    }
}

/// Where a device is.
fn device_url(base_url: &str, serial: &str) -> String {
    format!("{base_url}/devices/{serial}/")
}

/// `POST /install/`: enrols a device with an install token (or re-keys it).
async fn install(
    state: Data<HttpState>,
    BaseUrl(base): BaseUrl,
    ClientIp(address): ClientIp,
    body: Submitted<Enrol>,
) -> Result<SecretJson<EnrolmentJson, 201>, ApiError> {
    let request = match body.check() {
        Ok(Enrol(request)) => InstallRequest { address, ..request },
        Err(mut form) => {
            // An unknown token is reported with the other fields' errors, as DRF would.
            // (A token of another shape has its error already.)
            if let Some(text) = form.valid_text(&INSTALL_TOKEN)
                && let Ok(token) = InstallToken::parse(&text)
                && !state.app.fleet.install_token_exists(&token).await?
            {
                form.error(INSTALL_TOKEN.name, INVALID_INSTALL_TOKEN);
            }
            return Err(form.into());
        }
    };
    let installed = state.app.fleet.install(request).await.map_err(|e| match e {
        InstallError::InvalidInstallToken => {
            ApiError::field(INSTALL_TOKEN.name, INVALID_INSTALL_TOKEN)
        }
        InstallError::ForeignSerial => {
            ApiError::field(SERIAL.name, "This serial belongs to another account.")
        }
        InstallError::Unverified => ApiError::field(
            INSTALL_TOKEN.name,
            "Verify the account's e-mail address before adding devices.",
        ),
        InstallError::Online => ApiError::field(
            SERIAL.name,
            "This device is online. Delete it, or wait until it is offline, to install it again.",
        ),
        InstallError::Store(e) => e.into(),
    })?;
    let serial = installed.device.serial.to_string();
    let url = device_url(&base, &serial);
    Ok(SecretJson(EnrolmentJson {
        serial,
        device_token: installed.device_token,
        url,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::description::assert_described;

    #[test]
    fn an_enrolment_writes_its_described_fields() {
        assert_described(&EnrolmentJson {
            serial: "s".into(),
            device_token: "t".into(),
            url: "u".into(),
        });
    }
}
