use super::TcpProxy;
use std::io::{Read, Write};
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::timeout;

/// How long anything that should happen may take.
const SOON: Duration = Duration::from_secs(2);
/// How long nothing must happen, to count as nothing.
const QUIET: Duration = Duration::from_millis(300);

/// A server that echoes everything back, on a free port of 127.0.0.1.
async fn echo_server() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let (mut reading, mut writing) = stream.split();
                let _ = tokio::io::copy(&mut reading, &mut writing).await;
            });
        }
    });
    address
}

/// Sends `message` and expects it back within [`SOON`].
async fn echoes(stream: &mut TcpStream, message: &[u8]) {
    stream.write_all(message).await.unwrap();
    let mut back = vec![0; message.len()];
    timeout(SOON, stream.read_exact(&mut back))
        .await
        .expect("the echo came back in time")
        .expect("the connection stayed open");
    assert_eq!(back, message);
}

/// Whether the connection is closed: a read ends (EOF or an error) within [`SOON`].
async fn closes(stream: &mut TcpStream) -> bool {
    let mut byte = [0; 1];
    matches!(
        timeout(SOON, stream.read(&mut byte)).await,
        Ok(Ok(0) | Err(_))
    )
}

/// Whether nothing arrives on the connection for [`QUIET`].
async fn stays_silent(stream: &mut TcpStream) -> bool {
    let mut byte = [0; 1];
    timeout(QUIET, stream.read(&mut byte)).await.is_err()
}

#[tokio::test]
async fn it_forwards_both_ways_to_the_target() {
    let target = echo_server().await;
    let proxy = TcpProxy::start(target).await.unwrap();
    assert_eq!(proxy.target(), target);
    assert!(proxy.address().ip().is_loopback());
    assert_ne!(proxy.address(), target);
    let mut stream = TcpStream::connect(proxy.address()).await.unwrap();
    echoes(&mut stream, b"hello").await;
    echoes(&mut stream, &[7; 100_000]).await;
}

#[tokio::test]
async fn a_cut_closes_every_connection_and_each_new_one_until_restored() {
    let proxy = TcpProxy::start(echo_server().await).await.unwrap();
    let mut first = TcpStream::connect(proxy.address()).await.unwrap();
    let mut second = TcpStream::connect(proxy.address()).await.unwrap();
    echoes(&mut first, b"one").await;
    echoes(&mut second, b"two").await;

    proxy.cut();
    assert!(closes(&mut first).await, "the first connection stayed open");
    assert!(
        closes(&mut second).await,
        "the second connection stayed open"
    );
    let mut during = TcpStream::connect(proxy.address()).await.unwrap();
    let _ = during.write_all(b"anyone?").await;
    assert!(
        closes(&mut during).await,
        "a connection made while cut stayed open"
    );

    proxy.restore();
    let mut after = TcpStream::connect(proxy.address()).await.unwrap();
    echoes(&mut after, b"back").await;
}

#[tokio::test]
async fn a_cut_and_an_immediate_restore_still_close_what_was_open() {
    let proxy = TcpProxy::start(echo_server().await).await.unwrap();
    let mut stream = TcpStream::connect(proxy.address()).await.unwrap();
    echoes(&mut stream, b"one").await;
    proxy.cut();
    proxy.restore();
    assert!(closes(&mut stream).await, "the connection outlived the cut");
}

#[tokio::test]
async fn a_blackhole_holds_everything_until_restored_then_it_flows() {
    let proxy = TcpProxy::start(echo_server().await).await.unwrap();
    let mut open = TcpStream::connect(proxy.address()).await.unwrap();
    echoes(&mut open, b"before").await;

    proxy.blackhole();
    open.write_all(b"held").await.unwrap();
    let mut new = TcpStream::connect(proxy.address()).await.unwrap();
    new.write_all(b"waiting").await.unwrap();
    assert!(
        stays_silent(&mut open).await,
        "an open connection forwarded"
    );
    assert!(stays_silent(&mut new).await, "a new connection forwarded");

    proxy.restore();
    let mut back = [0; 4];
    timeout(SOON, open.read_exact(&mut back))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(&back, b"held");
    let mut back = [0; 7];
    timeout(SOON, new.read_exact(&mut back))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(&back, b"waiting");
    echoes(&mut open, b"after").await;
}

#[tokio::test]
async fn a_cut_during_a_blackhole_closes_the_held_connections() {
    let proxy = TcpProxy::start(echo_server().await).await.unwrap();
    let mut open = TcpStream::connect(proxy.address()).await.unwrap();
    echoes(&mut open, b"before").await;
    proxy.blackhole();
    let mut held = TcpStream::connect(proxy.address()).await.unwrap();
    assert!(stays_silent(&mut held).await);

    proxy.cut();
    assert!(
        closes(&mut open).await,
        "the open connection outlived the cut"
    );
    assert!(
        closes(&mut held).await,
        "the held connection outlived the cut"
    );
}

#[tokio::test]
async fn dropping_the_proxy_closes_its_connections() {
    let proxy = TcpProxy::start(echo_server().await).await.unwrap();
    let mut stream = TcpStream::connect(proxy.address()).await.unwrap();
    echoes(&mut stream, b"one").await;
    drop(proxy);
    assert!(
        closes(&mut stream).await,
        "the connection outlived the proxy"
    );
}

#[test]
fn a_proxy_on_its_own_runtime_serves_code_without_one() {
    let server = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let target = server.local_addr().unwrap();
    std::thread::spawn(move || {
        for mut stream in server.incoming().flatten() {
            std::thread::spawn(move || {
                let mut buffer = [0; 1024];
                while let Ok(count @ 1..) = stream.read(&mut buffer) {
                    if stream.write_all(&buffer[..count]).is_err() {
                        break;
                    }
                }
            });
        }
    });
    let proxy = TcpProxy::start_blocking(target).unwrap();
    let mut stream = std::net::TcpStream::connect(proxy.address()).unwrap();
    stream.set_read_timeout(Some(SOON)).unwrap();
    stream.write_all(b"sync").unwrap();
    let mut back = [0; 4];
    stream.read_exact(&mut back).unwrap();
    assert_eq!(&back, b"sync");

    proxy.cut();
    let mut byte = [0; 1];
    let closed = match stream.read(&mut byte) {
        Ok(count) => count == 0,
        Err(error) => !matches!(
            error.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        ),
    };
    assert!(closed, "the connection outlived the cut");
}
