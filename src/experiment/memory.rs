//! Memory admitted like time: before any work, the peak memory a plan is expected to hold is
//! estimated from what holds it (the results of finished runs and their time series, the
//! queues of the runs in flight up to their cap on every thread, the laws each run copies) and
//! refused above a limit, naming the key that asks for most of it and the estimate.
//!
//! The limit is [`DEFAULT_LIMIT`] (4 GiB), or `--max-memory`, and never more than what this
//! process can have: its address-space limit (`ulimit -v`), its control group's memory limit
//! and the machine's memory, each less a margin for the process itself. The prices per item
//! are measured peaks (resident set, `/usr/bin/time -f %M`), rounded up; see each constant.

use std::path::Path;

use super::ExperimentError;

/// The default limit on a run's estimated peak memory, bytes: well inside a laptop's.
pub const DEFAULT_LIMIT: u64 = 4 << 30;

/// One thing a plan holds in memory at its peak.
#[derive(Clone, Debug)]
pub(crate) struct Use {
    /// The experiment file's key that sets its size (as written in the file).
    pub(crate) key: &'static str,
    /// What it is, in words, with the numbers behind the estimate.
    pub(crate) what: String,
    /// Bytes.
    pub(crate) bytes: f64,
}

/// The memory the process itself takes besides what a plan holds (code, buffers, thread
/// stacks), bytes, and per worker thread: measured resident 15 MB for a small file; an
/// address-space limit of 100 MB sufficed on eight threads.
const BASE: f64 = 64.0 * 1048576.0;
/// See [`BASE`].
const PER_THREAD: f64 = 8.0 * 1048576.0;

/// The smallest `--max-memory`, GiB: 128 MiB, room for packlab itself ([`own`]) on a few
/// threads and a small plan.
pub const MIN_MEMORY_GIB: f64 = 0.125;

/// The memory the process itself takes on `threads` worker threads, bytes ([`BASE`] and
/// [`PER_THREAD`]).
pub(crate) fn own(threads: usize) -> f64 {
    BASE + PER_THREAD * threads as f64
}

/// A number of bytes in words: "12 KiB", "820 MiB", "3.2 GiB" (rounded up below a GiB).
pub(crate) fn bytes_words(b: f64) -> String {
    const GIB: f64 = 1024.0 * 1048576.0;
    if b >= GIB {
        format!("{:.1} GiB", b / GIB)
    } else if b >= 1048576.0 {
        format!("{:.0} MiB", (b / 1048576.0).ceil())
    } else {
        format!("{:.0} KiB", (b / 1024.0).ceil())
    }
}

/// The first number of bytes on the line of `/proc/self/limits` for the address space, if
/// limited.
fn address_space_limit() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = text.lines().find(|l| l.starts_with("Max address space"))?;
    let soft = line["Max address space".len()..]
        .split_whitespace()
        .next()?;
    soft.parse::<f64>().ok()
}

/// The memory limit of this process's control group (version 2), if any.
fn cgroup_limit() -> Option<f64> {
    let cgroup = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = cgroup.lines().find_map(|l| l.strip_prefix("0::"))?;
    let dir = Path::new("/sys/fs/cgroup").join(path.trim_start_matches('/'));
    let max = std::fs::read_to_string(dir.join("memory.max")).ok()?;
    max.trim().parse::<f64>().ok()
}

/// The machine's memory (`MemTotal`), bytes.
fn machine_memory() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024.0)
}

/// The most a plan may hold, bytes, and why: `asked` (`--max-memory`) or [`DEFAULT_LIMIT`],
/// capped by what this process can have (85 % of each of its limits, less [`BASE`] and
/// [`PER_THREAD`] for the process itself).
pub(crate) fn limit(asked: Option<u64>, threads: usize) -> (f64, String) {
    let own = own(threads);
    let mut best = match asked {
        Some(b) => (b as f64, format!("--max-memory {}", bytes_words(b as f64))),
        None => (
            DEFAULT_LIMIT as f64,
            format!(
                "packlab's default, {} (--max-memory raises it)",
                bytes_words(DEFAULT_LIMIT as f64)
            ),
        ),
    };
    for (cap, why) in [
        (
            address_space_limit(),
            "this process's address-space limit (ulimit -v)",
        ),
        (
            cgroup_limit(),
            "this process's control group's memory limit",
        ),
        (machine_memory(), "this machine's memory"),
    ] {
        if let Some(cap) = cap {
            let room = (0.85 * cap - own).max(0.0);
            if room < best.0 {
                best = (
                    room,
                    format!("85 % of {why}, {}, less packlab's own", bytes_words(cap)),
                );
            }
        }
    }
    best
}

/// Refuses a plan whose estimated peak memory, `uses` plus the process's own on `threads`
/// threads, exceeds the limit (see [`limit`]); returns the estimate, bytes.
pub(crate) fn admit(
    file: &Path,
    uses: &[Use],
    threads: usize,
    asked: Option<u64>,
) -> Result<f64, ExperimentError> {
    let plan: f64 = uses.iter().map(|u| u.bytes).sum::<f64>();
    let total = plan + own(threads);
    let (limit, why) = limit(asked, threads);
    if total <= limit {
        return Ok(total);
    }
    // packlab's own share alone is over the limit: no key of the file is to blame
    let largest = if own(threads) >= limit {
        "--max-memory"
    } else {
        uses.iter()
            .max_by(|a, b| a.bytes.total_cmp(&b.bytes))
            .map_or("run", |u| u.key)
    };
    let mut parts: Vec<String> = uses
        .iter()
        .filter(|u| u.bytes >= 0.01 * total)
        .map(|u| format!("{} for {} ({})", bytes_words(u.bytes), u.what, u.key))
        .collect();
    parts.push(format!(
        "{} for packlab itself on {threads} thread{}",
        bytes_words(own(threads)),
        if threads == 1 { "" } else { "s" }
    ));
    Err(ExperimentError::Invalid {
        file: file.to_path_buf(),
        key: largest.to_string(),
        expected: format!(
            "a plan that fits in {} of memory ({why}); lower the key, or --threads, or raise \
             --max-memory on a machine that has it",
            bytes_words(limit)
        ),
        got: format!(
            "an estimated peak of {} on {threads} thread{}: {}",
            bytes_words(total),
            if threads == 1 { "" } else { "s" },
            parts.join(", ")
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_above_the_limit_is_refused_naming_its_largest_use() {
        let uses = [
            Use {
                key: "run.samples",
                what: "time series".into(),
                bytes: 3e9,
            },
            Use {
                key: "run.queue_cap",
                what: "queues".into(),
                bytes: 1e6,
            },
        ];
        let e = admit(Path::new("x.toml"), &uses, 2, Some(1 << 30)).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("run.samples"), "{text}");
        assert!(text.contains("2.8 GiB for time series"), "{text}");
        assert!(text.contains("1.0 GiB"), "{text}");
        let fine = admit(Path::new("x.toml"), &uses[1..], 2, Some(1 << 30)).unwrap();
        assert!(fine > 1e6 && fine < 1e9, "{fine}");
    }

    #[test]
    fn the_limit_never_exceeds_the_machine() {
        let (l, _) = limit(Some(u64::MAX / 2), 1);
        if let Some(m) = machine_memory() {
            assert!(l <= 0.85 * m, "{l} {m}");
        }
    }
}
