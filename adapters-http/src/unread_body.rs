//! No connection outlives its request's body deadline: an answer sent
//! before the request's body has arrived whole (a 401, a 408, a route that
//! reads no body) closes the connection. actix-http would otherwise drain
//! the rest of a dropped chunked body with no timer, and a client trickling
//! one chunk every few seconds could hold the connection open for ever.

use actix_web::body::MessageBody;
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::error::PayloadError;
use actix_web::middleware::Next;
use actix_web::web::Bytes;
use futures_util::Stream;
use std::cell::RefCell;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

/// The request's own body, and whether it was read to its end.
struct Body {
    payload: Payload,
    finished: bool,
}

/// What the handlers read instead of the body: the same bytes, noting the end.
struct Tracked(Rc<RefCell<Body>>);

impl Stream for Tracked {
    type Item = Result<Bytes, PayloadError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let mut body = self.0.borrow_mut();
        let polled = Pin::new(&mut body.payload).poll_next(cx);
        if matches!(polled, Poll::Ready(None | Some(Err(_)))) {
            body.finished = true;
        }
        polled
    }
}

/// Held by an answer whose request body was not read to its end: while it
/// lives, actix-http sees the body as unread and closes the connection after
/// the answer instead of draining it.
struct UnreadBody(#[allow(dead_code)] Rc<RefCell<Body>>);

/// The middleware: wraps the body, and keeps it alive in the answer when it
/// was not read to its end.
pub(crate) async fn close_after_unread_body(
    mut req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let payload = req.parts_mut().1.take();
    if matches!(payload, Payload::None) {
        return next.call(req).await;
    }
    let body = Rc::new(RefCell::new(Body {
        payload,
        finished: false,
    }));
    req.set_payload(Payload::Stream {
        payload: Box::pin(Tracked(body.clone())),
    });
    let mut response = next.call(req).await?;
    if !body.borrow().finished {
        response
            .response_mut()
            .extensions_mut()
            .insert(UnreadBody(body));
    }
    Ok(response)
}
