//! What every console page shows around its own content: the title, the
//! navigation of a signed-in account, the CSRF token of its forms, and a
//! notice left by the form that led here.

/// Where in the navigation a page is: `devices`, `jobs`, `alerts`,
/// `activity`, `add-device`, `account`, or `""` for elsewhere (templates
/// compare the text).
pub(crate) type Place = &'static str;

/// The frame of a page.
pub(crate) struct Chrome {
    /// The page's title (before " · devmgr").
    pub(crate) title: String,
    /// The signed-in account's address; `None` shows no navigation.
    pub(crate) email: Option<String>,
    /// Where in the navigation this page is.
    pub(crate) place: Place,
    /// The token every form of the page carries.
    pub(crate) csrf: String,
    /// A notice for the person, from the form that led here.
    pub(crate) notice: Option<String>,
}

impl Chrome {
    /// A frame without navigation or forms (failure pages).
    pub(crate) fn plain(title: &str) -> Self {
        Self {
            title: title.to_owned(),
            email: None,
            place: "",
            csrf: String::new(),
            notice: None,
        }
    }

    /// With the notice named by a `?notice=` code, if it is one of ours.
    pub(crate) fn with_notice(mut self, code: Option<&str>) -> Self {
        self.notice = code.and_then(super::notices::text).map(str::to_owned);
        self
    }

    /// With this notice (made by the page from values it checked).
    pub(crate) fn with_message(mut self, text: String) -> Self {
        self.notice = Some(text);
        self
    }
}
