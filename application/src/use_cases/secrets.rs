//! Fresh secrets drawn from the random-source port.

use crate::ports::RandomSource;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use domain::InstallToken;
use domain::secret::{self, SecretHash};
use std::sync::Arc;

/// A secret as handed to the client, with the hash that is stored.
pub(crate) struct Minted {
    pub(crate) secret: String,
    pub(crate) hash: SecretHash,
}

impl Minted {
    fn new(secret: String) -> Self {
        let hash = SecretHash::of(&secret);
        Self { secret, hash }
    }
}

/// Makes tokens, keys and identifiers from the random source.
#[derive(Clone)]
pub(crate) struct Secrets {
    random: Arc<dyn RandomSource>,
}

impl Secrets {
    pub(crate) fn new(random: Arc<dyn RandomSource>) -> Self {
        Self { random }
    }

    fn random_array<const N: usize>(&self) -> [u8; N] {
        let mut out = [0u8; N];
        let bytes = self.random.bytes(N);
        out.copy_from_slice(&bytes[..N]);
        out
    }

    /// A new API token: 40 lowercase hex characters.
    pub(crate) fn mint_api_token(&self) -> Minted {
        Minted::new(secret::api_token(self.random_array()))
    }

    /// A new key for an e-mailed link: 43 URL-safe characters (256 bits).
    pub(crate) fn mint_email_key(&self) -> Minted {
        Minted::new(URL_SAFE_NO_PAD.encode(self.random_array::<32>()))
    }

    /// A new install token.
    pub(crate) fn mint_install_token(&self) -> InstallToken {
        InstallToken::from_random_bytes(self.random_array())
    }

    /// A new outbox mail id: 32 lowercase hex characters.
    pub(crate) fn mint_mail_id(&self) -> String {
        self.random_array::<16>()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// Random bytes for identifiers (serials, command ids, slugs).
    pub(crate) fn random_bytes<const N: usize>(&self) -> [u8; N] {
        self.random_array()
    }
}
