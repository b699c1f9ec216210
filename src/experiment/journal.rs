//! The run journal: every finished unit of work of an experiment, appended as it finishes, so
//! that an interrupted run resumes where it stopped and shards on several machines can be
//! merged.
//!
//! A journal is a file of records, each `[length: u32][crc32: u32][payload]` (little-endian;
//! payloads in the `postcard` format, which keeps every `f64` bit for bit). The first record is
//! the [`JournalHeader`]: packlab's version, the experiment's name and fingerprint (a hash of
//! the validated experiment), a hash per top-level table of its file (to say what changed), the
//! number of units of its plan and the shard the journal belongs to. Every other record is one
//! unit: its index in the plan and its result.
//!
//! Each record is written with one `write` and flushed to the operating system at once, so a
//! killed process (even by SIGKILL) loses at most the units still running; the file is synced
//! to disk at most every [`SYNC_EVERY`] and when the run ends, so a machine crash loses at most
//! that much more. A record cut short by a kill or a full disk fails its length or checksum
//! check when the journal is read again and is dropped (with everything after it).

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// The longest the journal goes without syncing to disk while units keep finishing.
pub const SYNC_EVERY: Duration = Duration::from_millis(200);

/// What a journal belongs to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalHeader {
    /// packlab's version.
    pub version: String,
    /// The experiment's name.
    pub name: String,
    /// The experiment file, as an absolute path (for `packlab merge`).
    pub file: PathBuf,
    /// A hash of the validated experiment (its laws, data, plan; not the path of its file).
    pub fingerprint: u64,
    /// A hash of each top-level table or key of the file, by name.
    pub sections: Vec<(String, u64)>,
    /// Whether the plan is the `--quick` one.
    pub quick: bool,
    /// Units in the whole plan.
    pub units: u32,
    /// (I, N) for shard I of N, (1, 1) for a whole run.
    pub shard: (u32, u32),
}

impl JournalHeader {
    /// What differs between this journal's experiment and `other`'s, in words; `None` if they
    /// are the same experiment.
    pub fn difference(&self, other: &JournalHeader) -> Option<String> {
        if self.version != other.version {
            return Some(format!(
                "it was written by packlab {} (this is packlab {})",
                self.version, other.version
            ));
        }
        if self.quick != other.quick {
            return Some(if self.quick {
                "it holds a --quick run".into()
            } else {
                "it holds a full run (this one is --quick)".into()
            });
        }
        if self.fingerprint == other.fingerprint && self.units == other.units {
            return None;
        }
        let mut changed: Vec<&str> = Vec::new();
        for (k, h) in &other.sections {
            match self.sections.iter().find(|(j, _)| j == k) {
                Some((_, g)) if g == h => {}
                _ => changed.push(k),
            }
        }
        for (k, _) in &self.sections {
            if !other.sections.iter().any(|(j, _)| j == k) {
                changed.push(k);
            }
        }
        Some(if self.name != other.name {
            format!("it belongs to experiment \"{}\"", self.name)
        } else if changed.is_empty() {
            "the experiment reads data files that changed since".into()
        } else {
            format!("the experiment file changed in: {}", changed.join(", "))
        })
    }
}

/// Why a journal cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: not a packlab journal (or one cut short in its header)", path.display())]
    NotAJournal { path: PathBuf },
}

/// An open journal, appending.
#[derive(Debug)]
pub struct Journal {
    file: File,
    path: PathBuf,
    last_sync: Instant,
    dirty: bool,
}

/// 64-bit FNV-1a: a small, stable hash (the same on every machine and version).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn record(payload: &[u8]) -> Vec<u8> {
    let mut r = Vec::with_capacity(payload.len() + 8);
    r.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    r.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    r.extend_from_slice(payload);
    r
}

/// Every whole record of `bytes` and the length they cover (a torn tail is left out).
fn records(bytes: &[u8]) -> (Vec<&[u8]>, usize) {
    let mut out = Vec::new();
    let mut at = 0;
    while at + 8 <= bytes.len() {
        let len = u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes")) as usize;
        let crc = u32::from_le_bytes(bytes[at + 4..at + 8].try_into().expect("4 bytes"));
        let Some(payload) = bytes.get(at + 8..at + 8 + len) else {
            break;
        };
        if crc32fast::hash(payload) != crc {
            break;
        }
        out.push(payload);
        at += 8 + len;
    }
    (out, at)
}

/// A unit's record: its index in the plan and its result.
#[derive(Serialize, Deserialize)]
struct UnitRecord<'a> {
    unit: u32,
    #[serde(borrow)]
    result: &'a [u8],
}

/// What a journal holds.
#[derive(Clone, Debug)]
pub struct Contents {
    pub header: JournalHeader,
    /// Each unit's index in the plan and its result's bytes, in the order they finished.
    pub units: Vec<(u32, Vec<u8>)>,
    /// Bytes of whole records (a torn tail after them is dropped when appending).
    pub whole: u64,
}

/// Reads a journal; `None` if there is no file.
pub fn read(path: &Path) -> Result<Option<Contents>, JournalError> {
    let io = |source| JournalError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut bytes = Vec::new();
    match File::open(path) {
        Ok(mut f) => {
            f.read_to_end(&mut bytes).map_err(io)?;
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(e)),
    }
    let (recs, whole) = records(&bytes);
    let not = || JournalError::NotAJournal {
        path: path.to_path_buf(),
    };
    let (first, rest) = recs.split_first().ok_or_else(not)?;
    let header: JournalHeader = postcard::from_bytes(first).map_err(|_| not())?;
    let mut units = Vec::with_capacity(rest.len());
    for r in rest {
        match postcard::from_bytes::<UnitRecord>(r) {
            Ok(u) => units.push((u.unit, u.result.to_vec())),
            Err(_) => break,
        }
    }
    Ok(Some(Contents {
        header,
        units,
        whole: whole as u64,
    }))
}

impl Journal {
    /// Starts a new journal at `path` (replacing any), with `header`.
    pub fn create(path: &Path, header: &JournalHeader) -> Result<Journal, JournalError> {
        let io = |source| JournalError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut file = File::create(path).map_err(io)?;
        let payload = postcard::to_stdvec(header).expect("a header serialises");
        file.write_all(&record(&payload)).map_err(io)?;
        file.sync_data().map_err(io)?;
        Ok(Journal {
            file,
            path: path.to_path_buf(),
            last_sync: Instant::now(),
            dirty: false,
        })
    }

    /// Reopens the journal at `path` for appending after its first `whole` bytes (dropping a
    /// torn tail).
    pub fn append_to(path: &Path, whole: u64) -> Result<Journal, JournalError> {
        let io = |source| JournalError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut file = OpenOptions::new().write(true).open(path).map_err(io)?;
        file.set_len(whole).map_err(io)?;
        file.seek(SeekFrom::End(0)).map_err(io)?;
        Ok(Journal {
            file,
            path: path.to_path_buf(),
            last_sync: Instant::now(),
            dirty: false,
        })
    }

    /// Appends unit `unit`'s result: written through to the operating system at once, synced to
    /// disk if the last sync is older than [`SYNC_EVERY`].
    pub fn append(&mut self, unit: u32, result: &[u8]) -> Result<(), JournalError> {
        let payload = postcard::to_stdvec(&UnitRecord { unit, result }).expect("bytes serialise");
        self.file
            .write_all(&record(&payload))
            .map_err(|source| JournalError::Io {
                path: self.path.clone(),
                source,
            })?;
        self.dirty = true;
        if self.last_sync.elapsed() >= SYNC_EVERY {
            self.sync()?;
        }
        Ok(())
    }

    /// Syncs what was appended to disk.
    pub fn sync(&mut self) -> Result<(), JournalError> {
        if self.dirty {
            self.file.sync_data().map_err(|source| JournalError::Io {
                path: self.path.clone(),
                source,
            })?;
            self.dirty = false;
        }
        self.last_sync = Instant::now();
        Ok(())
    }
}

impl Drop for Journal {
    fn drop(&mut self) {
        let _ = self.sync();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::VERSION;

    fn header() -> JournalHeader {
        JournalHeader {
            version: VERSION.into(),
            name: "t".into(),
            file: "/x/t.toml".into(),
            fingerprint: 7,
            sections: vec![("run".into(), 1), ("sweep".into(), 2)],
            quick: false,
            units: 3,
            shard: (1, 1),
        }
    }

    #[test]
    fn units_survive_and_a_torn_tail_is_dropped() {
        let dir = std::env::temp_dir().join(format!("packlab-journal-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("journal");
        let mut j = Journal::create(&path, &header()).unwrap();
        j.append(0, b"first").unwrap();
        j.append(2, &[0u8, 255, 7]).unwrap();
        drop(j);
        // a record cut short, as by a kill in the middle of a write
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(&[9, 0, 0, 0, 1, 2]).unwrap();
        drop(f);
        let c = read(&path).unwrap().unwrap();
        assert_eq!(c.header, header());
        assert_eq!(c.units, vec![(0, b"first".to_vec()), (2, vec![0, 255, 7])]);
        let mut j = Journal::append_to(&path, c.whole).unwrap();
        j.append(1, b"x").unwrap();
        drop(j);
        let units = read(&path).unwrap().unwrap().units;
        assert_eq!(units.len(), 3);
        assert_eq!(units[2], (1, b"x".to_vec()));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn differences_are_named() {
        let a = header();
        let mut b = header();
        assert_eq!(a.difference(&b), None);
        b.fingerprint = 8;
        b.sections[1].1 = 3;
        assert_eq!(
            a.difference(&b).unwrap(),
            "the experiment file changed in: sweep"
        );
        b.sections[1].1 = 2;
        assert!(a.difference(&b).unwrap().contains("data files"));
        b.version = "0.0.0".into();
        assert!(a.difference(&b).unwrap().contains("packlab 0.0.0"));
    }
}
