//! What an audit entry records: the closed list of audited changes.

/// One kind of audited change. Nothing else is ever recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AuditAction {
    /// An operator added an account from the command line.
    AccountCreate,
    /// Someone registered an account.
    AccountRegister,
    /// A user obtained an API token with their password.
    AuthLogin,
    /// A login naming an existing account was refused.
    AuthLoginFailed,
    /// A user ended the token they presented.
    AuthLogout,
    /// A user ended all of their tokens.
    AuthLogoutAll,
    /// A user changed their password.
    PasswordChange,
    /// A password was set with an e-mailed reset key.
    PasswordReset,
    /// A user's profile changed.
    ProfileUpdate,
    /// A user replaced their install token.
    InstallTokenRotate,
    /// An operator added a device from the command line.
    DeviceCreate,
    /// A device enrolled itself with an install token.
    DeviceInstall,
    /// A device's name, description or tags changed.
    DeviceUpdate,
    /// A device was deleted.
    DeviceDelete,
    /// A reboot of one device was asked for.
    DeviceReboot,
    /// A fleet job was created.
    JobCreate,
    /// A job was cancelled.
    JobCancel,
    /// A halted job was resumed.
    JobResume,
    /// A job halted itself.
    JobHalt,
    /// A job completed.
    JobComplete,
    /// A monitor was created.
    MonitorCreate,
    /// A monitor was deleted.
    MonitorDelete,
    /// A monitor was snoozed, or its snooze ended.
    MonitorSnooze,
    /// A webhook was created.
    WebhookCreate,
    /// A webhook was deleted.
    WebhookDelete,
}

/// Text that names no audited action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownAuditAction;

impl AuditAction {
    /// Every action, in the order the documentation lists them.
    pub const ALL: [AuditAction; 25] = [
        Self::AccountCreate,
        Self::AccountRegister,
        Self::AuthLogin,
        Self::AuthLoginFailed,
        Self::AuthLogout,
        Self::AuthLogoutAll,
        Self::PasswordChange,
        Self::PasswordReset,
        Self::ProfileUpdate,
        Self::InstallTokenRotate,
        Self::DeviceCreate,
        Self::DeviceInstall,
        Self::DeviceUpdate,
        Self::DeviceDelete,
        Self::DeviceReboot,
        Self::JobCreate,
        Self::JobCancel,
        Self::JobResume,
        Self::JobHalt,
        Self::JobComplete,
        Self::MonitorCreate,
        Self::MonitorDelete,
        Self::MonitorSnooze,
        Self::WebhookCreate,
        Self::WebhookDelete,
    ];

    /// Every action's name, in [`ALL`](Self::ALL)'s order.
    pub const NAMES: [&'static str; 25] = {
        let mut names = [""; 25];
        let mut i = 0;
        while i < names.len() {
            names[i] = Self::ALL[i].as_str();
            i += 1;
        }
        names
    };

    /// The action's name in entries, filters and the console.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::AccountCreate => "account.create",
            Self::AccountRegister => "account.register",
            Self::AuthLogin => "auth.login",
            Self::AuthLoginFailed => "auth.login_failed",
            Self::AuthLogout => "auth.logout",
            Self::AuthLogoutAll => "auth.logout_all",
            Self::PasswordChange => "password.change",
            Self::PasswordReset => "password.reset",
            Self::ProfileUpdate => "profile.update",
            Self::InstallTokenRotate => "install_token.rotate",
            Self::DeviceCreate => "device.create",
            Self::DeviceInstall => "device.install",
            Self::DeviceUpdate => "device.update",
            Self::DeviceDelete => "device.delete",
            Self::DeviceReboot => "device.reboot",
            Self::JobCreate => "job.create",
            Self::JobCancel => "job.cancel",
            Self::JobResume => "job.resume",
            Self::JobHalt => "job.halt",
            Self::JobComplete => "job.complete",
            Self::MonitorCreate => "monitor.create",
            Self::MonitorDelete => "monitor.delete",
            Self::MonitorSnooze => "monitor.snooze",
            Self::WebhookCreate => "webhook.create",
            Self::WebhookDelete => "webhook.delete",
        }
    }

    /// The action with this name.
    pub fn parse(name: &str) -> Result<Self, UnknownAuditAction> {
        Self::ALL
            .into_iter()
            .find(|action| action.as_str() == name)
            .ok_or(UnknownAuditAction)
    }
}

impl std::fmt::Display for AuditAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_reads_back_as_its_action() {
        for action in AuditAction::ALL {
            assert_eq!(AuditAction::parse(action.as_str()), Ok(action));
        }
        assert_eq!(AuditAction::parse("device.Reboot"), Err(UnknownAuditAction));
    }
}
