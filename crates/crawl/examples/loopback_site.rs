//! A loopback web site for the crawler's throughput benchmark: `HOSTS` host names
//! (127.0.0.2, 127.0.0.3, ...) on one port, each with a home page linking to
//! `PAGES_PER_HOST` article pages of distinct text. Writes the seeds file and serves
//! until killed.
//!
//! ```text
//! cargo run --release -p tessera-crawl --example loopback_site -- 50 200 18080 seeds.txt &
//! tessera crawl --index /tmp/bench --seeds seeds.txt --per-host-delay 0 --concurrency 64
//! ```
#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;

fn words(seed: u64, n: usize) -> String {
    let mut out = String::new();
    for (i, w) in tessera_test_support::words::words(seed, n, 3, 7).iter().enumerate() {
        out.push_str(w);
        out.push_str(if i % 12 == 11 { ".</p><p>" } else { " " });
    }
    out
}

fn page(host: u64, path: &str, pages: u64) -> Option<String> {
    if path == "/" {
        let links: String = (0..pages).map(|i| format!("<li><a href=\"/p{i}\">page {i}</a></li>")).collect();
        return Some(format!("<html><head><title>Host {host}</title></head><body><ul>{links}</ul></body></html>"));
    }
    let i: u64 = path.strip_prefix("/p")?.parse().ok().filter(|&i| i < pages)?;
    let text = words(host * 1_000_003 + i, 400);
    Some(format!(
        "<html><head><title>Page {i} of host {host}</title></head><body><article><h1>Page {i}</h1><p>{text}</p></article></body></html>"
    ))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let hosts: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(50);
    let pages: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(200);
    let port: u16 = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(18080);
    let seeds = args.get(4).cloned().unwrap_or_else(|| "seeds.txt".into());
    let mut list = String::new();
    for h in 0..hosts {
        let ip = format!("127.0.0.{}", h + 2);
        list.push_str(&format!("http://{ip}:{port}/\n"));
        let listener = TcpListener::bind((ip.as_str(), port)).unwrap();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        let path = line.split_whitespace().nth(1).unwrap_or("/").to_owned();
                        loop {
                            let mut h = String::new();
                            if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
                                break;
                            }
                        }
                        let (status, body) = match page(h, &path, pages) {
                            Some(b) => ("200 OK", b),
                            None => ("404 Not Found", String::new()),
                        };
                        let head = format!(
                            "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\r\n",
                            body.len()
                        );
                        if stream.write_all(head.as_bytes()).and_then(|()| stream.write_all(body.as_bytes())).is_err() {
                            return;
                        }
                    }
                });
            }
        });
    }
    std::fs::write(&seeds, list).unwrap();
    eprintln!("serving {hosts} hosts x {pages} pages on port {port}; seeds in {seeds}");
    loop {
        std::thread::park();
    }
}
