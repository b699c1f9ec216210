//! `[[plot]]`: the figures to draw.

use super::schema::{RawExperiment, RawPlot};
use super::sweep::Finder;
use super::{DelayQuantity, PlotSpec, Statistic};
use crate::experiment::ExperimentError;
use crate::experiment::common::kinds::{self, Kind};

/// One plot table's context: its index, the table, its file name, the file's replications
/// and whether it has `[compaction]` and `[constraints]`.
pub(crate) struct PlotCx<'a> {
    at: &'a Finder<'a>,
    i: usize,
    p: &'a RawPlot,
    file: String,
    replications: u32,
    compaction: bool,
    constraints: bool,
}

/// A plot kind's validator.
type Parse = fn(PlotCx<'_>) -> Result<PlotSpec, ExperimentError>;

/// The keys naming a sweep point.
const POINT: [&str; 4] = ["load", "arrival_rate", "fraction", "scaling"];

/// Every kind of `[[plot]]` of a queueing file: its name, its keys, one line of help and its
/// validator. `--help` lists them and `experiments/README.md` documents each (a test checks).
pub(crate) const PLOT_KINDS: &[Kind<Parse>] = &[
    Kind {
        name: "mean-queue-vs-load",
        keys: &["title", "file", "log_y"],
        help: "mean queue with 95 % intervals against the sweep, a curve per policy",
        parse: mean_queue_vs_load,
    },
    Kind {
        name: "queue-vs-time",
        keys: &[
            "title",
            "file",
            "log_y",
            POINT[0],
            POINT[1],
            POINT[2],
            POINT[3],
            "replication",
        ],
        help: "Q(t) of one run per policy at a point",
        parse: queue_vs_time,
    },
    Kind {
        name: "wait-ccdf",
        keys: &[
            "title", "file", POINT[0], POINT[1], POINT[2], POINT[3], "quantity",
        ],
        help: "P(X > t) of the waiting or response time at a point, a curve per policy",
        parse: wait_ccdf,
    },
    Kind {
        name: "wait-quantile-vs-load",
        keys: &["title", "file", "log_y", "quantile", "quantity"],
        help: "a statistic of the waiting or response time against the sweep",
        parse: wait_quantile_vs_load,
    },
    Kind {
        name: "wait-by-size",
        keys: &[
            "title", "file", "log_y", POINT[0], POINT[1], POINT[2], POINT[3], "quantity",
        ],
        help: "the mean and p99 wait against job size at a point",
        parse: wait_by_size,
    },
    Kind {
        name: "limit-vs-compaction",
        keys: &["title", "file"],
        help: "with [compaction]: each scored policy's limit against its compacted size",
        parse: limit_vs_compaction,
    },
    Kind {
        name: "constraint-delay",
        keys: &[
            "title", "file", "log_y", POINT[0], POINT[1], POINT[2], POINT[3],
        ],
        help: "with [constraints]: each constraint's delay against its u*_c",
        parse: constraint_delay,
    },
];

impl RawPlot {
    /// Each key of a plot table and whether this one has it.
    fn given(&self) -> [(&'static str, bool); 11] {
        [
            ("kind", true),
            ("load", self.load.is_some()),
            ("arrival_rate", self.arrival_rate.is_some()),
            ("replication", self.replication.is_some()),
            ("title", self.title.is_some()),
            ("file", self.file.is_some()),
            ("log_y", self.log_y.is_some()),
            ("fraction", self.fraction.is_some()),
            ("scaling", self.scaling.is_some()),
            ("quantity", self.quantity.is_some()),
            ("quantile", self.quantile.is_some()),
        ]
    }
}

/// Validates every `[[plot]]`: its kind one of [`PLOT_KINDS`], its keys those the kind takes,
/// its file name its own.
pub(in crate::experiment::queueing) fn plots(
    at: &Finder<'_>,
    raw: &RawExperiment,
    replications: u32,
) -> Result<Vec<PlotSpec>, ExperimentError> {
    let mut plots = Vec::new();
    for (i, p) in raw.plot.iter().enumerate() {
        let kind = kinds::find(
            at.cx,
            PLOT_KINDS,
            ("plot", &format!("plot[{i}].kind")),
            &p.kind,
        )?;
        kinds::keys_taken(at.cx, (PLOT_KINDS, kind), "plot", &p.given(), |k| {
            format!("plot[{i}].{k}")
        })?;
        let file = p.file.clone().unwrap_or_else(|| {
            if raw.plot.len() == 1 {
                p.kind.clone()
            } else {
                format!("{}-{i}", p.kind)
            }
        });
        if plots.iter().any(|q: &PlotSpec| q.file() == file) {
            return Err(at.cx.bad(
                &format!("plot[{i}].file"),
                "a file name no other plot of this file uses (each plot writes FILE.png and FILE.svg)",
                &file,
            ));
        }
        at.cx.figure_name(&format!("plot[{i}].file"), &file)?;
        plots.push((kind.parse)(PlotCx {
            at,
            i,
            p,
            file,
            replications,
            compaction: raw.compaction.is_some(),
            constraints: raw.constraints.is_some(),
        })?);
    }
    Ok(plots)
}

impl PlotCx<'_> {
    /// The sweep point the plot names (default: the last).
    fn point(&self) -> Result<usize, ExperimentError> {
        let p = self.p;
        match [p.load, p.arrival_rate, p.fraction, p.scaling] {
            [None, None, None, None] => Ok(self.at.points.len() - 1),
            named => self.at.find(&format!("plot[{}]", self.i), named),
        }
    }

    /// Its `quantity` (default the wait).
    fn quantity(&self) -> Result<DelayQuantity, ExperimentError> {
        DelayQuantity::parse(
            self.at.cx,
            &format!("plot[{}].quantity", self.i),
            self.p.quantity.as_deref(),
        )
    }

    /// Refuses the plot without the table `table` its kind needs.
    fn needs(&self, present: bool, table: &str) -> Result<(), ExperimentError> {
        if present {
            return Ok(());
        }
        Err(self.at.cx.bad(
            &format!("plot[{}].kind", self.i),
            &format!("a [{table}] table for \"{}\"", self.p.kind),
            "none",
        ))
    }
}

fn mean_queue_vs_load(c: PlotCx<'_>) -> Result<PlotSpec, ExperimentError> {
    Ok(PlotSpec::MeanQueueVsLoad {
        title: c.p.title.clone(),
        log_y: c.p.log_y.unwrap_or(false),
        file: c.file,
    })
}

fn queue_vs_time(c: PlotCx<'_>) -> Result<PlotSpec, ExperimentError> {
    let point = c.point()?;
    let replications = c.replications;
    let replication = match c.p.replication {
        None => 0,
        Some(r) if r >= 0 && (r as u64) < replications as u64 => r as u32,
        Some(r) => {
            return Err(c.at.cx.bad(
                &format!("plot[{}].replication", c.i),
                &format!("an index in [0, run.replications = {replications})"),
                r,
            ));
        }
    };
    Ok(PlotSpec::QueueVsTime {
        point,
        replication,
        title: c.p.title.clone(),
        log_y: c.p.log_y,
        file: c.file,
    })
}

fn limit_vs_compaction(c: PlotCx<'_>) -> Result<PlotSpec, ExperimentError> {
    c.needs(c.compaction, "compaction")?;
    Ok(PlotSpec::LimitVsCompaction {
        title: c.p.title.clone(),
        file: c.file,
    })
}

fn constraint_delay(c: PlotCx<'_>) -> Result<PlotSpec, ExperimentError> {
    c.needs(c.constraints, "constraints")?;
    Ok(PlotSpec::ConstraintDelay {
        point: c.point()?,
        title: c.p.title.clone(),
        log_y: c.p.log_y,
        file: c.file,
    })
}

fn wait_ccdf(c: PlotCx<'_>) -> Result<PlotSpec, ExperimentError> {
    Ok(PlotSpec::WaitCcdf {
        point: c.point()?,
        quantity: c.quantity()?,
        title: c.p.title.clone(),
        file: c.file,
    })
}

fn wait_by_size(c: PlotCx<'_>) -> Result<PlotSpec, ExperimentError> {
    if c.quantity()? != DelayQuantity::Wait {
        return Err(c.at.cx.bad(
            &format!("plot[{}].quantity", c.i),
            "\"wait\" for this kind (by size packlab keeps each class's waiting times and only the mean of its response times, in waits_by_size.csv)",
            "\"response\"",
        ));
    }
    Ok(PlotSpec::WaitBySize {
        point: c.point()?,
        title: c.p.title.clone(),
        log_y: c.p.log_y,
        file: c.file,
    })
}

fn wait_quantile_vs_load(c: PlotCx<'_>) -> Result<PlotSpec, ExperimentError> {
    Ok(PlotSpec::WaitQuantileVsLoad {
        statistic: Statistic::parse(
            c.at.cx,
            &format!("plot[{}].quantile", c.i),
            c.p.quantile.as_deref(),
            Statistic::Quantile(2),
        )?,
        quantity: c.quantity()?,
        title: c.p.title.clone(),
        log_y: c.p.log_y,
        file: c.file,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every plot kind is named in the experiment reference's `[[plot]]` table, and every key
    /// a kind takes is a row of it.
    #[test]
    fn every_plot_kind_and_key_is_in_the_reference() {
        let reference = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/experiments/README.md"
        ))
        .unwrap();
        let start = reference.find("### `[[plot]]`").unwrap();
        let end = start + reference[start..].find("### `[[claim]]`").unwrap();
        let table = &reference[start..end];
        for kind in PLOT_KINDS {
            assert!(
                table.contains(&format!("`\"{}\"`", kind.name)),
                "experiments/README.md: the [[plot]] table does not name kind \"{}\"",
                kind.name
            );
            for key in kind.keys {
                assert!(
                    table.contains(&format!("`{key}`")),
                    "experiments/README.md: the [[plot]] table has no row for `{key}`"
                );
            }
        }
    }
}
