//! Build script: fetches the PDFium library, so PDF extraction works after
//! `cargo build`/`cargo test` on a fresh machine (docs/design.md, section PDF).
//!
//! PDFium is bound at run time (`pdfium-render`); the library comes from the
//! PyPI wheel `pypdfium2` (BSD/Apache), the same one `scripts/setup-pdfium.sh`
//! installs. The wheel is downloaded with `python3 -m pip download` (pip's own
//! cache makes the second build local), or, without pip, with `curl` from the
//! URL PyPI's JSON API gives, its SHA-256 checked with `sha256sum`. The
//! library is unpacked to `$OUT_DIR/pdfium/`, and its path is compiled into
//! the crate as `TESSERA_BUILD_PDFIUM` (one of the places `pdfium_library`
//! looks).
//!
//! Failing soft: without network, Python or curl, on a platform without a
//! wheel, or with `TESSERA_PDFIUM_FETCH=0`, the build goes on with a warning,
//! and PDF extraction then needs the library installed as before.

use std::env;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The pypdfium2 release; keep it equal to `scripts/setup-pdfium.sh` and to
/// the `pdfium_*` feature of `pdfium-render` (its PDFium build 8149).
const PYPDFIUM2_VERSION: &str = "5.15.2";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=TESSERA_PDFIUM_FETCH");
    let fetched = if env::var("TESSERA_PDFIUM_FETCH").as_deref() == Ok("0") {
        None
    } else {
        match fetch() {
            Ok(path) => Some(path),
            Err(reason) => {
                println!(
                    "cargo:warning=the PDFium library was not fetched ({reason}); PDF extraction will need \
                     scripts/setup-pdfium.sh or TESSERA_PDFIUM"
                );
                None
            }
        }
    };
    let path = fetched.map(|p| p.display().to_string()).unwrap_or_default();
    println!("cargo:rustc-env=TESSERA_BUILD_PDFIUM={path}");
}

/// The library's file name in the wheel and on disk, and the wheel's
/// platform tag fragment, for the target; `None` where pypdfium2 has no
/// wheel or the target is not the host (pip picks the host's wheel).
fn platform() -> Result<(&'static str, &'static str), String> {
    let os = env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let arch = env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    if env::var("TARGET").ok() != env::var("HOST").ok() {
        return Err("cross-compiling: the host's wheel would not fit the target".into());
    }
    match (os.as_str(), arch.as_str()) {
        ("linux", "x86_64") => Ok(("libpdfium.so", "manylinux_2_17_x86_64")),
        ("linux", "aarch64") => Ok(("libpdfium.so", "manylinux_2_17_aarch64")),
        ("macos", "x86_64") => Ok(("libpdfium.dylib", "macosx_10_13_x86_64")),
        ("macos", "aarch64") => Ok(("libpdfium.dylib", "macosx_11_0_arm64")),
        ("windows", "x86_64") => Ok(("pdfium.dll", "win_amd64")),
        _ => Err(format!("no pypdfium2 wheel for {os}/{arch}")),
    }
}

fn fetch() -> Result<PathBuf, String> {
    let (file, tag) = platform()?;
    let out = PathBuf::from(env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?).join("pdfium");
    let lib = out.join(file);
    let stamp = out.join("version");
    if lib.is_file() && fs::read_to_string(&stamp).is_ok_and(|v| v == PYPDFIUM2_VERSION) {
        return Ok(lib);
    }
    let download = out.join("download");
    let _ = fs::remove_dir_all(&download);
    fs::create_dir_all(&download).map_err(|e| format!("cannot create {}: {e}", download.display()))?;
    let unpacked = pip_download(&download)
        .or_else(|pip| curl_download(&download, tag).map_err(|curl| format!("pip: {pip}; curl: {curl}")))
        .and_then(|wheel| unzip_member(&wheel, &format!("pypdfium2_raw/{file}")));
    let _ = fs::remove_dir_all(&download);
    let bytes = unpacked?;
    let partial = out.join(format!("{file}.partial"));
    fs::write(&partial, bytes).map_err(|e| format!("cannot write {}: {e}", partial.display()))?;
    fs::rename(&partial, &lib).map_err(|e| format!("cannot write {}: {e}", lib.display()))?;
    fs::write(&stamp, PYPDFIUM2_VERSION).map_err(|e| format!("cannot write {}: {e}", stamp.display()))?;
    Ok(lib)
}

/// `python3 -m pip download pypdfium2==VERSION` into `dir`; the wheel's path.
fn pip_download(dir: &Path) -> Result<PathBuf, String> {
    let python = ["python3", "python"]
        .into_iter()
        .find(|p| Command::new(p).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok())
        .ok_or("no python3")?;
    let output = Command::new(python)
        .args(["-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", "--timeout", "30"])
        .args(["--retries", "1", "--disable-pip-version-check", "--dest"])
        .arg(dir)
        .arg(format!("pypdfium2=={PYPDFIUM2_VERSION}"))
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {python}: {e}"))?;
    if !output.status.success() {
        let err = String::from_utf8_lossy(&output.stderr);
        return Err(err.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("failed").trim().to_owned());
    }
    wheel_in(dir)
}

/// The wheel for `tag` from the URL PyPI's JSON API gives, downloaded with
/// curl and checked against the SHA-256 PyPI lists.
fn curl_download(dir: &Path, tag: &str) -> Result<PathBuf, String> {
    // The project's JSON (every release): some PyPI mirrors answer only that one.
    let api = "https://pypi.org/pypi/pypdfium2/json";
    let json = curl(api, None)?;
    let project: serde_json::Value =
        serde_json::from_slice(&json).map_err(|e| format!("PyPI's answer is not JSON: {e}"))?;
    let file = project["releases"][PYPDFIUM2_VERSION]
        .as_array()
        .into_iter()
        .flatten()
        .find(|f| f["filename"].as_str().is_some_and(|n| n.ends_with(".whl") && n.contains(tag)))
        .ok_or_else(|| format!("no wheel tagged {tag} in pypdfium2 {PYPDFIUM2_VERSION}"))?;
    let (Some(url), Some(name), Some(sha256)) =
        (file["url"].as_str(), file["filename"].as_str(), file["digests"]["sha256"].as_str())
    else {
        return Err("PyPI's answer lacks a URL, file name or digest".into());
    };
    let wheel = dir.join(name);
    curl(&resolve(api, url), Some(&wheel))?;
    let sum = Command::new("sha256sum").arg(&wheel).output().map_err(|e| format!("cannot run sha256sum: {e}"))?;
    let got = String::from_utf8_lossy(&sum.stdout);
    if got.split_whitespace().next() != Some(sha256) {
        return Err(format!("{name}: SHA-256 differs from PyPI's"));
    }
    Ok(wheel)
}

/// `url` as given, or resolved against `base` when relative (some mirrors
/// answer `../../packages/...`).
fn resolve(base: &str, url: &str) -> String {
    if url.contains("://") {
        return url.to_owned();
    }
    let mut dir: Vec<&str> = base.split('/').collect();
    dir.pop();
    let mut rest = url;
    while let Some(up) = rest.strip_prefix("../") {
        if dir.len() > 3 {
            dir.pop();
        }
        rest = up;
    }
    format!("{}/{}", dir.join("/"), rest.trim_start_matches("./"))
}

fn curl(url: &str, to: Option<&Path>) -> Result<Vec<u8>, String> {
    let mut command = Command::new("curl");
    command.args(["--silent", "--show-error", "--fail", "--location", "--max-time", "120", url]);
    if let Some(to) = to {
        command.arg("--output").arg(to);
    }
    let output = command.stdin(Stdio::null()).output().map_err(|e| format!("cannot run curl: {e}"))?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).trim().to_owned());
    }
    Ok(output.stdout)
}

fn wheel_in(dir: &Path) -> Result<PathBuf, String> {
    fs::read_dir(dir)
        .map_err(|e| format!("cannot list {}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or_else(|| "no wheel downloaded".into())
}

/// One member of a wheel (a ZIP file), at most 64 MiB.
fn unzip_member(wheel: &Path, member: &str) -> Result<Vec<u8>, String> {
    let file = fs::File::open(wheel).map_err(|e| format!("cannot open {}: {e}", wheel.display()))?;
    let mut archive = zip::ZipArchive::new(file).map_err(|e| format!("{}: not a wheel: {e}", wheel.display()))?;
    let entry = archive.by_name(member).map_err(|e| format!("{}: no {member}: {e}", wheel.display()))?;
    let mut bytes = Vec::new();
    entry.take(64 << 20).read_to_end(&mut bytes).map_err(|e| format!("cannot unpack {member}: {e}"))?;
    Ok(bytes)
}
