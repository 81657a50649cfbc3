//! The links in mail, to the routes that serve them.

use application::ports::MailLinks;

/// Links under one base: `--public-url`, else `http://` and the address the
/// server listens on. Never the request's `Host`, which an attacker chooses
/// (a reset link to their own host would hand them the key).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpMailLinks {
    base: String,
}

impl HttpMailLinks {
    /// Links under `public_url` when configured (a trailing slash dropped),
    /// else under `http://<listening>`.
    pub fn new(public_url: Option<&str>, listening: &str) -> Self {
        let base = match public_url {
            Some(url) => url.trim_end_matches('/').to_owned(),
            None => format!("http://{listening}"),
        };
        Self { base }
    }
}

impl MailLinks for HttpMailLinks {
    fn verify_email(&self, key: &str) -> String {
        format!("{}/verify-email/{key}/", self.base)
    }

    fn reset_password(&self, key: &str) -> String {
        format!("{}/reset-password/confirm/?key={key}", self.base)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_use_the_public_url_else_the_listening_address() {
        let public = HttpMailLinks::new(Some("https://devmgr.example/"), "127.0.0.1:8000");
        assert_eq!(
            public.verify_email("k3y"),
            "https://devmgr.example/verify-email/k3y/"
        );
        assert_eq!(
            public.reset_password("k3y"),
            "https://devmgr.example/reset-password/confirm/?key=k3y"
        );
        let local = HttpMailLinks::new(None, "127.0.0.1:8000");
        assert_eq!(
            local.verify_email("k3y"),
            "http://127.0.0.1:8000/verify-email/k3y/"
        );
    }
}
