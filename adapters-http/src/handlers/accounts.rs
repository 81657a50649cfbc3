use super::{no_content, secret_json};
use crate::dispatch::Ctx;
use crate::error::{ApiError, FieldErrors};
use crate::fields::validated;
use crate::routes::{EMAIL, NEW_PASSWORD, OLD_PASSWORD, PROFILE_NAME};
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use application::use_cases::{ChangePasswordError, OldPasswordProblem, RegisterError};
use domain::Profile;
use serde_json::{Value, json};

fn profile_json(profile: Profile) -> Value {
    json!({
        "email": profile.email,
        "email_verified": profile.email_verified,
        "has_usable_password": profile.has_usable_password,
        "install_command": profile.install_command,
        "install_token": profile.install_token,
        "name": profile.name,
    })
}

/// `GET /profile/`.
pub async fn profile(ctx: Ctx) -> Result<HttpResponse, ApiError> {
    let profile = ctx.state.app.accounts.profile(ctx.user()?, &ctx.base_url());
    Ok(secret_json(StatusCode::OK, &profile_json(profile)))
}

/// `POST /profile/install-token/`: a new install token; the old one ends.
pub async fn rotate_install_token(ctx: Ctx) -> Result<HttpResponse, ApiError> {
    let account = ctx
        .state
        .app
        .accounts
        .rotate_install_token(ctx.user()?)
        .await?;
    let profile = ctx.state.app.accounts.profile(&account, &ctx.base_url());
    Ok(secret_json(StatusCode::OK, &profile_json(profile)))
}

/// `PUT` and `PATCH /profile/`: only `name` changes; other fields are ignored.
pub async fn update_profile(mut ctx: Ctx) -> Result<HttpResponse, ApiError> {
    let mut form = ctx.form();
    let account = ctx.user()?;
    let name = form.checked(&PROFILE_NAME);
    form.finish()?;
    let account = match name {
        None => account.clone(),
        Some(name) => ctx.state.app.accounts.rename(account, &name).await?,
    };
    let profile = ctx.state.app.accounts.profile(&account, &ctx.base_url());
    Ok(secret_json(StatusCode::OK, &profile_json(profile)))
}

/// `POST /change-password/`: every problem of both fields reported at once.
/// Every request counts against the account's rate, successful ones too.
pub async fn change_password(mut ctx: Ctx) -> Result<HttpResponse, ApiError> {
    let mut form = ctx.form();
    let account = ctx.user()?;
    if let Some(throttle) = &ctx.state.password_changes {
        throttle.check(account.id).map_err(ApiError::Throttled)?;
    }
    let old = form.text(&OLD_PASSWORD);
    let new = form.text(&NEW_PASSWORD);
    form.finish()?;
    let new = validated(new)?;
    match ctx
        .state
        .app
        .accounts
        .change_password(account, old.as_deref(), &new)
        .await
    {
        Ok(()) => Ok(no_content()),
        Err(ChangePasswordError::Rejected {
            old_password,
            new_password,
        }) => {
            let mut errors = FieldErrors::new();
            if let Some(problem) = old_password {
                let message = match problem {
                    OldPasswordProblem::Missing => "This field is required.",
                    OldPasswordProblem::Wrong => {
                        "Your old password was entered incorrectly. Please enter it again."
                    }
                };
                errors.insert("old_password".into(), json!([message]));
            }
            if !new_password.is_empty() {
                let messages: Vec<String> = new_password.iter().map(ToString::to_string).collect();
                errors.insert("new_password".into(), json!(messages));
            }
            Err(ApiError::Validation(errors))
        }
        Err(ChangePasswordError::LockedOut { retry_after_secs }) => {
            Err(ApiError::Throttled(retry_after_secs))
        }
        Err(ChangePasswordError::Store(e)) => Err(e.into()),
    }
}

/// `POST /register/`: a new unverified account and its first token.
pub async fn register(mut ctx: Ctx) -> Result<HttpResponse, ApiError> {
    let mut form = ctx.form();
    let email = form.email(&EMAIL);
    form.finish()?;
    match ctx.state.app.accounts.register(validated(email)?).await {
        Ok(token) => Ok(secret_json(StatusCode::CREATED, &json!({ "token": token }))),
        Err(RegisterError::DuplicateEmail) => Err(ApiError::field(
            "email",
            "An account with this e-mail already exists.",
        )),
        Err(RegisterError::Store(e)) => Err(e.into()),
    }
}
