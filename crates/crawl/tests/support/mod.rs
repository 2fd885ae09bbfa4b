//! A tiny HTTP/1.1 server on loopback for crawler tests: one thread per connection,
//! `Connection: close`, a routing closure, and a log of every request with the time it
//! arrived.
#![allow(dead_code, clippy::unwrap_used)]

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A response.
#[derive(Debug, Clone, Default)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Wait this long before answering (a slow host).
    pub delay: Duration,
    /// Close the connection without answering.
    pub hang_up: bool,
}

impl Resp {
    pub fn html(body: impl Into<String>) -> Resp {
        Resp {
            status: 200,
            headers: vec![("Content-Type".into(), "text/html; charset=utf-8".into())],
            body: body.into().into_bytes(),
            ..Resp::default()
        }
    }
    pub fn typed(ct: &str, body: impl Into<Vec<u8>>) -> Resp {
        Resp { status: 200, headers: vec![("Content-Type".into(), ct.into())], body: body.into(), ..Resp::default() }
    }
    pub fn status(status: u16) -> Resp {
        Resp { status, ..Resp::default() }
    }
    pub fn redirect(to: &str) -> Resp {
        Resp { status: 301, headers: vec![("Location".into(), to.into())], ..Resp::default() }
    }
    pub fn header(mut self, name: &str, value: &str) -> Resp {
        self.headers.push((name.into(), value.into()));
        self
    }
}

/// One logged request.
#[derive(Debug, Clone)]
pub struct Hit {
    pub path: String,
    pub user_agent: String,
    /// Request headers, names lower-cased.
    pub headers: Vec<(String, String)>,
    pub at: Instant,
}

/// A running server.
pub struct Server {
    pub addr: SocketAddr,
    pub log: Arc<Mutex<Vec<Hit>>>,
}

impl Server {
    /// Starts a server on `ip` (any 127.x.y.z), port chosen by the system.
    pub fn start(ip: &str, route: impl Fn(&str, usize) -> Resp + Send + Sync + 'static) -> Server {
        Self::start_with_headers(ip, move |path, n, _| route(path, n))
    }

    /// Like [`start`](Self::start), the route also seeing the request headers.
    pub fn start_with_headers(
        ip: &str,
        route: impl Fn(&str, usize, &[(String, String)]) -> Resp + Send + Sync + 'static,
    ) -> Server {
        let listener = TcpListener::bind((ip, 0)).unwrap();
        let addr = listener.local_addr().unwrap();
        let log: Arc<Mutex<Vec<Hit>>> = Arc::default();
        let route = Arc::new(route);
        let log2 = Arc::clone(&log);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let route = Arc::clone(&route);
                let log = Arc::clone(&log2);
                std::thread::spawn(move || {
                    let at = Instant::now();
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut line = String::new();
                    if reader.read_line(&mut line).is_err() {
                        return;
                    }
                    let path = line.split_whitespace().nth(1).unwrap_or("/").to_owned();
                    let mut headers = Vec::new();
                    loop {
                        let mut h = String::new();
                        if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
                            break;
                        }
                        if let Some((k, v)) = h.split_once(':') {
                            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_owned()));
                        }
                    }
                    let user_agent =
                        headers.iter().find(|(k, _)| k == "user-agent").map(|(_, v)| v.clone()).unwrap_or_default();
                    let n = {
                        let mut log = log.lock().unwrap();
                        log.push(Hit { path: path.clone(), user_agent, headers: headers.clone(), at });
                        log.len()
                    };
                    let resp = route(&path, n, &headers);
                    std::thread::sleep(resp.delay);
                    if resp.hang_up {
                        return;
                    }
                    let mut out = format!(
                        "HTTP/1.1 {} X\r\nContent-Length: {}\r\nConnection: close\r\n",
                        resp.status,
                        resp.body.len()
                    );
                    for (k, v) in &resp.headers {
                        out.push_str(&format!("{k}: {v}\r\n"));
                    }
                    out.push_str("\r\n");
                    let _ = stream.write_all(out.as_bytes());
                    let _ = stream.write_all(&resp.body);
                });
            }
        });
        Server { addr, log }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub fn hits(&self) -> Vec<Hit> {
        self.log.lock().unwrap().clone()
    }

    pub fn count(&self, path: &str) -> usize {
        self.hits().iter().filter(|h| h.path == path).count()
    }
}

/// A pseudo-random text of `n` words (deterministic in `seed`), as paragraphs.
pub fn words(seed: u64, n: usize) -> String {
    let mut out = String::new();
    for (i, w) in tessera_test_support::words::words(seed, n, 3, 7).iter().enumerate() {
        out.push_str(w);
        out.push(if i % 12 == 11 { '.' } else { ' ' });
        if i % 60 == 59 {
            out.push('\n');
        }
    }
    out
}

/// An HTML article page with a title, paragraphs and links.
pub fn article(title: &str, text: &str, links: &[String]) -> String {
    let paras: String = text.lines().map(|l| format!("<p>{l}</p>\n")).collect();
    let links: String = links.iter().map(|l| format!("<li><a href=\"{l}\">{l}</a></li>")).collect();
    format!(
        "<!doctype html><html><head><title>{title}</title></head><body><nav><ul>{links}</ul></nav>\
         <article><h1>{title}</h1>\n{paras}</article></body></html>"
    )
}
