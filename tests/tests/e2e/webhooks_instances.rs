//! (being written for the alerts issue)
