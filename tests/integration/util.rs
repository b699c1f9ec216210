//! What the command-line tests share: the binary, fresh folders and files.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The packlab binary, without colour.
pub fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_packlab"));
    c.env("NO_COLOR", "1");
    c
}

/// Runs packlab with `args` to the end.
pub fn packlab(args: &[&str]) -> Output {
    bin().args(args).output().expect("the binary runs")
}

/// A fresh, empty folder for test `topic`/`name` of this process.
pub fn tmp(topic: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("packlab-{topic}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Writes `contents` to `dir/name`; returns the path.
pub fn write(dir: &Path, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
    let f = dir.join(name);
    std::fs::write(&f, contents).unwrap();
    f
}

/// A run of `slots` slots (a tenth of warm-up), with the invariants checked after every slot
/// when `check`.
pub fn run_cfg(slots: u64, check: bool) -> packlab::sim::RunConfig {
    packlab::sim::RunConfig {
        slots,
        warmup: slots / 10,
        queue_cap: 1_000_000,
        samples: 200,
        check_every_slot: check,
        max_slots: 0,
        mean_service: 1.0,
        watch: packlab::sim::Watch::NONE,
        look: packlab::sim::Look::ALWAYS,
    }
}
