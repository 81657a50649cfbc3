use crate::CommandError;
use crate::cli::UserCreateArgs;
use adapters_http::messages::{INVALID_EMAIL, password_problem_messages};
use application::Services;
use application::use_cases::CreateUserError;
use domain::EmailAddress;
use serde_json::json;

/// `devmgr user create`.
pub async fn create(
    app: &Services,
    args: &UserCreateArgs,
) -> Result<serde_json::Value, CommandError> {
    let email = EmailAddress::parse(&args.email)
        .map_err(|_| CommandError(format!("--email: {INVALID_EMAIL}")))?;
    let user = app
        .accounts
        .create_user(
            email,
            args.password.as_deref(),
            args.name.clone(),
            args.verified,
        )
        .await
        .map_err(|error| match error {
            // The policy's messages as the API words them.
            CreateUserError::Password(problems) => {
                CommandError(password_problem_messages(&problems).join(" "))
            }
            other => CommandError::from_display(other),
        })?;
    Ok(json!({
        "email": user.email,
        "token": user.token,
        "install_token": user.install_token.as_str(),
    }))
}
