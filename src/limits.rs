//! The most work an input may ask for. Every limit is checked while an experiment file and
//! its data are validated, so input beyond one is refused (exit 2) before anything runs,
//! naming the key (or file and line), the limit and the value or estimate;
//! `experiments/README.md` lists them. They are far above anything the
//! shipped experiments use and below what would exhaust a workstation's memory or take years.

/// Replications per sweep point.
pub const MAX_REPLICATIONS: u64 = 1_000_000;
/// Units of work in a plan (runs, limit searches, region cases, packing trials).
pub const MAX_UNITS: u64 = 1_000_000;
/// Expected arrivals per slot at any sweep point: a slot's batch is held in memory at once.
pub const MAX_ARRIVALS_PER_SLOT: f64 = 1e6;
/// Slots of one run (its `max_slots`, or a replayed trace's window).
pub const MAX_SLOTS_PER_RUN: f64 = 1e11;
/// The queue cap: a diverging run holds this many jobs before it is cut off.
pub const MAX_QUEUE_CAP: u64 = 10_000_000;
/// Time-series samples of one run.
pub const MAX_SAMPLES: u64 = 1_000_000;
/// Slots plus expected arrivals over all runs of a queueing file at their longest
/// (`max_slots`): about four CPU-months at 100 ns each.
pub const MAX_EVENTS: f64 = 1e14;
/// Random distributions of a region family.
pub const MAX_FAMILY: u64 = 100_000;
/// Sizes of a region file's discrete distribution solved exactly (the configurations of up to
/// this many sizes are enumerated).
pub const MAX_REGION_TYPES: usize = 256;
/// Tasks of a packing snapshot, after counts are expanded.
pub const MAX_TASKS: u64 = 10_000_000;
/// Machines of a packing snapshot, after counts are expanded, and of a cluster grown by
/// compaction or expansion.
pub const MAX_MACHINES: u64 = 10_000_000;
/// Trials of a packing evaluator.
pub const MAX_TRIALS: u64 = 10_000;
/// Values in a list of a file (sweep points, evaluator parameters).
pub const MAX_LIST: usize = 10_000;
/// Bytes of one line of an input file (an experiment file, a data file, a trace).
pub const MAX_LINE_BYTES: u64 = 1 << 20;
/// Bytes of an input file read whole into memory (an experiment file, a snapshot, a
/// characterisation) or line by line into a table (a sizes file), once decompressed.
pub const MAX_TEXT_BYTES: u64 = 1 << 28;
/// Values of a sizes file (`workload.sizes.file`): 8 bytes each, held by every run in flight.
pub const MAX_FILE_VALUES: u64 = 1 << 25;
/// Bytes of a trace, which is streamed, once decompressed.
pub const MAX_STREAM_BYTES: u64 = 1 << 40;
/// Pairs (constraint set, machine attribute row) of an eligibility table: one byte each.
pub const MAX_ELIGIBILITY: u64 = 50_000_000;
/// Shards of one plan (`--shard I/N`, `packlab slurm --shards N`, the journals `merge` reads).
pub const MAX_SHARDS: u32 = 10_000;
/// Worker threads per available core.
pub const THREADS_PER_CORE: usize = 4;

/// Costs for the time estimate printed before a long run, on the machine its prices were
/// fitted on (two cores, 27 November 2026): an empty slot and a job's arrival, placement and
/// departure, fitted on the shipped files with limit searches (at about twice what `cargo bench
/// --bench policies` measures for a run at load 0.7, since near a limit a job costs more). The
/// estimate multiplies them by this machine's pace against that one, from the best of twelve
/// reference runs of about 10 ms timed before it is printed.
pub const NS_PER_SLOT: f64 = 12.5;
/// See [`NS_PER_SLOT`].
pub const NS_PER_JOB: f64 = 150.0;
/// Cost of scoring one machine for one task in a packing evaluator, for best fit, on the same
/// machine (fitted on the shipped packing files; other scorers cost a multiple of it, and a
/// first-fit tree search about 5.7 machines' worth per level of the tree).
pub const NS_PER_MACHINE_SCORED: f64 = 3.1;

/// A duration in words: "0.4 s", "40 s", "12 min", "3.5 h", "2.1 days".
pub fn duration_words(seconds: f64) -> String {
    if seconds < 10.0 {
        format!("{seconds:.1} s")
    } else if seconds < 120.0 {
        format!("{seconds:.0} s")
    } else if seconds < 7200.0 {
        format!("{:.0} min", seconds / 60.0)
    } else if seconds < 2.0 * 86400.0 {
        format!("{:.1} h", seconds / 3600.0)
    } else {
        format!("{:.1} days", seconds / 86400.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_words() {
        assert_eq!(duration_words(30.0), "30 s");
        assert_eq!(duration_words(600.0), "10 min");
        assert_eq!(duration_words(3.0 * 86400.0), "3.0 days");
    }
}
