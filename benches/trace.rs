//! Trace reader throughput: `cargo bench --bench trace`. Reads the shipped Alibaba 2017 extract
//! (gzip, 80,553 rows) and the NASA iPSC SWF log, best of 5; prints records per second.
//! Issue 6 target: over 10^6 tasks per second for the reader alone.

use std::path::Path;
use std::time::Instant;

use packlab::workload::trace::{TraceFormat, TraceReader};

fn main() {
    for (name, path, format) in [
        (
            "alibaba2017 (gz)",
            "data/alibaba2017/batch_task_sorted.csv.gz",
            TraceFormat::Alibaba2017,
        ),
        (
            "nasa swf (gz)",
            "data/pwa/NASA-iPSC-1993-3.1-cln.swf.gz",
            TraceFormat::Swf,
        ),
    ] {
        let mut best = f64::INFINITY;
        let mut n = 0;
        for _ in 0..5 {
            let t = Instant::now();
            n = 0;
            for r in TraceReader::open(Path::new(path), format, false).expect("opens") {
                let task = r.expect("valid");
                n += std::hint::black_box(task).instances.min(1) as usize;
            }
            best = best.min(t.elapsed().as_secs_f64());
        }
        println!(
            "{name:<20} {n:>8} tasks  {:>8.1} ms  {:>12.0} tasks/s",
            best * 1e3,
            n as f64 / best
        );
    }
}
