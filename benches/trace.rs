//! Trace reader throughput: `cargo bench --bench trace`. Reads the shipped Alibaba 2017 extract
//! (gzip, 80,553 rows) and the NASA iPSC SWF log, best of 5; prints records per second.
//! Target: over 10^6 tasks per second for the reader alone.
//!
//! Then trace replay through reader + simulator: the whole Alibaba extract (67,003 finished
//! tasks = 10,214,262 jobs) at traffic scaling 1, slot 0.1 s, size max(CPU, memory), on the
//! 4,000 servers of `experiments/fig5_trace_scaling.toml`, best of 3 per policy; prints task
//! records and jobs per second and ns per job.

use std::path::Path;
use std::time::Instant;

use packlab::policy::PolicySpec;
use packlab::sim::{Cluster, RunConfig};
use packlab::workload::replay::{SizeMode, TraceSource, TraceSpec, TraceSummary};
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

    let spec = TraceSpec {
        file: "data/alibaba2017/batch_task_sorted.csv.gz".into(),
        format: TraceFormat::Alibaba2017,
        finished_only: true,
        slot: 0.1,
        size: SizeMode::Max,
        scale: 1.0,
        start: None,
        end: None,
        thin: 1,
    };
    let summary = TraceSummary::read(&spec).expect("the extract validates");
    let servers = 4000;
    let cfg = RunConfig {
        slots: summary.slots(&spec, 1.0, 1),
        warmup: 0,
        queue_cap: u64::MAX,
        samples: 500,
        check_every_slot: false,
        max_slots: 0,
        mean_service: 1.0,
        watch: packlab::sim::Watch::NONE,
        look: packlab::sim::Look::ALWAYS,
    };
    for (name, policy) in [
        ("bf-js", PolicySpec::from_name("bf-js").expect("bf-js")),
        (
            "fifo-ff",
            PolicySpec::from_name("fifo-ff").expect("fifo-ff"),
        ),
        ("vqs-bf (J = 8)", vqs_bf_8()),
    ] {
        let mut best = f64::INFINITY;
        let mut jobs = 0;
        for _ in 0..3 {
            let t = Instant::now();
            let mut src =
                TraceSource::open(&spec, 1.0, summary.first, f64::INFINITY).expect("opens");
            let r = packlab::policy::run(
                policy.build(servers).as_mut(),
                &mut src,
                &mut Cluster::new(servers, summary.service.mean()),
                &cfg,
            )
            .expect("runs");
            jobs = std::hint::black_box(r).arrived;
            best = best.min(t.elapsed().as_secs_f64());
        }
        println!(
            "replay {name:<14} {:>6} tasks {jobs:>9} jobs  {:>7.0} ms  {:>10.0} tasks/s  {:>10.0} jobs/s  {:>6.0} ns/job",
            summary.tasks,
            best * 1e3,
            summary.tasks as f64 / best,
            jobs as f64 / best,
            best * 1e9 / jobs as f64
        );
    }
}

/// VQS-BF over X_8, as an experiment file names it.
fn vqs_bf_8() -> PolicySpec {
    let mut table = toml::Table::new();
    table.insert("J".into(), toml::Value::Integer(8));
    let params = packlab::policy::PolicyParams::new("vqs-bf", &table);
    let sizes = packlab::workload::SizeLaw::Empirical { values: vec![] };
    packlab::policy::registry::Registry::builtin()
        .parse(&params, &sizes)
        .expect("vqs-bf with J = 8")
}
