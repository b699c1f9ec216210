//! Opening input files, plain or gzip-compressed, the same way for every reader, and showing
//! their contents safely in error messages.
//!
//! A file is read as gzip when it starts with gzip's magic bytes (whatever its name), and then
//! whole: every member of a multi-member file (as `cat a.gz b.gz` or parallel compressors
//! write), not just the first.
//!
//! Every reader is bounded: only regular files are opened (a FIFO, a device or a folder is
//! refused by name, without blocking), no line may exceed [`MAX_LINE_BYTES`], a file read whole
//! may hold at most [`MAX_TEXT_BYTES`] once decompressed and a streamed one
//! [`MAX_STREAM_BYTES`], and reading stops when a signal asks packlab to stop.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use crate::limits::{MAX_LINE_BYTES, MAX_STREAM_BYTES, MAX_TEXT_BYTES};

/// gzip's first two bytes.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// A reader of the decompressed contents of `path`, streamed (at most [`MAX_STREAM_BYTES`]).
pub(crate) fn open(path: &Path) -> std::io::Result<Box<dyn BufRead>> {
    open_bounded(path, MAX_STREAM_BYTES)
}

/// A reader of the decompressed contents of `path`, at most `max` bytes, no line longer than
/// [`MAX_LINE_BYTES`].
fn open_bounded(path: &Path, max: u64) -> std::io::Result<Box<dyn BufRead>> {
    let mut f = BufReader::with_capacity(1 << 16, crate::fsafe::open_regular(path)?);
    let gz = f.fill_buf()?.starts_with(&GZIP_MAGIC);
    let inner: Box<dyn Read> = if gz {
        Box::new(Corrupt(flate2::bufread::MultiGzDecoder::new(f)))
    } else {
        Box::new(f)
    };
    let mut r = BufReader::with_capacity(
        1 << 16,
        Bounded {
            inner,
            total: 0,
            line: 0,
            max,
        },
    );
    // a byte-order mark (as some editors write before UTF-8 text) is not part of the first
    // line: without this, a header row that looks right would not match
    if r.fill_buf()?.starts_with(&BOM) {
        r.consume(BOM.len());
    }
    Ok(Box::new(r))
}

/// UTF-8's byte-order mark.
const BOM: [u8; 3] = [0xef, 0xbb, 0xbf];

/// A reader of the decompressed contents of `path`, read line by line by the caller (at most
/// [`MAX_TEXT_BYTES`]); a line that is not UTF-8 text is an error saying so.
pub(crate) fn open_text(path: &Path) -> std::io::Result<Box<dyn BufRead>> {
    open_bounded(path, MAX_TEXT_BYTES)
}

/// The decompressed contents of `path` as text (at most [`MAX_TEXT_BYTES`]).
pub(crate) fn read_text(path: &Path) -> std::io::Result<String> {
    let mut s = String::new();
    open_bounded(path, MAX_TEXT_BYTES)?
        .read_to_string(&mut s)
        .map_err(not_text)?;
    Ok(s)
}

/// A read error in words: text that is not UTF-8 is said to be so.
pub(crate) fn not_text(e: std::io::Error) -> std::io::Error {
    if e.kind() == std::io::ErrorKind::InvalidData && e.to_string().contains("UTF-8") {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "not UTF-8 text (binary data, or a corrupt or truncated gzip file)",
        )
    } else {
        e
    }
}

/// A reader that stops with a clear error past `max` bytes or at a line longer than
/// [`MAX_LINE_BYTES`], and when a signal asks packlab to stop.
struct Bounded {
    inner: Box<dyn Read>,
    /// Bytes read so far.
    total: u64,
    /// Bytes of the current line so far.
    line: u64,
    max: u64,
}

impl Read for Bounded {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if crate::cancel::requested().is_some() {
            return Err(std::io::Error::other("reading stopped by a signal"));
        }
        let n = self.inner.read(buf)?;
        let got = &buf[..n];
        self.total += n as u64;
        if self.total > self.max {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "more than {} bytes (decompressed); packlab reads at most that much of one file",
                    self.max
                ),
            ));
        }
        // only the first line of a read can be longer than the read itself
        match (
            got.iter().position(|&b| b == b'\n'),
            got.iter().rposition(|&b| b == b'\n'),
        ) {
            (Some(first), Some(last)) => {
                if self.line + first as u64 > MAX_LINE_BYTES {
                    return Err(long_line());
                }
                self.line = (n - last - 1) as u64;
            }
            _ => self.line += n as u64,
        }
        if self.line > MAX_LINE_BYTES {
            return Err(long_line());
        }
        Ok(n)
    }
}

fn long_line() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!("a line longer than {MAX_LINE_BYTES} bytes (not a text file of lines?)"),
    )
}

/// Turns a decompression failure into a message that says what it means.
struct Corrupt<R>(R);

impl<R: Read> Read for Corrupt<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0.read(buf).map_err(|e| match e.kind() {
            std::io::ErrorKind::InvalidInput
            | std::io::ErrorKind::InvalidData
            | std::io::ErrorKind::UnexpectedEof => std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("corrupt or truncated gzip data ({e})"),
            ),
            _ => e,
        })
    }
}

/// `text` as it may appear in a message: control characters escaped, at most 40 characters.
pub(crate) fn shown(text: &str) -> String {
    shown_long(text, 40)
}

/// `text` as it may appear in a message: control characters escaped, at most `max`
/// characters (an ellipsis marks a cut).
pub(crate) fn shown_long(text: &str, max: usize) -> String {
    let mut out: String = text
        .chars()
        .take(max)
        .flat_map(|c| {
            if c.is_control() {
                c.escape_default().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect();
    if text.chars().count() > max {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn every_gzip_member_is_read_and_plain_files_pass_through() {
        let dir = std::env::temp_dir().join(format!("packlab-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let member = |s: &str| {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(s.as_bytes()).unwrap();
            e.finish().unwrap()
        };
        let two = [member("a\nb\n"), member("c\n")].concat();
        // the name does not matter: the magic bytes do
        std::fs::write(dir.join("two.csv"), &two).unwrap();
        assert_eq!(read_text(&dir.join("two.csv")).unwrap(), "a\nb\nc\n");
        std::fs::write(dir.join("plain.gz"), "x,y\n").unwrap();
        std::fs::write(dir.join("bom.csv"), "\u{feff}x,y\n").unwrap();
        assert_eq!(read_text(&dir.join("bom.csv")).unwrap(), "x,y\n");
        assert_eq!(read_text(&dir.join("plain.gz")).unwrap(), "x,y\n");
        // cut short: an error that says so, not a panic or garbage
        std::fs::write(dir.join("cut.gz"), &two[..two.len() / 2]).unwrap();
        let e = read_text(&dir.join("cut.gz")).unwrap_err().to_string();
        assert!(e.contains("gzip"), "{e}");
        std::fs::write(dir.join("bin"), [0u8, 159, 146, 150]).unwrap();
        let e = read_text(&dir.join("bin")).unwrap_err().to_string();
        assert!(e.contains("not UTF-8"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn shown_text_escapes_control_characters_and_is_short() {
        assert_eq!(shown("ab\0c"), "ab\\u{0}c");
        assert_eq!(shown(&"x".repeat(50)), format!("{}…", "x".repeat(40)));
    }
}
