//! Opening files without being led astray: never through a symbolic link where packlab writes,
//! never blocking on a FIFO or a device where it reads, temporary names that cannot be guessed
//! or planted.
//!
//! Every file packlab writes goes through [`create_new`] (a new file, created exclusively, the
//! last component never followed) or [`open_nofollow`]; every file it reads goes through
//! [`open_regular`], which refuses anything but a regular file before reading a byte.

use std::fs::{File, OpenOptions};
use std::hash::{BuildHasher, Hasher};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Flags of every open: do not follow a symbolic link in the last component, do not block on
/// a FIFO (it is then refused as not a regular file).
const FLAGS: i32 = libc::O_NOFOLLOW | libc::O_NONBLOCK;

/// `path`'s last component is a symbolic link.
pub(crate) fn is_symlink(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// The error for `path` being of the wrong type.
fn not_regular(path: &Path, what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "{} is {what}, not a regular file (packlab reads and writes regular files only)",
            path.display()
        ),
    )
}

/// What kind of file `m` describes, in words.
fn kind(m: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = m.file_type();
    if t.is_dir() {
        "a folder"
    } else if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_symlink() {
        "a symbolic link"
    } else {
        "a special file"
    }
}

/// Checks that the open file `f` (at `path`) is a regular file.
fn regular(f: File, path: &Path) -> io::Result<File> {
    let m = f.metadata()?;
    if m.is_file() {
        Ok(f)
    } else {
        Err(not_regular(path, kind(&m)))
    }
}

/// Opens `path` for reading: a regular file only (a FIFO, a device or a folder is refused at
/// once, without blocking). Symbolic links are followed: inputs may be links.
pub(crate) fn open_regular(path: &Path) -> io::Result<File> {
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    regular(f, path)
}

/// Opens `path` with `options`, never following a symbolic link as its last component (the
/// open fails) and refusing anything but a regular file with one name (no hard link).
pub(crate) fn open_nofollow(path: &Path, options: &mut OpenOptions) -> io::Result<File> {
    let f = options.custom_flags(FLAGS).open(path).map_err(|e| {
        if e.raw_os_error() == Some(libc::ELOOP) || is_symlink(path) {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{} is a symbolic link; packlab does not write through links (remove it)",
                    path.display()
                ),
            )
        } else {
            e
        }
    })?;
    single_link(regular(f, path)?, path)
}

/// Checks that the open file `f` (at `path`) has no other name: a hard link planted where
/// packlab keeps a file of its own (a lock, a journal) would have it write into the file the
/// link shares its contents with.
fn single_link(f: File, path: &Path) -> io::Result<File> {
    use std::os::unix::fs::MetadataExt;
    let links = f.metadata()?.nlink();
    if links > 1 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} has {links} names (hard links); packlab does not write into a file that \
                 has another name (remove it)",
                path.display()
            ),
        ));
    }
    Ok(f)
}

/// Creates `path` as a new file for writing: fails if anything (a file, a link) is there.
pub(crate) fn create_new(path: &Path) -> io::Result<File> {
    open_nofollow(path, OpenOptions::new().write(true).create_new(true))
}

/// Sixteen hex digits no other process can predict (from the standard library's randomly
/// keyed hasher, the time and the process id): for temporary names.
pub(crate) fn unpredictable() -> String {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    format!("{:016x}", h.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_fifos_and_devices_are_refused() {
        let dir = std::env::temp_dir().join(format!("packlab-fsafe-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let outside = dir.join("outside");
        std::fs::write(&outside, "keep").unwrap();
        let link = dir.join("link");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        // writing through a link fails and leaves its target alone
        let e = open_nofollow(&link, OpenOptions::new().write(true).truncate(true)).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert!(create_new(&link).is_err());
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep");
        // reading follows links, but only to regular files
        assert!(open_regular(&link).is_ok());
        let e = open_regular(Path::new("/dev/zero")).unwrap_err();
        assert!(e.to_string().contains("a device"), "{e}");
        let e = open_regular(&dir).unwrap_err();
        assert!(e.to_string().contains("a folder"), "{e}");
        let fifo = dir.join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let e = open_regular(&fifo).unwrap_err();
            assert!(e.to_string().contains("FIFO"), "{e}");
        }
        assert_ne!(unpredictable(), unpredictable());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
