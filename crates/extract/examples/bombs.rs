//! Writes the decompression bombs of issue 18 into a folder, for the memory
//! figures of docs/performance.md ("Hostile files"):
//! `cargo run --release -p tessera-extract --example bombs -- /tmp/bombs`.
//!
//! - `zeros.7z`: 2 GiB of zeros, solid LZMA2;
//! - `zeros.zip`: 1 GiB of zeros, deflated;
//! - `huge.docx`: a DOCX whose `word/document.xml` is 628 MB;
//! - `members.7z`: 16 members of 128 MiB of zeros, solid LZMA2 (each under
//!   the 256 MiB document limit, so the headers refuse none);
//! - `liar.zip`: `zeros.zip` with every declared size rewritten to 1,000
//!   bytes.

#[path = "../tests/support/bombs.rs"]
mod bombs;

fn main() -> std::io::Result<()> {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "bombs".into()));
    std::fs::create_dir_all(&dir)?;
    for (name, bytes) in [
        ("zeros.7z", bombs::sevenz_of_zeros(2 << 30)),
        ("zeros.zip", bombs::zip_of_zeros(1 << 30)),
        ("huge.docx", bombs::docx_of(628_000_000)),
        ("members.7z", bombs::sevenz_of_zero_members(16, 128 << 20)),
        ("liar.zip", {
            let mut zip = bombs::zip_of_zeros(1 << 30);
            bombs::lie_about_sizes(&mut zip, 1000);
            zip
        }),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, &bytes)?;
        println!("{} {} bytes", path.display(), bytes.len());
    }
    Ok(())
}
