//! HTML pages through the public API: main text, charset, layout, title.

#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use tessera_extract::{ExtractConfig, Extracted, Format, Warning, extract_bytes};

const ARTICLE: [&str; 4] = [
    "Война и мир — роман-эпопея Льва Николаевича Толстого, описывающий русское общество \
     в эпоху войн против Наполеона в 1805—1812 годах.",
    "Эпилог романа доводит повествование до 1820 года. Работа над книгой продолжалась \
     шесть лет, и за это время Толстой многократно переписывал целые главы, \
     добиваясь точности каждой сцены и каждого характера.",
    "Роман вызвал огромный интерес у современников: критики спорили о его жанре, \
     историки — о достоверности описанных событий, а читатели ждали каждой новой части.",
    "Исследователи насчитывают в романе более пятисот персонажей, из которых около двухсот \
     являются историческими лицами, а остальные вымышлены автором.",
];

fn page(charset: &str) -> String {
    format!(
        r#"<!DOCTYPE html>
<html lang="ru">
<head>
  <meta charset="{charset}">
  <title>Война и мир &mdash; Литературная энциклопедия</title>
  <style>body {{ font-family: serif; }} .ad {{ color: red; }}</style>
  <script>window.dataLayer = []; function track() {{ return "Купить сейчас"; }}</script>
</head>
<body>
  <header class="site-header"><a href="/">Энциклопедия</a><span>Вход</span></header>
  <nav class="menu"><ul><li><a href="/a">Главная</a></li><li><a href="/b">Авторы</a></li>
    <li><a href="/c">Произведения</a></li><li><a href="/d">Контакты</a></li></ul></nav>
  <div class="ad banner" id="ad-top">Реклама: купите слона со скидкой!</div>
  <main>
    <article class="post">
      <h1>Война и мир</h1>
      <p>{}</p>
      <p>{}</p>
      <p>{}</p>
      <p>{}</p>
    </article>
  </main>
  <aside class="sidebar"><h3>Популярное</h3><ul><li>Анна Каренина</li><li>Воскресение</li></ul></aside>
  <footer><p>&copy; 2026 Энциклопедия. Все права защищены.</p></footer>
  <script>track();</script>
</body>
</html>"#,
        ARTICLE[0], ARTICLE[1], ARTICLE[2], ARTICLE[3]
    )
}

fn extract(name: &str, bytes: &[u8]) -> Extracted {
    extract_bytes(name, bytes, &ExtractConfig::default()).expect("extracts")
}

fn assert_main_text_only(out: &Extracted) {
    for paragraph in ARTICLE {
        assert!(out.text.contains(paragraph), "missing {paragraph:?} in {:?}", out.text);
    }
    for noise in [
        "Главная",
        "Авторы",
        "Реклама",
        "слона",
        "Популярное",
        "Анна Каренина",
        "Все права",
        "dataLayer",
        "Купить",
        "font-family",
        "Вход",
    ] {
        assert!(!out.text.contains(noise), "{noise:?} leaked into {:?}", out.text);
    }
    // Paragraphs are separate lines: words never glue across blocks.
    assert!(out.text.contains(&format!("{}\n\n{}", ARTICLE[0], ARTICLE[1])), "{:?}", out.text);
}

#[test]
fn realistic_page_utf8() {
    let out = extract("page.html", page("utf-8").as_bytes());
    assert_eq!(out.format, Format::Html);
    assert_eq!(out.title.as_deref(), Some("Война и мир — Литературная энциклопедия"));
    assert_eq!(out.encoding.as_deref(), Some("UTF-8"));
    assert_main_text_only(&out);
}

#[test]
fn realistic_page_windows_1251_by_meta_charset() {
    let html = page("windows-1251");
    let (bytes, _, _) = encoding_rs::WINDOWS_1251.encode(&html);
    // Named .txt and still recognised as HTML by its content.
    let out = extract("download.txt", &bytes);
    assert_eq!(out.format, Format::Html);
    assert_eq!(out.encoding.as_deref(), Some("windows-1251"));
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);
    assert_main_text_only(&out);
}

#[test]
fn realistic_page_koi8_r_without_declaration() {
    let html = page("x").replace("<meta charset=\"x\">", "");
    let (bytes, _, _) = encoding_rs::KOI8_R.encode(&html);
    let out = extract("page.html", &bytes);
    assert_eq!(out.encoding.as_deref(), Some("KOI8-R"));
    assert_main_text_only(&out);
}

#[test]
fn wrong_declaration_loses_to_the_bytes() {
    let html = page("utf-8");
    let (bytes, _, _) = encoding_rs::WINDOWS_1251.encode(&html);
    let out = extract("page.html", &bytes);
    assert_eq!(out.encoding.as_deref(), Some("windows-1251"));
    assert!(matches!(
        out.warnings.as_slice(),
        [Warning::DeclaredCharsetIgnored { declared, used }] if declared == "utf-8" && used == "windows-1251"
    ));
    assert_main_text_only(&out);
}

#[test]
fn main_content_off_keeps_the_body_minus_furniture() {
    let config = ExtractConfig { main_content: false, ..ExtractConfig::default() };
    let out = extract_bytes("page.html", page("utf-8").as_bytes(), &config).unwrap();
    assert_main_text_only(&out);
    assert!(out.text.starts_with("Война и мир\n\n"), "{:?}", out.text);
}

#[test]
fn short_page_without_an_article_uses_the_body() {
    let html = "<html><head><title> Short \n page </title></head><body>\
        <nav>Menu</nav><div>First line</div><div>Second<br>line</div>\
        <ul><li>one</li><li>two</li></ul><footer>Footer</footer></body></html>";
    let out = extract("short.html", html.as_bytes());
    assert_eq!(out.title.as_deref(), Some("Short page"));
    assert_eq!(out.text, "First line\nSecond\nline\n\none\ntwo");
}

#[test]
fn utf16_page_with_bom() {
    let html = "\u{FEFF}<!DOCTYPE html><title>Т</title><p>Привет</p><p>мир</p>";
    let bytes: Vec<u8> = html.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let out = extract("page", &bytes);
    assert_eq!((out.format, out.text.as_str()), (Format::Html, "Привет\n\nмир"));
    assert_eq!(out.encoding.as_deref(), Some("UTF-16LE"));
}

#[test]
fn pathological_nesting_is_fast() {
    let html = format!("<!DOCTYPE html><title>Deep</title>{}слово{}", "<div>".repeat(200_000), "</div>".repeat(10));
    let start = Instant::now();
    let out = extract("deep.html", html.as_bytes());
    assert!(start.elapsed() < Duration::from_secs(10), "{:?}", start.elapsed());
    assert_eq!(out.text, "слово");
}
