//! URL normalisation: one spelling per page, so the seen-set catches duplicates.

use url::Url;

/// Query parameters removed by default: click and campaign trackers that do not change
/// the page. A trailing `*` matches any suffix.
pub const DEFAULT_TRACKING_PARAMS: &[&str] =
    &["utm_*", "fbclid", "gclid", "dclid", "msclkid", "yclid", "mc_cid", "mc_eid", "_hsenc", "_hsmkt", "igshid"];

/// Normalises URLs: parses (relative to a base), keeps only `http` and `https`,
/// lower-cases scheme and host (the URL parser does that and drops default ports),
/// removes the fragment, removes tracking parameters and sorts the rest.
#[derive(Debug, Clone)]
pub struct UrlNormalizer {
    tracking: Vec<String>,
}

impl Default for UrlNormalizer {
    fn default() -> Self {
        Self::new(DEFAULT_TRACKING_PARAMS.iter().map(|s| (*s).to_owned()).collect())
    }
}

impl UrlNormalizer {
    /// A normaliser removing these query parameters (`name` or `prefix*`,
    /// case-insensitive).
    pub fn new(tracking: Vec<String>) -> Self {
        Self { tracking: tracking.into_iter().map(|t| t.to_ascii_lowercase()).collect() }
    }

    fn is_tracking(&self, name: &str) -> bool {
        let name = name.to_ascii_lowercase();
        self.tracking.iter().any(|t| match t.strip_suffix('*') {
            Some(prefix) => name.starts_with(prefix),
            None => name == *t,
        })
    }

    /// The normal form of `raw` (resolved against `base` when relative), or `None` when
    /// it is not an http(s) URL with a host.
    pub fn normalize(&self, raw: &str, base: Option<&Url>) -> Option<Url> {
        let raw = raw.trim();
        if raw.is_empty() || raw.len() > 4096 {
            return None;
        }
        let mut url = match base {
            Some(b) => b.join(raw).ok()?,
            None => Url::parse(raw).ok()?,
        };
        if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none_or(str::is_empty) {
            return None;
        }
        url.set_fragment(None);
        if url.query().is_some() {
            let mut pairs: Vec<(String, String)> = url
                .query_pairs()
                .filter(|(k, _)| !self.is_tracking(k))
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect();
            pairs.sort();
            if pairs.is_empty() {
                url.set_query(None);
            } else {
                url.query_pairs_mut().clear().extend_pairs(pairs);
            }
        }
        // `http://h` and `http://h/` are the same page; the parser already writes "/".
        let _ = url.set_username("");
        let _ = url.set_password(None);
        Some(url)
    }
}

/// The host key of a URL: politeness (delay, robots.txt, one request at a time) is per
/// scheme, host and port.
pub fn host_key(url: &Url) -> String {
    match url.port_or_known_default() {
        Some(port) => format!("{}://{}:{port}", url.scheme(), url.host_str().unwrap_or_default()),
        None => format!("{}://{}", url.scheme(), url.host_str().unwrap_or_default()),
    }
}

/// Whether `host` is `domain` or a subdomain of it.
pub fn in_domain(host: &str, domain: &str) -> bool {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let domain = domain.trim_end_matches('.').to_ascii_lowercase();
    host == domain || host.strip_suffix(&domain).is_some_and(|rest| rest.ends_with('.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> Option<String> {
        UrlNormalizer::default().normalize(s, None).map(String::from)
    }

    #[test]
    fn case_ports_fragments_and_query_order() {
        assert_eq!(n("HTTP://Example.ORG:80/a/b?z=1&a=2#top").as_deref(), Some("http://example.org/a/b?a=2&z=1"));
        assert_eq!(n("https://example.org:443").as_deref(), Some("https://example.org/"));
        assert_eq!(n("https://example.org:8443/x").as_deref(), Some("https://example.org:8443/x"));
        assert_eq!(n("http://u:p@example.org/").as_deref(), Some("http://example.org/"));
    }

    #[test]
    fn tracking_parameters_removed() {
        assert_eq!(n("http://e.org/p?utm_source=x&id=3&fbclid=y&GCLID=z").as_deref(), Some("http://e.org/p?id=3"));
        assert_eq!(n("http://e.org/p?utm_medium=x").as_deref(), Some("http://e.org/p"));
        let keep = UrlNormalizer::new(vec![]);
        assert_eq!(
            keep.normalize("http://e.org/p?utm_medium=x", None).map(String::from).as_deref(),
            Some("http://e.org/p?utm_medium=x")
        );
    }

    #[test]
    fn relative_and_bad_urls() {
        let base = Url::parse("http://e.org/dir/page.html").unwrap();
        let norm = UrlNormalizer::default();
        assert_eq!(norm.normalize("../x#f", Some(&base)).map(String::from).as_deref(), Some("http://e.org/x"));
        assert_eq!(norm.normalize("mailto:a@b.c", Some(&base)), None);
        assert_eq!(norm.normalize("javascript:void(0)", Some(&base)), None);
        assert_eq!(n("not a url"), None);
        assert_eq!(n("ftp://e.org/"), None);
        assert_eq!(n("http://[::1"), None);
        assert_eq!(n(""), None);
    }

    proptest::proptest! {
        #[test]
        fn normalisation_is_idempotent_and_never_panics(
            scheme in "(http|https|HTTP|ftp)",
            host in "[a-zA-Z0-9.-]{0,12}",
            port in proptest::option::of(0u16..=65535),
            path in "[a-zA-Z0-9/._%~-]{0,20}",
            query in proptest::collection::vec(("[a-zA-Z_]{1,8}", "[a-zA-Z0-9%+ ]{0,6}"), 0..5),
            fragment in "[a-z]{0,5}",
        ) {
            let port = port.map(|p| format!(":{p}")).unwrap_or_default();
            let query: Vec<String> = query.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let raw = format!("{scheme}://{host}{port}/{path}?{}#{fragment}", query.join("&"));
            let norm = UrlNormalizer::default();
            if let Some(once) = norm.normalize(&raw, None) {
                let twice = norm.normalize(once.as_str(), None);
                proptest::prop_assert_eq!(twice.as_ref().map(Url::as_str), Some(once.as_str()));
                proptest::prop_assert!(once.fragment().is_none());
                proptest::prop_assert!(!once.query_pairs().any(|(k, _)| k.to_ascii_lowercase().starts_with("utm_")));
            }
        }
    }

    #[test]
    fn domains() {
        assert!(in_domain("a.example.org", "example.org"));
        assert!(in_domain("Example.org", "example.org"));
        assert!(!in_domain("badexample.org", "example.org"));
        let u = Url::parse("http://127.0.0.2:8080/x").unwrap();
        assert_eq!(host_key(&u), "http://127.0.0.2:8080");
    }
}
