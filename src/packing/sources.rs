//! Snapshot sources: OR-Library bin-packing files (identical one-dimensional machines = bins)
//! and the real Google 2011 task snapshot on the machine mix of Reiss et al. (see
//! `data/README.md` for formats and citations). Errors name the file and line.

use std::path::Path;

use super::snapshot::{Placement, Resources, Snapshot, Task, amount};
use crate::constraints::{Eligibility, Properties, parse_set};
use crate::limits::{MAX_MACHINES, MAX_TASKS};
use crate::model::Size;

/// A malformed source file.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// The file could not be read.
    #[error("{file}: {source}")]
    Io {
        /// The file.
        file: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// A malformed line.
    #[error("{file}:{line}: {what}")]
    Format {
        /// The file.
        file: String,
        /// The line, from 1.
        line: usize,
        /// What is wrong with it.
        what: String,
    },
}

fn read_text(path: &Path) -> Result<String, SourceError> {
    crate::input::read_text(path).map_err(|source| SourceError::Io {
        file: path.display().to_string(),
        source,
    })
}

fn format(file: &str, line: usize, what: String) -> SourceError {
    SourceError::Format {
        file: file.into(),
        line,
        what,
    }
}

/// Adds `count` to a running total of tasks or machines, refusing more than `max` in all.
fn grow(
    total: &mut u64,
    count: u64,
    max: u64,
    what: &str,
    file: &str,
    line: usize,
) -> Result<(), SourceError> {
    *total = total.saturating_add(count);
    if *total > max {
        return Err(format(
            file,
            line,
            format!("more than {max} {what} in all (packlab's limit)"),
        ));
    }
    Ok(())
}

/// Every distinct request of `rows` (line, request) fits at least one of `machines` (when the
/// file lists machines): a task that fits nowhere would never be placed, and compaction and
/// expansion would grow the cluster without end. Names the first such task's line.
fn check_fit(
    machines: &[Resources],
    rows: &[(usize, Resources)],
    file: &str,
) -> Result<(), SourceError> {
    check_fit_on(machines, rows, file, "of the file")
}

/// [`check_fit`], naming the machines `which` in the message.
fn check_fit_on(
    machines: &[Resources],
    rows: &[(usize, Resources)],
    file: &str,
    which: &str,
) -> Result<(), SourceError> {
    if machines.is_empty() {
        return Ok(());
    }
    // the machines no other machine dominates: a task fits some machine iff it fits one of these
    let mut kinds: Vec<Resources> = machines.to_vec();
    kinds.sort_unstable_by(|a, b| b.cmp(a));
    kinds.dedup();
    let mut frontier: Vec<Resources> = Vec::new();
    for m in kinds {
        if !frontier
            .iter()
            .any(|f| f.iter().zip(&m).all(|(x, y)| x >= y))
        {
            frontier.push(m);
        }
    }
    let mut seen = std::collections::HashSet::new();
    for &(line, r) in rows {
        if seen.insert(r)
            && !frontier
                .iter()
                .any(|m| m.iter().zip(&r).all(|(c, x)| x <= c))
        {
            let shown: Vec<String> = r
                .iter()
                .map(|&x| format!("{:.6}", x as f64 / Size::UNIT as f64))
                .collect();
            return Err(format(
                file,
                line,
                format!(
                    "this task (request {}) fits on no machine {which}, so it could never be placed",
                    shown.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// [`check_fit`] for tasks with constraint classes: each task must fit a machine its class may
/// run on. `rows` are (line, request, class).
fn check_fit_classes(
    machines: &[Resources],
    placement: Option<&Placement>,
    rows: &[(usize, Resources, u32)],
    file: &str,
) -> Result<(), SourceError> {
    let mut classes: Vec<u32> = rows.iter().map(|r| r.2).collect();
    classes.sort_unstable();
    classes.dedup();
    for c in classes {
        let eligible: Vec<Resources> = match placement {
            Some(p) if c != 0 => machines
                .iter()
                .zip(&p.kind)
                .filter(|(_, k)| p.table.allowed(c, **k))
                .map(|(m, _)| *m)
                .collect(),
            _ => machines.to_vec(),
        };
        let of: Vec<(usize, Resources)> = rows
            .iter()
            .filter(|r| r.2 == c)
            .map(|r| (r.0, r.1))
            .collect();
        let which = match placement {
            Some(p) if c != 0 => format!(
                "its constraints allow (column `constraints`: `{}`)",
                crate::constraints::set_text(&p.table.classes()[c as usize])
            ),
            _ => "of the file".to_string(),
        };
        check_fit_on(&eligible, &of, file, &which)?;
    }
    Ok(())
}

/// One OR-Library instance: items and bin capacity as integers, with the known optimum.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BinPacking {
    /// The instance's name in the file.
    pub name: String,
    /// The bin capacity.
    pub capacity: u64,
    /// The item sizes.
    pub items: Vec<u64>,
    /// The optimum number of bins (known for these instances).
    pub optimum: usize,
}

impl BinPacking {
    /// As a snapshot: one task per item and one bin per item (every item fits alone), sizes
    /// exact fractions of the capacity.
    pub fn snapshot(&self) -> Snapshot {
        // the readers accept only capacities that divide the unit, so this is exact
        let scale = |x: u64| (x as u128 * Size::UNIT as u128 / self.capacity.max(1) as u128) as u64;
        Snapshot::new(
            1,
            vec![[Size::UNIT, 0, 0]; self.items.len()],
            self.items
                .iter()
                .enumerate()
                .map(|(i, &x)| Task::new(i as u32, [scale(x), 0, 0]))
                .collect(),
        )
    }
}

/// The whitespace-separated tokens of `text` with their line numbers (1-based).
fn numbers(text: &str) -> Vec<(usize, &str)> {
    text.lines()
        .enumerate()
        .flat_map(|(n, l)| l.split_whitespace().map(move |t| (n + 1, t)))
        .collect()
}

fn parse<T: std::str::FromStr>(tok: &(usize, &str), file: &str) -> Result<T, SourceError> {
    tok.1.parse().map_err(|_| {
        format(
            file,
            tok.0,
            format!(
                "expected a whole number, got `{}`",
                crate::input::shown(tok.1)
            ),
        )
    })
}

/// A bin capacity: at least 1 and dividing the fixed-point unit 3 · 2^30 · 5^6, so that every
/// item is an exact fraction of a bin.
fn capacity(tok: &(usize, &str), file: &str) -> Result<u64, SourceError> {
    let c: u64 = parse(tok, file)?;
    if c == 0 || !Size::UNIT.is_multiple_of(c) {
        return Err(format(
            file,
            tok.0,
            format!(
                "capacity {c}: expected a capacity ≥ 1 of the form 2^a · 3^b · 5^c (b ≤ 1, \
                 c ≤ 6, a ≤ 30), such as 100, 120, 150 or 1000, so that items are exact \
                 fractions of a bin"
            ),
        ));
    }
    Ok(c)
}

/// Items of a bin-packing instance: at most [`MAX_TASKS`], each at most the capacity.
fn items(
    toks: &mut std::slice::Iter<'_, (usize, &str)>,
    n: u64,
    capacity: u64,
    name: &str,
    file: &str,
    eof: usize,
) -> Result<Vec<u64>, SourceError> {
    let mut total = 0;
    grow(&mut total, n, MAX_TASKS, "items", file, eof)?;
    let mut items = Vec::with_capacity(n.min(1 << 16) as usize);
    for i in 0..n {
        let tok = toks.next().ok_or_else(|| {
            format(
                file,
                eof,
                format!("instance {name}: {n} items announced, {i} found"),
            )
        })?;
        let x: u64 = parse(tok, file)?;
        if x > capacity {
            return Err(format(
                file,
                tok.0,
                format!(
                    "instance {name}: item {} is {x}, above the capacity {capacity}",
                    i + 1
                ),
            ));
        }
        items.push(x);
    }
    Ok(items)
}

/// Reads an OR-Library `binpackN.txt` file (several instances).
pub fn read_orlib(path: &Path) -> Result<Vec<BinPacking>, SourceError> {
    let file = path.display().to_string();
    let text = read_text(path)?;
    let toks = numbers(&text);
    let eof = text.lines().count().max(1);
    let mut it = toks.iter();
    let end = |what: &str| {
        format(
            &file,
            eof,
            format!("unexpected end of file: expected {what}"),
        )
    };
    let count: u64 = parse(
        it.next().ok_or_else(|| end("the number of instances"))?,
        &file,
    )?;
    let mut out = Vec::with_capacity(count.min(1024) as usize);
    for _ in 0..count {
        let name = it
            .next()
            .ok_or_else(|| end("an instance name"))?
            .1
            .to_string();
        let capacity = capacity(it.next().ok_or_else(|| end("a capacity"))?, &file)?;
        let n: u64 = parse(it.next().ok_or_else(|| end("a number of items"))?, &file)?;
        let optimum: usize = parse(it.next().ok_or_else(|| end("the optimum"))?, &file)?;
        let items = items(&mut it, n, capacity, &name, &file, eof)?;
        out.push(BinPacking {
            name,
            capacity,
            items,
            optimum,
        });
    }
    Ok(out)
}

/// Reads a Falkenauer triplet file (`n`, `capacity`, then n sizes); the optimum is
/// sum/capacity exactly.
pub fn read_triplet(path: &Path) -> Result<BinPacking, SourceError> {
    let file = path.display().to_string();
    let text = read_text(path)?;
    let toks = numbers(&text);
    let eof = text.lines().count().max(1);
    if toks.len() < 2 {
        return Err(format(&file, 1, "expected n and the capacity".into()));
    }
    let n: u64 = parse(&toks[0], &file)?;
    let capacity = capacity(&toks[1], &file)?;
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut it = toks[2..].iter();
    let items = items(&mut it, n, capacity, &name, &file, eof)?;
    if let Some(extra) = it.next() {
        return Err(format(
            &file,
            extra.0,
            format!("{n} sizes announced, more found"),
        ));
    }
    let sum: u128 = items.iter().map(|&x| x as u128).sum();
    Ok(BinPacking {
        name,
        capacity,
        optimum: sum.div_ceil(capacity as u128) as usize,
        items,
    })
}

/// The machine mix of the 2011 Google cluster (Reiss et al., SoCC 2012, Table 1): (count, CPU,
/// memory), normalised to the largest machine.
pub(crate) const GOOGLE_2011_MACHINES: [(usize, f64, f64); 10] = [
    (6732, 0.50, 0.50),
    (3863, 0.50, 0.25),
    (1001, 0.50, 0.75),
    (795, 1.00, 1.00),
    (126, 0.25, 0.25),
    (52, 0.50, 0.12),
    (5, 0.50, 0.03),
    (5, 0.50, 0.97),
    (3, 1.00, 0.50),
    (1, 0.50, 0.06),
];

/// The Google 2011 task snapshot (CPU and memory requests) on the 12,583 machines of
/// `GOOGLE_2011_MACHINES`, machines in the table's order.
pub fn read_google_snapshot(path: &Path) -> Result<Snapshot, SourceError> {
    let file = path.display().to_string();
    let text = read_text(path)?;
    let mut tasks = Vec::new();
    let (mut rows, mut total) = (Vec::new(), 0u64);
    let mut jobs: std::collections::HashMap<u64, u32> = Default::default();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split(';').collect();
        let bad = |what: String| SourceError::Format {
            file: file.clone(),
            line: n + 1,
            what,
        };
        if f.len() != 10 {
            return Err(bad(format!(
                "expected 10 `;`-separated fields, found {}",
                f.len()
            )));
        }
        let job: u64 = f[1].parse().map_err(|_| bad(not_whole("job id", f[1])))?;
        let mut req: Resources = [0; 3];
        for (d, k) in [(0, 8), (1, 9)] {
            let x: f64 = f[k].parse().map_err(|_| {
                bad(format!(
                    "field {} `{}` is not a number",
                    k + 1,
                    crate::input::shown(f[k])
                ))
            })?;
            req[d] = amount(x).ok_or_else(|| bad(not_an_amount(x)))?;
        }
        let next = jobs.len() as u32;
        let j = *jobs.entry(job).or_insert(next);
        grow(&mut total, 1, MAX_TASKS, "tasks", &file, n + 1)?;
        rows.push((n + 1, req));
        tasks.push(Task::new(j, req));
    }
    let mut machines = Vec::new();
    for &(count, cpu, mem) in &GOOGLE_2011_MACHINES {
        let m = [amount(cpu).unwrap_or(0), amount(mem).unwrap_or(0), 0];
        machines.extend(std::iter::repeat_n(m, count));
    }
    check_fit(&machines, &rows, &file)?;
    Ok(Snapshot::new(2, machines, tasks))
}

/// A header-led CSV table: the column index of each wanted name, or a format error.
fn columns(header: &str, want: &[&str], file: &str) -> Result<Vec<usize>, SourceError> {
    let cols: Vec<&str> = header.split(',').map(|c| c.trim()).collect();
    want.iter()
        .map(|w| {
            cols.iter()
                .position(|c| c == w)
                .ok_or_else(|| SourceError::Format {
                    file: file.into(),
                    line: 1,
                    what: format!("missing column `{w}` (header: {header})"),
                })
        })
        .collect()
}

/// Why `x` is not an amount, in words.
fn not_an_amount(x: f64) -> String {
    if x.is_nan() {
        "`NaN` is not a number".into()
    } else if x.is_infinite() {
        format!("amount {x} is not finite")
    } else {
        format!("negative amount {x}")
    }
}

/// Why `v` is not a whole number ≥ 0 (a job id, a count), in words.
fn not_whole(what: &str, v: &str) -> String {
    let digits = !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit());
    if digits {
        format!("{what} `{}` is too large", crate::input::shown(v))
    } else {
        format!(
            "{what} `{}` is not a whole number ≥ 0",
            crate::input::shown(v)
        )
    }
}

fn field_f64(f: &[&str], k: usize, line: usize, file: &str) -> Result<f64, SourceError> {
    let v = f.get(k).map(|s| s.trim()).unwrap_or("");
    v.parse().map_err(|_| SourceError::Format {
        file: file.into(),
        line,
        what: format!(
            "column {} `{}` is not a number",
            k + 1,
            crate::input::shown(v)
        ),
    })
}

/// The Alibaba GPU 2023 trace as a snapshot of three resources (CPU, memory, GPUs), each
/// normalised by the largest node; see `data/README.md`.
pub fn read_alibaba_gpu(pods: &Path, nodes: &Path) -> Result<Snapshot, SourceError> {
    let nfile = nodes.display().to_string();
    let ntext = read_text(nodes)?;
    let mut lines = ntext.lines();
    let header = lines.next().unwrap_or("");
    let c = columns(header, &["cpu_milli", "memory_mib", "gpu", "model"], &nfile)?;
    let mut raw_nodes = Vec::new();
    let mut attributes: Vec<Properties> = Vec::new();
    let mut nodes_seen = 0u64;
    for (n, l) in lines.enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = l.split(',').collect();
        let v: Vec<f64> = c[..3]
            .iter()
            .map(|&k| field_f64(&f, k, n + 2, &nfile))
            .collect::<Result<_, _>>()?;
        grow(&mut nodes_seen, 1, MAX_MACHINES, "nodes", &nfile, n + 2)?;
        raw_nodes.push([v[0], v[1], v[2]]);
        let model = f.get(c[3]).map(|s| s.trim()).unwrap_or("");
        attributes.push(if model.is_empty() {
            Vec::new()
        } else {
            vec![("gpu_model".to_string(), model.to_string())]
        });
    }
    let largest: [f64; 3] =
        std::array::from_fn(|d| raw_nodes.iter().map(|m| m[d]).fold(0.0, f64::max));
    let norm = |x: [f64; 3], file: &str, line: usize| -> Result<Resources, SourceError> {
        let mut r = [0u64; 3];
        for d in 0..3 {
            let v = if largest[d] > 0.0 {
                x[d] / largest[d]
            } else if x[d] > 0.0 {
                return Err(SourceError::Format {
                    file: file.into(),
                    line,
                    what: format!(
                        "requests {} of {}, which no node of {nfile} has",
                        x[d],
                        ["CPU", "memory", "GPU"][d]
                    ),
                });
            } else {
                0.0
            };
            r[d] = amount(v).ok_or_else(|| SourceError::Format {
                file: file.into(),
                line,
                what: not_an_amount(x[d]),
            })?;
        }
        Ok(r)
    };
    let machines = raw_nodes
        .iter()
        .enumerate()
        .map(|(i, m)| norm(*m, &nfile, i + 2))
        .collect::<Result<Vec<_>, _>>()?;
    let pfile = pods.display().to_string();
    let ptext = read_text(pods)?;
    let mut lines = ptext.lines();
    let header = lines.next().unwrap_or("");
    let c = columns(
        header,
        &["cpu_milli", "memory_mib", "num_gpu", "gpu_milli"],
        &pfile,
    )?;
    let mut tasks = Vec::new();
    let (mut rows, mut total) = (Vec::new(), 0u64);
    for (n, l) in lines.enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = l.split(',').collect();
        let v: Vec<f64> = c
            .iter()
            .map(|&k| field_f64(&f, k, n + 2, &pfile))
            .collect::<Result<_, _>>()?;
        let req = norm([v[0], v[1], v[2] * v[3] / 1000.0], &pfile, n + 2)?;
        grow(&mut total, 1, MAX_TASKS, "pods", &pfile, n + 2)?;
        rows.push((n + 2, req));
        tasks.push(Task::new(tasks.len() as u32, req));
    }
    check_fit(&machines, &rows, &pfile)?;
    let mut snap = Snapshot::new(3, machines, tasks);
    snap.placement = Some(Placement::from_machines(&attributes));
    Ok(snap)
}

/// A machine row's `attributes` cell: `name=value` items separated by `;`, each name once;
/// sorted by name.
fn attributes_cell(text: &str) -> Result<Properties, String> {
    let mut attrs = Properties::new();
    for kv in text.split(';').filter(|kv| !kv.trim().is_empty()) {
        let (k, v) = kv.split_once('=').ok_or_else(|| {
            format!(
                "column `attributes`: `{}` is not name=value",
                crate::input::shown(kv)
            )
        })?;
        let (k, v) = (k.trim(), v.trim());
        if k.is_empty() || v.is_empty() || attrs.iter().any(|(a, _)| a == k) {
            return Err(format!(
                "column `attributes`: `{}` needs a name and a value, each name once",
                crate::input::shown(kv)
            ));
        }
        attrs.push((k.to_string(), v.to_string()));
    }
    attrs.sort();
    Ok(attrs)
}

/// A snapshot's task rows (line, request, job, count, constraints text) as tasks with their
/// constraint classes, the rows as `check_fit_classes` reads them, and the machines'
/// placement table when machines have attributes or tasks constraints.
#[allow(clippy::type_complexity)]
fn classed_tasks(
    attributes: &[Properties],
    task_rows: Vec<(usize, Resources, u32, usize, String)>,
    file: &str,
) -> Result<(Vec<Task>, Vec<(usize, Resources, u32)>, Option<Placement>), SourceError> {
    let constrained = task_rows.iter().any(|t| !t.4.trim().is_empty());
    let any_attrs = attributes.iter().any(|a| !a.is_empty());
    let mut table = (any_attrs || constrained).then(|| Eligibility::from_machines(attributes));
    let mut tasks = Vec::new();
    let mut rows = Vec::new();
    for (line, r, job, count, text) in task_rows {
        let class = match &mut table {
            Some((t, _)) if !text.trim().is_empty() => {
                let set = parse_set(&text)
                    .map_err(|e| format(file, line, format!("column `constraints`: {e}")))?;
                t.class_of(&set)
                    .map_err(|e| format(file, line, format!("column `constraints`: {e}")))?
            }
            _ => 0,
        };
        rows.push((line, r, class));
        tasks.extend(std::iter::repeat_n(
            Task {
                job,
                request: r,
                class,
            },
            count,
        ));
    }
    let placement = table.map(|(t, kind)| Placement {
        kind,
        table: std::sync::Arc::new(t),
    });
    Ok((tasks, rows, placement))
}

/// packlab's own snapshot CSV (`kind,job,cpu,memory,disk,count`, and optionally `attributes`
/// on machine rows, `name=value` items separated by `;`, and `constraints` on task rows,
/// `attribute op value` items separated by `;`; see `data/README.md`). A task's constraints
/// must name attributes some machine has, use operators its type allows, and be satisfied by
/// a machine it fits on.
pub fn read_snapshot_csv(path: &Path) -> Result<Snapshot, SourceError> {
    let file = path.display().to_string();
    let text = read_text(path)?;
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let header = lines.next().map(|(_, l)| l).unwrap_or("");
    let c = columns(
        header,
        &["kind", "job", "cpu", "memory", "disk", "count"],
        &file,
    )?;
    let attr_col = header.split(',').position(|c| c.trim() == "attributes");
    let cons_col = header.split(',').position(|c| c.trim() == "constraints");
    let mut machines = Vec::new();
    let mut attributes: Vec<Properties> = Vec::new();
    // task rows: (line, request, job, count, constraints text)
    let mut task_rows: Vec<(usize, Resources, u32, usize, String)> = Vec::new();
    let mut disk = false;
    let mut jobs: std::collections::HashMap<u64, u32> = Default::default();
    let (mut tasks_seen, mut machines_seen) = (0u64, 0u64);
    for (n, l) in lines {
        let f: Vec<&str> = l.split(',').map(|s| s.trim()).collect();
        let bad = |what: String| SourceError::Format {
            file: file.clone(),
            line: n + 1,
            what,
        };
        let get = |k: usize| f.get(c[k]).copied().unwrap_or("");
        let amt = |k: usize| -> Result<u64, SourceError> {
            let v = get(k);
            if v.is_empty() && k == 4 {
                return Ok(0);
            }
            let x: f64 = v
                .parse()
                .map_err(|_| bad(format!("`{}` is not a number", crate::input::shown(v))))?;
            amount(x).ok_or_else(|| bad(not_an_amount(x)))
        };
        let r = [amt(2)?, amt(3)?, amt(4)?];
        disk |= r[2] > 0;
        let count: u64 = match get(5) {
            "" => 1,
            v => v.parse().map_err(|_| bad(not_whole("count", v)))?,
        };
        let count_usize = count as usize;
        let cell = |col: Option<usize>| col.and_then(|k| f.get(k)).copied().unwrap_or("");
        match get(0) {
            "machine" => {
                if !cell(cons_col).is_empty() {
                    return Err(bad(
                        "column `constraints` is for task rows; a machine has `attributes`".into(),
                    ));
                }
                let attrs = attributes_cell(cell(attr_col)).map_err(bad)?;
                grow(
                    &mut machines_seen,
                    count,
                    MAX_MACHINES,
                    "machines",
                    &file,
                    n + 1,
                )?;
                machines.extend(std::iter::repeat_n(r, count_usize));
                attributes.extend(std::iter::repeat_n(attrs, count_usize));
            }
            "task" => {
                if !cell(attr_col).is_empty() {
                    return Err(bad(
                        "column `attributes` is for machine rows; a task has `constraints`".into(),
                    ));
                }
                let id: u64 = get(1).parse().map_err(|_| bad(not_whole("job", get(1))))?;
                let next = jobs.len() as u32;
                let job = *jobs.entry(id).or_insert(next);
                grow(&mut tasks_seen, count, MAX_TASKS, "tasks", &file, n + 1)?;
                task_rows.push((n + 1, r, job, count_usize, cell(cons_col).to_string()));
            }
            other => {
                return Err(bad(format!(
                    "kind `{}` is neither machine nor task",
                    crate::input::shown(other)
                )));
            }
        }
    }
    let (tasks, rows, placement) = classed_tasks(&attributes, task_rows, &file)?;
    check_fit_classes(&machines, placement.as_ref(), &rows, &file)?;
    let mut snap = Snapshot::new(if disk { 3 } else { 2 }, machines, tasks);
    snap.placement = placement;
    Ok(snap)
}
