//! The web page, compiled into the binary: no files or Node toolchain at run time.

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};

const INDEX_HTML: &str = include_str!("../static/index.html");
const APP_JS: &str = include_str!("../static/app.js");
const COMPARE_JS: &str = include_str!("../static/compare.js");
const APP_CSS: &str = include_str!("../static/app.css");

pub(crate) async fn index() -> Html<&'static str> {
    Html(INDEX_HTML)
}

pub(crate) async fn asset(Path(file): Path<String>) -> Response {
    let (content_type, body) = match file.as_str() {
        "app.js" => ("text/javascript; charset=utf-8", APP_JS),
        "compare.js" => ("text/javascript; charset=utf-8", COMPARE_JS),
        "app.css" => ("text/css; charset=utf-8", APP_CSS),
        _ => return crate::error::ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such asset").into_response(),
    };
    ([(header::CONTENT_TYPE, content_type), (header::CACHE_CONTROL, "no-cache")], body).into_response()
}
