//! Slow and idle clients (slowloris): half-sent heads are closed after the header timeout,
//! a stalled body is answered `408`, the connection cap holds, and `/api/health` answers
//! while 2,000 slow connections are open.
#![allow(clippy::unwrap_used)]

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::TestServer;

fn addr(s: &TestServer) -> String {
    s.base.trim_start_matches("http://").to_owned()
}

/// A connection that sends the start of a request head and then nothing.
fn half_sent_head(addr: &str) -> TcpStream {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.write_all(b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: ").unwrap();
    stream
}

/// Reads what the server sends until it closes the connection; `None` if it is still open
/// after `wait`.
fn read_until_closed(stream: &mut TcpStream, wait: Duration) -> Option<String> {
    stream.set_read_timeout(Some(wait)).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return Some(String::from_utf8_lossy(&got).into_owned()),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {
                return Some(String::from_utf8_lossy(&got).into_owned());
            }
            Err(_) => return None,
        }
    }
}

#[test]
fn half_sent_heads_and_idle_connections_are_closed_after_the_header_timeout() {
    let s = TestServer::start(|c| c.header_read_timeout = Duration::from_millis(500));
    let mut slow = half_sent_head(&addr(&s));
    let mut idle = TcpStream::connect(addr(&s)).unwrap();
    let start = Instant::now();
    assert!(read_until_closed(&mut slow, Duration::from_secs(10)).is_some(), "a half-sent head stays open");
    assert!(read_until_closed(&mut idle, Duration::from_secs(10)).is_some(), "an idle connection stays open");
    assert!(start.elapsed() < Duration::from_secs(9));

    // A kept-alive connection is closed once idle for as long as the header timeout.
    let mut kept = TcpStream::connect(addr(&s)).unwrap();
    kept.write_all(b"GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    let answer = read_until_closed(&mut kept, Duration::from_secs(10)).expect("the kept-alive connection is closed");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

#[test]
fn the_connection_cap_holds_and_frees_as_slow_clients_time_out() {
    let s = TestServer::start(|c| {
        c.max_connections = 4;
        c.header_read_timeout = Duration::from_secs(1);
    });
    let _slow: Vec<TcpStream> = (0..4).map(|_| half_sent_head(&addr(&s))).collect();
    std::thread::sleep(Duration::from_millis(200));
    // The fifth connection is not served while the four hold the cap...
    let mut waiting = TcpStream::connect(addr(&s)).unwrap();
    waiting.write_all(b"GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
    waiting.set_read_timeout(Some(Duration::from_millis(300))).unwrap();
    let mut buf = [0u8; 64];
    assert!(waiting.read(&mut buf).is_err(), "a connection over the cap was served at once");
    // ...and is, once the header timeout closes them.
    let answer = read_until_closed(&mut waiting, Duration::from_secs(10)).expect("served after the slow ones closed");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

#[test]
fn a_stalled_body_is_answered_408() {
    let s = TestServer::start(|c| c.body_read_timeout = Duration::from_millis(500));
    let mut stream = TcpStream::connect(addr(&s)).unwrap();
    stream
        .write_all(b"POST /api/checks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"text\": \"the start")
        .unwrap();
    let answer = read_until_closed(&mut stream, Duration::from_secs(10)).expect("the stalled upload is answered");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("\"slow_upload\""), "{answer}");

    // The whole body has its own deadline, however steadily it drips.
    let s = TestServer::start(|c| c.upload_timeout = Duration::from_secs(1));
    let mut stream = TcpStream::connect(addr(&s)).unwrap();
    stream
        .write_all(b"POST /api/checks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"text\": \"")
        .unwrap();
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(3) {
        if stream.write_all(b"a").is_err() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let answer = read_until_closed(&mut stream, Duration::from_secs(10)).expect("the dripping upload is answered");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
}

#[test]
fn health_answers_while_2000_slow_connections_are_open() {
    // Client and server ends of 2,000 connections live in this process.
    let limit = rlimit::increase_nofile_limit(u64::MAX).unwrap();
    if limit < 4_600 {
        eprintln!("skipped: the open-file limit is {limit}, and the test needs 4,600");
        return;
    }
    let s = TestServer::start(|_| {});
    let slow: Vec<TcpStream> = (0..2_000).map(|_| half_sent_head(&addr(&s))).collect();
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(5)))
        .build()
        .into();
    let r = agent.get(format!("{}/api/health", s.base)).call().unwrap();
    assert_eq!(r.status().as_u16(), 200);
    drop(slow);
}
