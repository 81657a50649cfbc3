use crate::CommandError;
use crate::cli::UserCreateArgs;
use application::Services;
use domain::EmailAddress;
use serde_json::json;

/// `devmgr user create`.
pub async fn create(
    app: &Services,
    args: &UserCreateArgs,
) -> Result<serde_json::Value, CommandError> {
    let email =
        EmailAddress::parse(&args.email).map_err(|e| CommandError(format!("--email: {e}")))?;
    let user = app
        .accounts
        .create_user(
            email,
            args.password.as_deref(),
            args.name.clone(),
            args.verified,
        )
        .await
        .map_err(CommandError::from_display)?;
    Ok(json!({
        "email": user.email,
        "token": user.token,
        "install_token": user.install_token,
    }))
}
