//! The output folder: created and probed before any work, locked against a second packlab,
//! written by temporary name and rename, and tidied with a manifest of what packlab wrote.
//!
//! packlab keeps its own files in `DIR/.packlab/`: the lock (`lock`, or `lock-I-of-N` for a
//! shard), the journal (`journal`, or `journal-I-of-N`) and the manifest of the outputs it wrote
//! last. Outputs of an earlier experiment that this one does not produce are removed; files
//! packlab did not write are never touched.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use super::ExperimentError;

/// The folder packlab keeps its own files in, inside the output folder.
pub const INTERNAL: &str = ".packlab";

/// A locked output folder.
#[derive(Debug)]
pub struct Folder {
    dir: PathBuf,
    /// Held for as long as the folder is in use; the operating system releases the lock when
    /// the process ends, however it ends.
    _lock: File,
}

fn bad(dir: &Path, what: impl Into<String>) -> ExperimentError {
    ExperimentError::Folder {
        dir: dir.to_path_buf(),
        what: what.into(),
    }
}

/// `lock`, or `lock-I-of-N` for shard I of N; the same for `journal`.
pub fn internal_name(base: &str, shard: Option<(u32, u32)>) -> String {
    match shard {
        None => base.to_string(),
        Some((i, n)) => format!("{base}-{i}-of-{n}"),
    }
}

/// This machine's name, for lock messages.
fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "an unknown host".into())
}

impl Folder {
    /// Creates `dir` if needed, checks that packlab can write in it, and takes its lock (the
    /// whole run's, or shard I of N's). Fails at once, before any work, naming the folder.
    pub fn open(dir: &Path, shard: Option<(u32, u32)>) -> Result<Folder, ExperimentError> {
        if dir.exists() && !dir.is_dir() {
            return Err(bad(dir, "it exists and is not a folder"));
        }
        let internal = dir.join(INTERNAL);
        std::fs::create_dir_all(&internal)
            .map_err(|e| bad(dir, format!("cannot create it: {e}")))?;
        let probe = internal.join(format!("probe-{}", std::process::id()));
        File::create(&probe)
            .and_then(|mut f| f.write_all(b"packlab"))
            .and_then(|_| std::fs::remove_file(&probe))
            .map_err(|e| bad(dir, format!("cannot write in it: {e}")))?;
        let path = internal.join(internal_name("lock", shard));
        let mut lock = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| bad(dir, format!("cannot open its lock: {e}")))?;
        if lock.try_lock().is_err() {
            let mut holder = String::new();
            let _ = lock.read_to_string(&mut holder);
            return Err(ExperimentError::Locked {
                dir: dir.to_path_buf(),
                holder: holder.trim().to_string(),
            });
        }
        lock.set_len(0)
            .and_then(|_| writeln!(lock, "pid {} on {}", std::process::id(), host()))
            .map_err(|e| bad(dir, format!("cannot write its lock: {e}")))?;
        Ok(Folder {
            dir: dir.to_path_buf(),
            _lock: lock,
        })
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The journal of the whole run or of shard I of N.
    pub fn journal(&self, shard: Option<(u32, u32)>) -> PathBuf {
        self.dir
            .join(INTERNAL)
            .join(internal_name("journal", shard))
    }

    /// Removes every journal in the folder (`--fresh`).
    pub fn remove_journals(&self) -> Result<(), ExperimentError> {
        let internal = self.dir.join(INTERNAL);
        let entries = std::fs::read_dir(&internal).map_err(|e| {
            bad(
                &self.dir,
                format!("cannot list {}: {e}", internal.display()),
            )
        })?;
        for e in entries.flatten() {
            if e.file_name().to_string_lossy().starts_with("journal") {
                std::fs::remove_file(e.path())
                    .map_err(|err| bad(&self.dir, format!("cannot remove a journal: {err}")))?;
            }
        }
        Ok(())
    }

    /// Records `written` (files of this folder) as packlab's outputs and removes the outputs of
    /// an earlier run that are not among them. Files packlab did not write are left alone.
    pub fn finish(&self, written: &[PathBuf]) -> Result<(), ExperimentError> {
        let manifest = self.dir.join(INTERNAL).join("manifest");
        let names: Vec<String> = written
            .iter()
            .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect();
        if let Ok(old) = std::fs::read_to_string(&manifest) {
            for name in old.lines().filter(|l| !l.is_empty()) {
                // only plain names: a manifest never reaches outside the folder
                if name.contains(['/', '\\']) || name.starts_with('.') {
                    continue;
                }
                if !names.iter().any(|n| n == name) {
                    let path = self.dir.join(name);
                    if path.is_file() {
                        std::fs::remove_file(&path).map_err(|e| {
                            bad(&self.dir, format!("cannot remove stale {name}: {e}"))
                        })?;
                    }
                }
            }
        }
        let mut text = names.join("\n");
        text.push('\n');
        super::common::write(manifest, &text).map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_with_the_first_ones_pid() {
        let dir = std::env::temp_dir().join(format!("packlab-folder-{}", std::process::id()));
        let a = Folder::open(&dir, None).unwrap();
        match Folder::open(&dir, None) {
            Err(ExperimentError::Locked { holder, .. }) => {
                assert!(
                    holder.contains(&format!("pid {}", std::process::id())),
                    "{holder}"
                )
            }
            other => panic!("expected a lock error, got {other:?}"),
        }
        // shards lock separately
        let b = Folder::open(&dir, Some((1, 2))).unwrap();
        drop((a, b));
        // released when dropped
        Folder::open(&dir, None).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
