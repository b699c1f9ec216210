//! The run journal: every finished unit of work of an experiment, appended as it finishes, so
//! that an interrupted run resumes where it stopped and shards on several machines can be
//! merged.
//!
//! A journal is a file of records, each `[length: u32][crc32: u32][payload]` (little-endian;
//! payloads in the `postcard` format, which keeps every `f64` bit for bit). The first record is
//! the [`JournalHeader`]: packlab's version, the experiment's name and fingerprint (a hash of
//! the validated experiment), a hash per top-level table of its file (to say what changed), the
//! number of units of its plan and the shard the journal belongs to. Every other record is one
//! unit (its index in the plan and its result) or one step of a unit still running (its index
//! with [`STEP`] set, then the step's key and value; see [`super::steps`]): a limit search
//! journals each of its runs, so an interrupted search keeps them.
//!
//! Each record is written with one `write` and flushed to the operating system at once, so a
//! killed process (even by SIGKILL) loses at most the units still running; a background thread
//! syncs the file to disk every [`SYNC_EVERY`] while records arrive, and the journal is synced
//! when the run ends, so a machine crash loses at most that much more (and no worker waits on
//! the disk). A record cut short by a kill or a full disk fails its length or checksum
//! check when the journal is read again and is dropped (with everything after it).

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// How often the journal is synced to disk while units keep finishing.
pub(crate) const SYNC_EVERY: Duration = Duration::from_millis(200);

/// Set in a record's unit index when the record is one step of the unit, not its result.
pub(crate) const STEP: u32 = 1 << 31;

/// What a journal belongs to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct JournalHeader {
    /// packlab's version.
    pub(crate) version: String,
    /// The experiment's name.
    pub(crate) name: String,
    /// The experiment file, as an absolute path (for `packlab merge`).
    pub(crate) file: PathBuf,
    /// The experiment file as it was given (written into `experiment.toml`).
    pub(crate) given: PathBuf,
    /// A hash of the validated experiment (its laws, data, plan; not the path of its file).
    pub(crate) fingerprint: u64,
    /// A hash of each top-level table or key of the file, by name.
    pub(crate) sections: Vec<(String, u64)>,
    /// Whether the plan is the `--quick` one.
    pub(crate) quick: bool,
    /// Units in the whole plan.
    pub(crate) units: u32,
    /// (I, N) for shard I of N, (1, 1) for a whole run.
    pub(crate) shard: (u32, u32),
    /// The results version of the build that wrote it ([`RESULTS`]).
    pub(crate) results: u32,
    /// Per unit of the whole plan, its identity, a hash of everything its result depends on:
    /// after an edit of the file, each unit of the new plan takes the result of a unit of the
    /// same identity, wherever it stood.
    pub(crate) unit_fingerprints: Vec<u64>,
}

/// The results version: a build whose units give other results than the build before for
/// the same unit (a changed policy, law, sampler, verdict, or record format) bumps it, so
/// that no journal of the build before is resumed as if its units were this build's. The
/// rule: any change that alters a committed output, or what a journal record holds, bumps
/// it in the same commit, with a line of `figures/RESULTS` (a test fails on a change of the
/// committed outputs without one).
///
/// 1: the first versioned journals. 2: a run's NUMA tallies also carry the CPU of its
/// NUMA-fit jobs (one more counter in every NUMA record). 3: a sweep run's record holds its
/// jobs' waiting and response times ([`crate::sim::Waits`]). 4: a limit search passes over a
/// gap next to an end that the longest horizon failed on both sides of, and its result says why
/// it ended. 5: ρ* of a uniform law that packs servers perfectly is 1 (a region file's regions
/// unit gains a ρ* row and exact ratios; a sweep in fractions of ρ* on such a law moves). 6: a
/// limit search's probe the majority leaves undecided may be decided by the pooled test of its
/// inconclusive runs, whose statistics each run's record now carries. 7: a probe's first round
/// of 4 or more runs runs a majority of them first and stops there when they all agree. 8: it
/// stops there too when those runs all ended inconclusive and the rest of the round is not
/// expected to let the pooled test decide (a probe records it). 9: a probe's run whose chain of
/// looks is shorter than the calibrated five takes one more, at half its first horizon. 10: a
/// unit's identity is the fingerprint of what it computes (its scenario, its search), and a
/// resumed result goes to the unit of the same identity wherever it stands. 11: jobs carry
/// their class, a cluster may preempt, and the multiserver-job policies and their outputs
/// (`msj_two_classes`, `msj_fcfs_frechet`) are committed. 12: a region map of two job
/// classes (`msj_region_map`) is committed. 13: a region map's legend counts K_RED's
/// boundary inside a policy's intervals for VQS only (the maps' figures). 14: a
/// `region-boundary` claim (ServerFilling at the capacity in `msj_region_map`). 15: a
/// quantile of a delay is that of the replications pooled, with an interval inverted from
/// their distribution functions (every `summary.csv` with delays, its report and figures).
/// 16: the tutorial's three files (`experiments/tutorial/`) and three limit searches where the
/// limit is known exactly (`limit_exact_*`) are committed. 17: a limit search's round of runs
/// looks together and stops at the first look whose look test decides its probe (every search's
/// outputs, the calibration files' `probe_groups.csv`). 18: a round also stops at the first
/// look where its probe has seen a stable and an unstable run (a search's slots, where a round
/// went on after that). 19: a limit search on one scalar size law runs a pilot above ρ* first,
/// and its first probes go where the pilot's and the upper end's sustained loads say
/// (`thresholds.csv` gains `pilot_sustained`).
pub(crate) const RESULTS: u32 = 19;

impl JournalHeader {
    /// What differs between this journal's experiment and `other`'s, in words; `None` if they
    /// are the same experiment.
    pub(crate) fn difference(&self, other: &JournalHeader) -> Option<String> {
        if let Some(why) = self.refusal(other) {
            return Some(why);
        }
        if self.fingerprint == other.fingerprint && self.units == other.units {
            return None;
        }
        Some(self.changes(other))
    }

    /// Why this journal cannot give `other` any unit: another packlab version or results
    /// version, the other plan (`--quick` or not), another experiment's name.
    pub(crate) fn refusal(&self, other: &JournalHeader) -> Option<String> {
        if self.results != other.results {
            return Some(format!(
                "it was written by a build whose results differ (results version {}, this \
                 build's {})",
                self.results, other.results
            ));
        }
        if self.name != other.name {
            return Some(format!("it belongs to experiment \"{}\"", self.name));
        }
        self.version_or_plan(other)
    }

    /// The version and plan part of [`JournalHeader::refusal`].
    fn version_or_plan(&self, other: &JournalHeader) -> Option<String> {
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
        None
    }

    /// What changed in the file between this journal's experiment and `other`'s, in words.
    pub(crate) fn changes(&self, other: &JournalHeader) -> String {
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
        if changed.is_empty() {
            "the experiment reads data files that changed since".into()
        } else {
            format!("the experiment file changed in: {}", changed.join(", "))
        }
    }
}

/// Why a journal cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// It could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The journal.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// It is not a journal packlab wrote, or one cut short or damaged in its header.
    #[error(
        "{}: not a packlab journal ({why}); run with --fresh to start over (the journal is \
         replaced; the folder's outputs stay until the new run writes its own)",
        path.display()
    )]
    NotAJournal {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// A journal of an earlier packlab, whose format this one does not read.
    #[error(
        "{}: a journal of experiment \"{name}\" written by an earlier packlab, in a format this \
         one does not read; run with --fresh to start over",
        path.display()
    )]
    OldFormat {
        /// The file.
        path: PathBuf,
        /// The experiment it belongs to.
        name: String,
    },
}

/// An open journal, appending.
#[derive(Debug)]
pub(crate) struct Journal {
    file: File,
    path: PathBuf,
    syncer: Syncer,
}

/// The thread that syncs a journal's file to disk every [`SYNC_EVERY`] if anything was
/// appended since the last sync.
#[derive(Debug)]
struct Syncer {
    shared: Arc<SyncState>,
    thread: Option<JoinHandle<()>>,
}

#[derive(Debug, Default)]
struct SyncState {
    /// Appended since the last sync.
    dirty: AtomicBool,
    /// Set to stop the thread.
    stop: Mutex<bool>,
    wake: Condvar,
    /// The first failed sync, reported by the next append or sync.
    failed: Mutex<Option<std::io::Error>>,
}

impl Syncer {
    fn start(file: &File) -> std::io::Result<Syncer> {
        let file = file.try_clone()?;
        let shared = Arc::new(SyncState::default());
        let state = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("journal-sync".into())
            .spawn(move || {
                let Ok(mut stop) = state.stop.lock() else {
                    return;
                };
                while !*stop {
                    stop = match state.wake.wait_timeout(stop, SYNC_EVERY) {
                        Ok((g, _)) => g,
                        Err(_) => return,
                    };
                    if state.dirty.swap(false, Ordering::AcqRel)
                        && let Err(e) = file.sync_data()
                    {
                        if let Ok(mut f) = state.failed.lock() {
                            *f = Some(e);
                        }
                        return;
                    }
                }
            })?;
        Ok(Syncer {
            shared,
            thread: Some(thread),
        })
    }

    fn failure(&self) -> Option<std::io::Error> {
        self.shared.failed.lock().ok().and_then(|mut f| f.take())
    }

    fn stop(&mut self) {
        if let Some(t) = self.thread.take() {
            if let Ok(mut s) = self.shared.stop.lock() {
                *s = true;
            }
            self.shared.wake.notify_all();
            let _ = t.join();
        }
    }
}

/// 64-bit FNV-1a: a small, stable hash (the same on every machine and version).
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h = Fnv1a::new();
    h.add(bytes);
    h.0
}

/// FNV-1a over a stream of bytes, as a writer: hashes a value serialised into it without
/// holding the serialisation.
struct Fnv1a(u64);

impl Fnv1a {
    /// The hash of no bytes (FNV-1a's offset basis).
    fn new() -> Self {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }

    /// Hashes `bytes` in.
    fn add(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

impl std::io::Write for Fnv1a {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.add(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The fingerprint of `value`: FNV-1a of its canonical serialisation (postcard: fields in
/// declaration order, integers as varints, floats by their bits), streamed, so that time is
/// linear in the value and memory constant.
pub(crate) fn fingerprint<T: Serialize + ?Sized>(value: &T) -> u64 {
    let mut h = Fnv1a::new();
    postcard::to_io(value, &mut h).expect("hashing cannot fail");
    h.0
}

fn record(payload: &[u8]) -> Vec<u8> {
    let mut r = Vec::with_capacity(payload.len() + 8);
    r.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    r.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    r.extend_from_slice(payload);
    r
}

/// The longest header a journal may have, bytes: its per-unit fingerprints (8 bytes for each
/// of at most [`crate::limits::MAX_UNITS`] units) and its file's table names, with room.
const MAX_HEADER: u64 = 64 << 20;

/// One step of a unit as journaled: the unit's index in the plan, the step's key and value.
pub(crate) type Step = (u32, Vec<u8>, Vec<u8>);

/// A record after the header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Record {
    /// A finished unit: its index in the plan and its result's bytes.
    Unit(u32, Vec<u8>),
    /// A finished step of a unit.
    Step(Step),
}

/// A journal read record by record, each as it comes: reading one never holds more than that
/// record, whatever the file's size (a record's length is checked against the bytes the file
/// has left before anything is allocated for it).
pub(crate) struct Reader {
    file: std::io::BufReader<File>,
    /// Bytes of the file not read yet.
    left: u64,
    /// Bytes of whole records read so far (a torn tail after them is dropped when appending).
    whole: u64,
}

impl Reader {
    /// The next whole record's payload, if its length fits in `max` bytes and in what the file
    /// has left, and its checksum holds; `None` at the end or at a torn or damaged record
    /// (the rest of the file is not read).
    fn payload(&mut self, max: u64) -> Option<Vec<u8>> {
        let mut head = [0u8; 8];
        if self.left < 8 || self.file.read_exact(&mut head).is_err() {
            return None;
        }
        let len = u32::from_le_bytes(head[..4].try_into().expect("4 bytes")) as u64;
        let crc = u32::from_le_bytes(head[4..].try_into().expect("4 bytes"));
        if len > max || len > self.left - 8 {
            return None;
        }
        let mut payload = vec![0u8; len as usize];
        if self.file.read_exact(&mut payload).is_err() || crc32fast::hash(&payload) != crc {
            return None;
        }
        self.left -= 8 + len;
        self.whole += 8 + len;
        Some(payload)
    }

    /// The next record; `None` at the end of the whole records.
    pub(crate) fn next_record(&mut self) -> Option<Record> {
        loop {
            let payload = self.payload(u32::MAX as u64)?;
            // a unit's payload: its index (u32, little-endian), then its result; a step's: its
            // unit's index with STEP set, then its key and value
            let (index, result) = payload.split_first_chunk::<4>()?;
            let index = u32::from_le_bytes(*index);
            if index & STEP == 0 {
                return Some(Record::Unit(index, result.to_vec()));
            }
            if let Ok((key, value)) = postcard::from_bytes::<(&[u8], &[u8])>(result) {
                return Some(Record::Step((index & !STEP, key.to_vec(), value.to_vec())));
            }
            // a step that does not decode is skipped, as a unit that does not decode is
        }
    }

    /// Bytes of whole records read so far.
    pub(crate) fn whole(&self) -> u64 {
        self.whole
    }
}

/// Opens a journal and reads its header; `None` if there is no file. The records after it are
/// read one at a time from the [`Reader`].
pub(crate) fn open(path: &Path) -> Result<Option<(JournalHeader, Reader)>, JournalError> {
    let io = |source| JournalError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = match crate::fsafe::open_nofollow(path, OpenOptions::new().read(true)) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(e)),
    };
    let left = file.metadata().map_err(io)?.len();
    let mut reader = Reader {
        file: std::io::BufReader::new(file),
        left,
        whole: 0,
    };
    let not = |why: &str| JournalError::NotAJournal {
        path: path.to_path_buf(),
        why: why.to_string(),
    };
    let first = reader.payload(MAX_HEADER).ok_or_else(|| {
        not(if left < 8 {
            "it is shorter than a header"
        } else {
            "its header is cut short or damaged"
        })
    })?;
    let header: JournalHeader = postcard::from_bytes(&first).map_err(|_| {
        // a header of an earlier format still starts with packlab's version
        match postcard::from_bytes::<(String, String)>(&first) {
            Ok((version, name)) if !version.is_empty() && version.len() < 40 => {
                JournalError::OldFormat {
                    path: path.to_path_buf(),
                    name,
                }
            }
            _ => not("its first record is not a journal's header"),
        }
    })?;
    Ok(Some((header, reader)))
}

/// Reads only a journal's header; `None` if there is no file.
pub(crate) fn header(path: &Path) -> Result<Option<JournalHeader>, JournalError> {
    Ok(open(path)?.map(|(h, _)| h))
}

impl Journal {
    /// Starts a new journal at `path` (replacing any), with `header`.
    pub(crate) fn create(path: &Path, header: &JournalHeader) -> Result<Journal, JournalError> {
        let io = |source| JournalError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut file = crate::fsafe::open_nofollow(
            path,
            OpenOptions::new().write(true).create(true).truncate(true),
        )
        .map_err(io)?;
        let payload = postcard::to_stdvec(header).expect("a header serialises");
        file.write_all(&record(&payload)).map_err(io)?;
        file.sync_data().map_err(io)?;
        Ok(Journal {
            syncer: Syncer::start(&file).map_err(io)?,
            file,
            path: path.to_path_buf(),
        })
    }

    /// Reopens the journal at `path` for appending after its first `whole` bytes (dropping a
    /// torn tail).
    pub(crate) fn append_to(path: &Path, whole: u64) -> Result<Journal, JournalError> {
        let io = |source| JournalError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut file =
            crate::fsafe::open_nofollow(path, OpenOptions::new().write(true)).map_err(io)?;
        file.set_len(whole).map_err(io)?;
        file.seek(SeekFrom::End(0)).map_err(io)?;
        Ok(Journal {
            syncer: Syncer::start(&file).map_err(io)?,
            file,
            path: path.to_path_buf(),
        })
    }

    /// The record of unit `unit` with result `result` (built outside the journal's lock).
    pub(crate) fn encode<T: Serialize>(unit: u32, result: &T) -> Vec<u8> {
        let mut r = vec![0u8; 8];
        r.extend_from_slice(&unit.to_le_bytes());
        let mut r = postcard::to_extend(result, r).expect("results serialise");
        let len = (r.len() - 8) as u32;
        let crc = crc32fast::hash(&r[8..]);
        r[..4].copy_from_slice(&len.to_le_bytes());
        r[4..8].copy_from_slice(&crc.to_le_bytes());
        r
    }

    /// Appends unit `unit`'s result (raw bytes, as [`Journal::encode`] would).
    #[cfg(test)]
    pub(crate) fn append(&mut self, unit: u32, result: &[u8]) -> Result<(), JournalError> {
        let mut payload = unit.to_le_bytes().to_vec();
        payload.extend_from_slice(result);
        self.append_record(&record(&payload))
    }

    /// Appends step `key` of unit `unit` with value `value` (serialised).
    pub(crate) fn append_step(
        &mut self,
        unit: u32,
        key: &[u8],
        value: &[u8],
    ) -> Result<(), JournalError> {
        let payload = postcard::to_extend(&(key, value), (unit | STEP).to_le_bytes().to_vec())
            .expect("a step serialises");
        self.append_record(&record(&payload))
    }

    /// Appends an encoded record: written through to the operating system at once (synced to
    /// disk by the background thread within [`SYNC_EVERY`]).
    pub(crate) fn append_record(&mut self, record: &[u8]) -> Result<(), JournalError> {
        let io = |source| JournalError::Io {
            path: self.path.clone(),
            source,
        };
        if let Some(e) = self.syncer.failure() {
            return Err(io(e));
        }
        self.file.write_all(record).map_err(io)?;
        self.syncer.shared.dirty.store(true, Ordering::Release);
        Ok(())
    }

    /// Syncs what was appended to disk, now.
    pub(crate) fn sync(&mut self) -> Result<(), JournalError> {
        let io = |source| JournalError::Io {
            path: self.path.clone(),
            source,
        };
        if let Some(e) = self.syncer.failure() {
            return Err(io(e));
        }
        self.syncer.shared.dirty.store(false, Ordering::Release);
        self.file.sync_data().map_err(io)
    }
}

impl Drop for Journal {
    fn drop(&mut self) {
        self.syncer.stop();
        let _ = self.file.sync_data();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::VERSION;

    #[test]
    fn fnv1a_gives_the_published_values_whole_or_streamed() {
        // the reference values of 64-bit FNV-1a
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
        let mut h = Fnv1a::new();
        std::io::Write::write_all(&mut h, b"foo").unwrap();
        std::io::Write::write_all(&mut h, b"bar").unwrap();
        assert_eq!(h.0, fnv1a(b"foobar"));
    }

    fn header() -> JournalHeader {
        JournalHeader {
            version: VERSION.into(),
            name: "t".into(),
            file: "/x/t.toml".into(),
            given: "t.toml".into(),
            fingerprint: 7,
            sections: vec![("run".into(), 1), ("sweep".into(), 2)],
            quick: false,
            units: 3,
            shard: (1, 1),
            results: RESULTS,
            unit_fingerprints: vec![1, 2, 3],
        }
    }

    /// Every record of the journal at `path`: its header, its units, its steps and the bytes
    /// of its whole records.
    type Units = Vec<(u32, Vec<u8>)>;

    fn read_all(path: &Path) -> (JournalHeader, Units, Vec<Step>, u64) {
        let (header, mut reader) = open(path).unwrap().unwrap();
        let (mut units, mut steps) = (Vec::new(), Vec::new());
        while let Some(r) = reader.next_record() {
            match r {
                Record::Unit(u, b) => units.push((u, b)),
                Record::Step(s) => steps.push(s),
            }
        }
        (header, units, steps, reader.whole())
    }

    #[test]
    fn units_survive_and_a_torn_tail_is_dropped() {
        let dir = std::env::temp_dir().join(format!("packlab-journal-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("journal");
        let mut j = Journal::create(&path, &header()).unwrap();
        j.append(0, b"first").unwrap();
        j.append(2, &[0u8, 255, 7]).unwrap();
        // an encoded result reads back as its serialised bytes
        j.append_record(&Journal::encode(5, &(1u8, 2.5f64)))
            .unwrap();
        drop(j);
        // a record cut short, as by a kill in the middle of a write
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(&[9, 0, 0, 0, 1, 2]).unwrap();
        drop(f);
        let (h, units, steps, whole) = read_all(&path);
        assert_eq!(h, header());
        assert_eq!(units[..2], [(0, b"first".to_vec()), (2, vec![0, 255, 7])]);
        assert_eq!(units[2].0, 5);
        assert_eq!(
            postcard::from_bytes::<(u8, f64)>(&units[2].1).unwrap(),
            (1, 2.5)
        );
        assert!(steps.is_empty());
        let mut j = Journal::append_to(&path, whole).unwrap();
        j.append(1, b"x").unwrap();
        j.append_step(4, b"key", b"value").unwrap();
        drop(j);
        let (_, units, steps, _) = read_all(&path);
        assert_eq!(units.len(), 4);
        assert_eq!(units[3], (1, b"x".to_vec()));
        // a step is not a unit's result
        assert_eq!(steps, [(4, b"key".to_vec(), b"value".to_vec())]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_journal_is_read_a_record_at_a_time_whatever_its_lengths_claim() {
        let dir = std::env::temp_dir().join(format!("packlab-journal-len-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("journal");
        // zeros: a header of length 0 (whose checksum is 0) that is no header
        std::fs::write(&path, vec![0u8; 4096]).unwrap();
        let e = open(&path).err().unwrap().to_string();
        assert!(
            e.contains("not a packlab journal") && e.contains("--fresh"),
            "{e}"
        );
        // cut inside its header
        let mut j = Journal::create(&path, &header()).unwrap();
        j.append(0, b"first").unwrap();
        drop(j);
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..20]).unwrap();
        let e = open(&path).err().unwrap().to_string();
        assert!(e.contains("cut short") && e.contains("--fresh"), "{e}");
        // a record claiming 4 GiB at the end of a small file: the end of the records, nothing
        // allocated for it
        let mut forged = bytes.clone();
        forged.extend_from_slice(&u32::MAX.to_le_bytes());
        forged.extend_from_slice(&[0u8; 12]);
        std::fs::write(&path, &forged).unwrap();
        let (_, units, _, whole) = read_all(&path);
        assert_eq!(units, [(0, b"first".to_vec())]);
        assert_eq!(whole, bytes.len() as u64);
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
