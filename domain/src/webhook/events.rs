//! The events a webhook can be sent.

/// An event of an account, posted to its webhooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WebhookEvent {
    /// A monitor opened an alert.
    AlertOpened,
    /// An alert resolved.
    AlertResolved,
    /// A fleet job completed.
    JobCompleted,
    /// A fleet job halted.
    JobHalted,
    /// A ping asked for through the API (to one webhook, whatever its events).
    Ping,
}

impl WebhookEvent {
    /// The events a webhook subscribes to, in the order they are shown.
    pub const SUBSCRIBABLE: [Self; 4] = [
        Self::AlertOpened,
        Self::AlertResolved,
        Self::JobCompleted,
        Self::JobHalted,
    ];

    /// The name the API shows, sends in `X-Devmgr-Event` and the stores keep.
    pub const fn code(self) -> &'static str {
        match self {
            Self::AlertOpened => "alert.opened",
            Self::AlertResolved => "alert.resolved",
            Self::JobCompleted => "job.completed",
            Self::JobHalted => "job.halted",
            Self::Ping => "ping",
        }
    }

    /// The event named `code` (a subscribable one or `ping`), if any.
    pub fn parse(code: &str) -> Option<Self> {
        Self::SUBSCRIBABLE
            .into_iter()
            .chain([Self::Ping])
            .find(|event| event.code() == code)
    }

    const fn bit(self) -> u8 {
        match self {
            Self::AlertOpened => 1,
            Self::AlertResolved => 2,
            Self::JobCompleted => 4,
            Self::JobHalted => 8,
            Self::Ping => 0,
        }
    }
}

/// The events a webhook subscribes to: a non-empty set, shown in
/// [`WebhookEvent::SUBSCRIBABLE`]'s order, each once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EventSet(u8);

impl EventSet {
    /// Every subscribable event (the default).
    pub const ALL: Self = Self(15);

    /// The set of `events`; `None` when it is empty or holds `ping`.
    pub fn new(events: impl IntoIterator<Item = WebhookEvent>) -> Option<Self> {
        let mut bits = 0;
        for event in events {
            if event == WebhookEvent::Ping {
                return None;
            }
            bits |= event.bit();
        }
        (bits != 0).then_some(Self(bits))
    }

    /// Whether the set holds `event` (`ping` is never held: it goes to the
    /// webhook it was asked for, whatever its set).
    pub const fn contains(self, event: WebhookEvent) -> bool {
        self.0 & event.bit() != 0
    }

    /// The events, in the order they are shown.
    pub fn events(self) -> Vec<WebhookEvent> {
        WebhookEvent::SUBSCRIBABLE
            .into_iter()
            .filter(|event| self.contains(*event))
            .collect()
    }

    /// The set as the stores keep it: the codes, comma-separated, in order
    /// (so `events LIKE '%alert.opened%'` finds the subscribers).
    pub fn to_stored(self) -> String {
        self.events()
            .iter()
            .map(|event| event.code())
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The set read back from [`to_stored`](Self::to_stored)'s text.
    pub fn from_stored(text: &str) -> Option<Self> {
        let events: Option<Vec<_>> = text.split(',').map(WebhookEvent::parse).collect();
        Self::new(events?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_shows_its_events_in_order_once_each() {
        let set = EventSet::new([
            WebhookEvent::JobHalted,
            WebhookEvent::AlertOpened,
            WebhookEvent::JobHalted,
        ])
        .unwrap();
        assert_eq!(
            set.events(),
            [WebhookEvent::AlertOpened, WebhookEvent::JobHalted]
        );
        assert_eq!(set.to_stored(), "alert.opened,job.halted");
        assert_eq!(EventSet::from_stored(&set.to_stored()), Some(set));
        assert_eq!(EventSet::ALL.events(), WebhookEvent::SUBSCRIBABLE);
    }

    #[test]
    fn an_empty_set_or_ping_is_refused() {
        assert_eq!(EventSet::new([]), None);
        assert_eq!(EventSet::new([WebhookEvent::Ping]), None);
        assert_eq!(WebhookEvent::parse("alert.closed"), None);
    }
}
