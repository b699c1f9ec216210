//! Runs an experiment's plan of units: in parallel, longest first, each unit journaled as it
//! finishes; resumes from the journal; runs one shard of the plan; merges shards.
//!
//! Every kind supplies a plan of independent units (a simulation run, a limit search, a
//! compaction study row, a packing scheduler, a family of distributions…) with an expected
//! cost, runs one unit at a time, and assembles the outcome from the units' results in plan
//! order. Results depend only on the plan, never on which thread, process or machine ran a
//! unit, so a resumed run, a single run and merged shards give the same bytes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::folder::Folder;
use super::journal::{self, Journal, JournalHeader};
use super::pace;
use super::steps::{StepSink, Steps};
use super::{ClaimResult, ExperimentError, Header, VERSION};
use crate::cancel;
use crate::progress::Progress;

/// One kind of experiment as a plan of independent units.
pub(crate) trait Kind: Sync + Sized + Serialize {
    /// A unit of work.
    type Unit: Send + Sync;
    /// What a unit gives (journaled).
    type Done: Serialize + DeserializeOwned + Send;
    /// What the whole experiment found.
    type Outcome;
    /// Name, description, seed and file.
    fn header(&self) -> &Header;
    /// Shortens the experiment to about 1/100 of its work (same outputs).
    fn quick(&mut self);
    /// Every unit, in a fixed order.
    fn plan(&self) -> Vec<Self::Unit>;
    /// A unit's expected cost (any unit; only ratios matter): the longest run first, and
    /// shards of equal cost. The default prices every unit alike.
    fn cost(&self, _unit: &Self::Unit) -> f64 {
        1.0
    }
    /// Every unit's [`Kind::cost`], in plan order (a kind whose prices share a computation
    /// does it once here).
    fn costs(&self, plan: &[Self::Unit]) -> Vec<f64> {
        plan.iter().map(|u| self.cost(u)).collect()
    }
    /// Runs one unit; a long unit journals its finished steps through `steps` and recalls
    /// those an interrupted run of it finished.
    fn run_unit(&self, unit: &Self::Unit, steps: &Steps<'_>)
    -> Result<Self::Done, ExperimentError>;
    /// The outcome from every unit's result, in the order of `plan`.
    fn assemble(&self, plan: &[Self::Unit], done: Vec<Self::Done>) -> Self::Outcome;
    /// The claims' results.
    fn claims(outcome: &mut Self::Outcome) -> &mut [ClaimResult];
    /// Writes every output into `dir`; returns the files written.
    fn write(&self, outcome: &Self::Outcome, dir: &Path) -> Result<Vec<PathBuf>, ExperimentError>;
    /// The line printed when it is done.
    fn done(&self, outcome: &Self::Outcome, dir: &Path) -> String;
    /// Expected CPU seconds of `plan`, when it can be estimated from measured rates (printed
    /// before a run expected to take more than ten seconds).
    fn estimated_seconds(&self, _plan: &[Self::Unit]) -> Option<f64> {
        None
    }
    /// Per unit of `plan`, its identity: a hash of everything its result depends on (with
    /// `quick`, the shortened plan). A journal written before an edit of the file gives each
    /// unit of the new plan the result of a unit of the same identity, wherever it stood. The
    /// default is the whole experiment's, unit by unit: any edit runs every unit again.
    fn unit_fingerprints(&self, plan: &[Self::Unit], quick: bool) -> Vec<u64> {
        let whole = journal::fingerprint(&(VERSION, quick, self));
        (0..plan.len() as u64)
            .map(|u| journal::fingerprint(&(whole, u)))
            .collect()
    }
    /// Unit `unit` (at index `index` of the plan) in words, for the progress that names a
    /// unit running long without reporting progress.
    fn describe(&self, _unit: &Self::Unit, index: usize) -> String {
        format!("unit {} of the plan", index + 1)
    }
    /// What `plan` holds in memory at its peak on `threads` worker threads, by what holds it
    /// (checked against the memory limit before any work; see [`super::memory`]).
    fn memory(&self, _plan: &[Self::Unit], _threads: usize) -> Vec<super::memory::Use> {
        Vec::new()
    }
}

/// Prints the expected time of `exp`'s remaining `share` of work on `threads` threads if it is
/// more than 10 seconds (always with `--verbose`), at this machine's pace (see
/// [`pace::pace`]: timed only when the work could take that long here): its CPU time, and its
/// wall time on as many threads as there are units to run and cores to run them, slowed by the
/// machine's present load. Returns that wall time, seconds, when printed (the progress's time
/// left starts from it).
fn announce<K: Kind>(
    exp: &K,
    plan: &[K::Unit],
    (share, units): (f64, usize),
    threads: usize,
) -> Option<f64> {
    let cpu = exp.estimated_seconds(plan)?;
    let verbose = crate::progress::verbose();
    if crate::progress::quiet()
        || (!verbose && cpu * share / threads.max(1) as f64 * pace::SLOWEST <= 10.0)
    {
        return None;
    }
    let p = pace::pace();
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let parallel = threads.min(cores).min(units).max(1);
    let cpu = cpu * p.pace * share;
    let wall = cpu / parallel as f64 * p.contention;
    if wall > 10.0 || verbose {
        crate::progress::warn_line!(
            "packlab: {}: about {} of CPU time; roughly {} of wall time on {threads} thread{} of \
             this machine{}",
            exp.header().name,
            crate::limits::duration_words(cpu),
            crate::limits::duration_words(wall),
            if threads == 1 { "" } else { "s" },
            if p.contention > 1.0 {
                format!(
                    " (at its present load, {:.1} times as long as on free cores)",
                    p.contention
                )
            } else {
                String::new()
            },
        );
        return Some(wall);
    }
    None
}

/// The name this program was started under (`packlab`, or a researcher's own binary that is
/// packlab's command line), for the commands messages suggest.
pub(crate) fn program() -> String {
    std::env::args_os()
        .next()
        .and_then(|a| {
            std::path::Path::new(&a)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "packlab".into())
}

/// The stamp on every figure of a `--quick` run.
const SMOKE_TEST: &str = "SMOKE TEST (--quick):\nabout 1/100 of the work,\nnot a result";

/// A run's estimated peak memory is printed before it starts when above this, bytes.
const MEMORY_WORTH_SAYING: f64 = 1024.0 * 1048576.0;

/// How to run a file.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// About 1/100 of the work, the same outputs (smoke tests).
    pub quick: bool,
    /// Worker threads, and the most cores the run keeps busy (all cores if `None`); results do
    /// not depend on it.
    pub threads: Option<usize>,
    /// Discard the folder's journal and start afresh.
    pub fresh: bool,
    /// Run only shard I of N (1-based), writing only its journal.
    pub shard: Option<(u32, u32)>,
    /// The most memory the plan may be expected to hold, bytes (`None`: 4 GiB); never more
    /// than this process can have (its `ulimit -v`, its control group, the machine).
    pub max_memory: Option<u64>,
}

/// What running a file gave: its claims (none for a shard), the line to print, the files
/// written (none for a shard) and whether it was the `--quick` plan.
#[derive(Clone, Debug)]
pub struct Ran {
    /// The claims' results.
    pub claims: Vec<ClaimResult>,
    /// The line to print.
    pub done: String,
    /// The files written.
    pub files: Vec<PathBuf>,
    /// It was the `--quick` plan.
    pub quick: bool,
}

/// A thread pool of `threads` threads (all cores if `None`).
pub(crate) fn pool(threads: Option<usize>) -> rayon::ThreadPool {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        builder = builder.num_threads(n);
    }
    builder.build().expect("a thread pool")
}

/// The shard (0-based) of every unit: longest first, each to the least-loaded shard (ties: the
/// lower index), so shards have about equal cost. Deterministic.
pub(crate) fn assign<K: Kind>(exp: &K, plan: &[K::Unit], shards: u32) -> Vec<u32> {
    let mut order: Vec<usize> = (0..plan.len()).collect();
    let costs = exp.costs(plan);
    order.sort_by(|&a, &b| costs[b].total_cmp(&costs[a]).then(a.cmp(&b)));
    let mut load = vec![0.0f64; shards.max(1) as usize];
    let mut of = vec![0u32; plan.len()];
    for k in order {
        let s = (0..load.len())
            .min_by(|&a, &b| load[a].total_cmp(&load[b]).then(a.cmp(&b)))
            .unwrap_or(0);
        load[s] += costs[k];
        of[k] = s as u32;
    }
    of
}

/// The journal header of `exp` (its fingerprint covers packlab's version, quick and the
/// validated experiment).
pub(crate) fn journal_header<K: Kind>(
    exp: &K,
    quick: bool,
    plan: &[K::Unit],
    shard: (u32, u32),
) -> JournalHeader {
    let h = exp.header();
    let sections = match h.source.parse::<toml::Table>() {
        Ok(t) => t
            .iter()
            .map(|(k, v)| (k.clone(), journal::fnv1a(v.to_string().as_bytes())))
            .collect(),
        Err(_) => Vec::new(),
    };
    // the validated experiment, canonically serialised (its file's path and text are skipped)
    let fingerprint = journal::fingerprint(&(VERSION, quick, exp));
    JournalHeader {
        version: VERSION.into(),
        name: h.name.clone(),
        file: std::fs::canonicalize(&h.file).unwrap_or_else(|_| h.file.clone()),
        given: h.file.clone(),
        fingerprint,
        sections,
        quick,
        units: plan.len() as u32,
        shard,
        results: journal::RESULTS,
        unit_fingerprints: exp.unit_fingerprints(plan, quick),
    }
}

/// The steps of the units a journal holds unfinished (by plan index, key to value), and where a
/// unit's new steps are journaled.
struct StepStore<'a> {
    kept: Vec<Mutex<HashMap<Vec<u8>, Vec<u8>>>>,
    sink: Option<&'a StepSink<'a>>,
    /// Steps of units that did not finish (kept or written), for the interrupt message.
    unfinished: AtomicUsize,
}

impl<'a> StepStore<'a> {
    fn new(units: usize, steps: Vec<journal::Step>, sink: Option<&'a StepSink<'a>>) -> Self {
        let mut kept: Vec<HashMap<Vec<u8>, Vec<u8>>> = vec![HashMap::new(); units];
        for (u, k, v) in steps {
            if let Some(m) = kept.get_mut(u as usize) {
                m.entry(k).or_insert(v);
            }
        }
        StepStore {
            kept: kept.into_iter().map(Mutex::new).collect(),
            sink,
            unfinished: AtomicUsize::new(0),
        }
    }

    /// Unit `u`'s steps, taken out of the store.
    fn take(&self, u: usize) -> Steps<'a> {
        let kept = std::mem::take(&mut *self.kept[u].lock().expect("not poisoned"));
        Steps::new(u as u32, kept, self.sink)
    }

    /// Steps of units that did not finish: those counted as their units stopped, and those of
    /// units never started.
    fn unfinished(&self) -> usize {
        self.unfinished.load(Ordering::Relaxed)
            + self
                .kept
                .iter()
                .map(|m| m.lock().map_or(0, |m| m.len()))
                .sum::<usize>()
    }
}

/// Runs `todo` (plan indices) longest first on `pool`; each result goes to `sink` as it
/// finishes, each unit's steps come from and go to `steps`. Stops starting units when a unit
/// fails or a signal asks to stop.
fn run_units<K: Kind>(
    exp: &K,
    plan: &[K::Unit],
    mut todo: Vec<usize>,
    pool: &rayon::ThreadPool,
    sink: &(dyn Fn(usize, K::Done) -> Result<(), ExperimentError> + Sync),
    steps: &StepStore<'_>,
    expected: Option<f64>,
) -> Result<(), ExperimentError> {
    cancel::set_phase(cancel::Phase::Running);
    let costs = exp.costs(plan);
    todo.sort_by(|&a, &b| costs[b].total_cmp(&costs[a]).then(a.cmp(&b)));
    let next = AtomicUsize::new(0);
    let failed: Mutex<Option<ExperimentError>> = Mutex::new(None);
    let mut bar = Progress::new(
        &exp.header().name,
        "units",
        todo.len() as u64,
        todo.iter().map(|&u| costs[u]).sum(),
        expected.map(std::time::Duration::from_secs_f64),
    );
    pool.scope(|s| {
        for _ in 0..pool.current_num_threads() {
            s.spawn(|_| {
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if k >= todo.len()
                        || cancel::requested().is_some()
                        || failed.lock().is_ok_and(|f| f.is_some())
                    {
                        return;
                    }
                    let unit = todo[k];
                    let own = steps.take(unit);
                    let r = bar
                        .running(
                            costs[unit],
                            || exp.describe(&plan[unit], unit),
                            || exp.run_unit(&plan[unit], &own),
                        )
                        .and_then(|done| sink(unit, done));
                    // a unit stopped by a signal or failed is not done
                    if r.is_ok() {
                        bar.item_done(costs[unit]);
                    } else {
                        steps
                            .unfinished
                            .fetch_add(own.kept() + own.written(), Ordering::Relaxed);
                    }
                    if let Err(e) = r
                        && let Ok(mut f) = failed.lock()
                        && f.is_none()
                    {
                        *f = Some(e);
                    }
                }
            });
        }
    });
    bar.finish();
    match failed.into_inner().ok().flatten() {
        // a unit cut short by a signal reports the interruption, not a failure
        Some(_) | None if cancel::requested().is_some() => Err(ExperimentError::Cancelled),
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Runs every unit in memory (no journal, no folder) and assembles the outcome.
pub(crate) fn run_in_memory<K: Kind>(
    exp: &K,
    threads: Option<usize>,
) -> Result<K::Outcome, ExperimentError> {
    let plan = exp.plan();
    let results: Vec<Mutex<Option<K::Done>>> = plan.iter().map(|_| Mutex::new(None)).collect();
    let sink = |unit: usize, done: K::Done| {
        *results[unit].lock().expect("not poisoned") = Some(done);
        Ok(())
    };
    let steps = StepStore::new(plan.len(), Vec::new(), None);
    run_units(
        exp,
        &plan,
        (0..plan.len()).collect(),
        &pool(threads),
        &sink,
        &steps,
        None,
    )?;
    let done = results
        .into_iter()
        .map(|m| m.into_inner().ok().flatten())
        .collect::<Option<Vec<_>>>()
        .ok_or(ExperimentError::Cancelled)?;
    Ok(exp.assemble(&plan, done))
}

/// An open journal, the units it already holds (plan index, result), the steps it holds of
/// units not finished, and the records it held that were no use.
type Resumed<D> = (Journal, Vec<(usize, D)>, Vec<journal::Step>, Ignored);

/// Records of a journal that gave nothing: a unit or a step recorded again, or one of no unit
/// of the plan, or one whose result does not decode (damaged or forged).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Ignored(usize);

/// The most steps kept of one unfinished unit: far above what any search journals (a search's
/// probes times their runs), so that a forged journal cannot make a resume hold more.
const MAX_STEPS_PER_UNIT: usize = 1 << 20;

/// Where a journal's units go in a plan: for each unit of the journal's plan (by its index
/// there), the units of the new plan that take its result (none: not wanted).
type Carried = Vec<Vec<usize>>;

/// Each unit of a plan of `units` units taken from the same place in the journal.
fn same_places(units: usize) -> Carried {
    (0..units).map(|u| vec![u]).collect()
}

/// Each unit of the journal's plan (`old`) carried to the units of the new plan (`new`) of the
/// same identity, wherever they now stand ([`Kind::unit_fingerprints`]).
fn same_identities(old: &JournalHeader, new: &JournalHeader) -> Carried {
    let mut at: HashMap<u64, Vec<usize>> = HashMap::new();
    for (u, f) in new.unit_fingerprints.iter().enumerate() {
        at.entry(*f).or_default().push(u);
    }
    old.unit_fingerprints
        .iter()
        .map(|f| at.get(f).cloned().unwrap_or_default())
        .collect()
}

/// What a journal's records give a plan of `units` units, each record of the journal's unit u
/// going to the units `to[u]`: each unit's result decoded as it is read (the first of each; a
/// record of no wanted unit, recorded again or that does not decode is ignored), and the steps
/// of the units not finished (the first of each key, at most [`MAX_STEPS_PER_UNIT`] a unit).
/// The records are read one at a time, so reading holds no more than the results a run of the
/// plan holds when it ends.
fn take_records<D: serde::de::DeserializeOwned>(
    reader: &mut journal::Reader,
    to: &[Vec<usize>],
    units: usize,
) -> (Vec<(usize, D)>, Vec<journal::Step>, Ignored) {
    let mut done: Vec<(usize, D)> = Vec::new();
    let mut finished = vec![false; units];
    let mut steps: Vec<HashMap<Vec<u8>, Vec<u8>>> = Vec::new();
    let mut ignored = 0usize;
    let nowhere: Vec<usize> = Vec::new();
    while let Some(record) = reader.next_record() {
        match record {
            journal::Record::Unit(u, bytes) => {
                let targets = to.get(u as usize).unwrap_or(&nowhere);
                let mut used = false;
                for &k in targets {
                    if !finished[k]
                        && let Ok(d) = postcard::from_bytes::<D>(&bytes)
                    {
                        finished[k] = true;
                        done.push((k, d));
                        used = true;
                    }
                }
                if !used {
                    ignored += 1;
                }
            }
            journal::Record::Step((u, key, value)) => {
                let targets = to.get(u as usize).unwrap_or(&nowhere);
                let mut used = false;
                for &k in targets {
                    if finished[k] {
                        continue;
                    }
                    if steps.len() <= k {
                        steps.resize_with(k + 1, HashMap::new);
                    }
                    let own = &mut steps[k];
                    if own.len() < MAX_STEPS_PER_UNIT && !own.contains_key(&key) {
                        own.insert(key.clone(), value.clone());
                        used = true;
                    }
                }
                if !used {
                    ignored += 1;
                }
            }
        }
    }
    // a unit finished after some of its steps: those steps are spent
    let mut kept = Vec::new();
    for (u, own) in steps.into_iter().enumerate() {
        if finished[u] {
            ignored += own.len();
            continue;
        }
        let mut own: Vec<(Vec<u8>, Vec<u8>)> = own.into_iter().collect();
        own.sort();
        kept.extend(own.into_iter().map(|(k, v)| (u as u32, k, v)));
    }
    (done, kept, Ignored(ignored))
}

/// Opens the journal at `path` for `header`: a new one, or an existing one of the same
/// experiment to resume (its units decoded as they are read). Refuses a journal of another
/// experiment.
fn open_journal<K: Kind>(
    dir: &Path,
    path: &Path,
    header: &JournalHeader,
) -> Result<Resumed<K::Done>, ExperimentError> {
    let Some((old, mut reader)) = journal::open(path)? else {
        return Ok((
            Journal::create(path, header)?,
            Vec::new(),
            Vec::new(),
            Ignored::default(),
        ));
    };
    if let Some(what) = old.refusal(header) {
        return Err(ExperimentError::JournalMismatch {
            dir: dir.to_path_buf(),
            what,
        });
    }
    if old.fingerprint != header.fingerprint || old.units != header.units {
        return keep_unchanged::<K>(dir, path, &old, header, &mut reader);
    }
    let units = header.units as usize;
    let (done, steps, ignored) = take_records(&mut reader, &same_places(units), units);
    let whole = reader.whole();
    drop(reader);
    Ok((Journal::append_to(path, whole)?, done, steps, ignored))
}

/// After an edit of the file: a new journal at `path` for `header`, holding the results of the
/// old one (`old`, its records in `reader`) for every unit of the new plan whose identity a
/// unit of the old plan had, wherever it now stands, and the steps of such units it holds
/// unfinished; says what changed and how many units are kept.
fn keep_unchanged<K: Kind>(
    dir: &Path,
    path: &Path,
    old: &JournalHeader,
    header: &JournalHeader,
    reader: &mut journal::Reader,
) -> Result<Resumed<K::Done>, ExperimentError> {
    let carried = same_identities(old, header);
    let (done, steps, ignored) = take_records::<K::Done>(reader, &carried, header.units as usize);
    if !crate::progress::quiet() {
        crate::progress::warn_line!(
            "packlab: {}: {}; {} finished unit{} of the journal in {} {} unchanged and kept, \
             the rest run again (--fresh starts over)",
            header.name,
            old.changes(header),
            done.len(),
            if done.len() == 1 { "" } else { "s" },
            dir.display(),
            if done.len() == 1 { "is" } else { "are" },
        );
    }
    let mut journal = Journal::create(path, header)?;
    for (u, d) in &done {
        journal.append_record(&Journal::encode(*u as u32, d))?;
    }
    for (u, k, v) in &steps {
        journal.append_step(*u, k, v)?;
    }
    Ok((journal, done, steps, ignored))
}

/// Runs `exp` into `dir` with a journal: resumes what the journal holds, runs the rest (or this
/// shard's part), and (without a shard) writes the outputs.
pub(crate) fn run_kind<K: Kind>(
    mut exp: K,
    opts: Options,
    dir: &Path,
) -> Result<Ran, ExperimentError> {
    if opts.quick {
        exp.quick();
    }
    let plan = exp.plan();
    let threads = opts.threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let peak = super::memory::admit(
        &exp.header().file,
        &exp.memory(&plan, threads),
        threads,
        opts.max_memory,
    )?;
    if (peak > MEMORY_WORTH_SAYING || crate::progress::verbose()) && !crate::progress::quiet() {
        crate::progress::warn_line!(
            "packlab: {}: up to about {} of memory at its peak on {threads} thread{}",
            exp.header().name,
            super::memory::bytes_words(peak),
            if threads == 1 { "" } else { "s" },
        );
    }
    let folder = Folder::open(dir, opts.shard)?;
    folder.record_program();
    folder.check_inputs(&exp.header().inputs)?;
    if opts.fresh {
        folder.remove_journal(opts.shard, opts.quick)?;
    }
    let shard = opts.shard.unwrap_or((1, 1));
    let header = journal_header(&exp, opts.quick, &plan, shard);
    let (journal, had, steps, ignored) =
        open_journal::<K>(dir, &folder.journal(opts.shard, opts.quick), &header)?;
    let kept = had.len();
    say_resumed(&exp.header().name, (kept, plan.len()), dir, &steps, ignored);
    let mut results: Vec<Option<K::Done>> = plan.iter().map(|_| None).collect();
    for (u, d) in had {
        results[u] = Some(d);
    }
    let mine: Vec<bool> = match opts.shard {
        None => vec![true; plan.len()],
        Some((i, n)) => assign(&exp, &plan, n).iter().map(|&s| s + 1 == i).collect(),
    };
    let todo: Vec<usize> = (0..plan.len())
        .filter(|&u| mine[u] && results[u].is_none())
        .collect();
    let slots: Vec<Mutex<Option<K::Done>>> = plan.iter().map(|_| Mutex::new(None)).collect();
    let journal = Mutex::new(journal);
    let sink = |unit: usize, done: K::Done| {
        let record = Journal::encode(unit as u32, &done);
        journal
            .lock()
            .expect("not poisoned")
            .append_record(&record)?;
        *slots[unit].lock().expect("not poisoned") = Some(done);
        Ok(())
    };
    let step_sink = |unit: u32, key: &[u8], value: &[u8]| -> Result<(), ExperimentError> {
        Ok(journal
            .lock()
            .expect("not poisoned")
            .append_step(unit, key, value)?)
    };
    let steps = StepStore::new(plan.len(), steps, Some(&step_sink));
    let pool = pool(opts.threads);
    let costs = exp.costs(&plan);
    let expected = announce(
        &exp,
        &plan,
        (
            todo.iter().map(|&u| costs[u]).sum::<f64>()
                / costs.iter().sum::<f64>().max(f64::MIN_POSITIVE),
            todo.len(),
        ),
        pool.current_num_threads(),
    );
    let ran = run_units(&exp, &plan, todo.clone(), &pool, &sink, &steps, expected);
    let unfinished_steps = steps.unfinished();
    drop(steps);
    journal.into_inner().expect("not poisoned").sync()?;
    for (u, m) in slots.into_iter().enumerate() {
        if let Some(d) = m.into_inner().ok().flatten() {
            results[u] = Some(d);
        }
    }
    let have = results.iter().filter(|r| r.is_some()).count();
    if let Err(e) = ran {
        return Err(match e {
            ExperimentError::Cancelled => ExperimentError::Interrupted {
                signal: cancel::requested().unwrap_or(2),
                kept: have,
                runs: unfinished_steps,
                total: plan.len(),
                dir: dir.to_path_buf(),
            },
            e => e,
        });
    }
    if let Some((i, n)) = opts.shard {
        let count = mine.iter().filter(|&&m| m).count();
        return Ok(Ran {
            claims: Vec::new(),
            files: Vec::new(),
            quick: opts.quick,
            done: format!(
                "packlab: shard {i}/{n} of {}: {count} of {} units in {} ({kept} resumed from \
                 its journal); merge the shards with `{} merge {}`",
                exp.header().name,
                plan.len(),
                folder.journal(opts.shard, opts.quick).display(),
                program(),
                dir.display()
            ),
        });
    }
    finish(&exp, &plan, results, &folder, opts.quick)
}

/// Says what a journal gave a run of `name`: `kept` of `units` units, the finished runs of
/// unfinished ones, the records ignored (nothing when it gave nothing and ignored nothing).
fn say_resumed(
    name: &str,
    (kept, units): (usize, usize),
    dir: &Path,
    steps: &[journal::Step],
    ignored: Ignored,
) {
    if (kept == 0 && steps.is_empty() && ignored.0 == 0) || crate::progress::quiet() {
        return;
    }
    crate::progress::warn_line!(
        "packlab: {name}: {kept} of {units} units resumed from the journal in {}{}{} (--fresh \
         starts over)",
        dir.display(),
        runs_of_unfinished(steps),
        if ignored.0 > 0 {
            format!(
                "; {} record{} of it repeated another or belonged to no unit and {} ignored",
                ignored.0,
                if ignored.0 == 1 { "" } else { "s" },
                if ignored.0 == 1 { "was" } else { "were" },
            )
        } else {
            String::new()
        },
    );
}

/// The words after "units resumed" for the steps of unfinished units a journal kept: how many
/// runs of how many units (nothing if none).
fn runs_of_unfinished(steps: &[journal::Step]) -> String {
    if steps.is_empty() {
        return String::new();
    }
    let mut units: Vec<u32> = steps.iter().map(|s| s.0).collect();
    units.sort_unstable();
    units.dedup();
    format!(
        ", with {} finished run{} of {} unfinished unit{}",
        steps.len(),
        if steps.len() == 1 { "" } else { "s" },
        units.len(),
        if units.len() == 1 { "" } else { "s" },
    )
}

/// Assembles the outcome from a complete set of results and writes the outputs.
fn finish<K: Kind>(
    exp: &K,
    plan: &[K::Unit],
    results: Vec<Option<K::Done>>,
    folder: &Folder,
    quick: bool,
) -> Result<Ran, ExperimentError> {
    let total = results.len();
    let done: Vec<K::Done> = results.into_iter().flatten().collect();
    if done.len() != total {
        return Err(ExperimentError::Shards {
            dir: folder.dir().to_path_buf(),
            what: format!("{} of {total} units are missing", total - done.len()),
        });
    }
    cancel::set_phase(cancel::Phase::Writing);
    let mut out = exp.assemble(plan, done);
    if quick {
        K::claims(&mut out)
            .iter_mut()
            .for_each(ClaimResult::shortened);
    }
    let staging = folder.staging()?;
    // a --quick run's figures say on their face that they are a smoke test
    let files = crate::plot::stamped(quick.then_some(SMOKE_TEST), || exp.write(&out, &staging))
        .and_then(|w| folder.finish(&staging, &w, &exp.header().inputs))
        .inspect_err(|_| {
            let _ = std::fs::remove_dir_all(&staging);
        })?;
    Ok(Ran {
        claims: K::claims(&mut out).to_vec(),
        done: exp.done(&out, folder.dir()),
        files,
        quick,
    })
}

/// Merges the journals of shards 1 … N of `exp` in `dir` into its outputs. Refuses, naming
/// them, missing shards, shards of another experiment and units no shard ran. Admitted like a
/// run: what the outputs are assembled from is estimated before any journal is read, and each
/// journal is read a record at a time, each unit taken only from the shard it belongs to.
pub(crate) fn merge_kind<K: Kind>(
    mut exp: K,
    quick: bool,
    dir: &Path,
    (n, max_memory): (u32, Option<u64>),
) -> Result<Ran, ExperimentError> {
    if quick {
        exp.quick();
    }
    let plan = exp.plan();
    super::memory::admit(&exp.header().file, &exp.memory(&plan, 1), 1, max_memory)?;
    let folder = Folder::open(dir, None)?;
    folder.check_inputs(&exp.header().inputs)?;
    let of = assign(&exp, &plan, n);
    let mut results: Vec<Option<K::Done>> = plan.iter().map(|_| None).collect();
    let mut problems = Vec::new();
    for i in 1..=n {
        let path = folder.journal(Some((i, n)), quick);
        let want = journal_header(&exp, quick, &plan, (i, n));
        match journal::open(&path) {
            Ok(None) => problems.push(format!("shard {i}/{n} has no journal ({})", path.display())),
            Err(e) => problems.push(format!(
                "shard {i}/{n}: {e}, so rerun it with --shard {i}/{n} --fresh"
            )),
            Ok(Some((h, mut reader))) => {
                if let Some(what) = h.difference(&want) {
                    problems.push(format!("shard {i}/{n} does not belong: {what}"));
                    continue;
                }
                let mine: Carried = (0..plan.len())
                    .map(|u| if of[u] + 1 == i { vec![u] } else { Vec::new() })
                    .collect();
                let (done, _, _) = take_records::<K::Done>(&mut reader, &mine, plan.len());
                for (u, d) in done {
                    results[u] = Some(d);
                }
            }
        }
    }
    let mut unfinished: Vec<u32> = (0..plan.len())
        .filter(|&u| results[u].is_none())
        .map(|u| of[u] + 1)
        .collect();
    unfinished.sort_unstable();
    unfinished.dedup();
    if problems.is_empty() && !unfinished.is_empty() {
        problems.push(format!(
            "shard(s) {} have not finished (rerun them: they resume from their journals)",
            unfinished
                .iter()
                .map(|s| format!("{s}/{n}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !problems.is_empty() {
        return Err(ExperimentError::Shards {
            dir: dir.to_path_buf(),
            what: problems.join("; "),
        });
    }
    finish(&exp, &plan, results, &folder, quick)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::queueing::Experiment;

    fn fingerprint_of(file: &str, text: &str) -> u64 {
        let exp = Experiment::parse(Path::new(file), text).expect("a valid experiment");
        journal_header(&exp, false, &[], (1, 1)).fingerprint
    }

    #[test]
    fn the_fingerprint_is_the_validated_experiment_not_its_file() {
        let dir = env!("CARGO_MANIFEST_DIR");
        let path = format!("{dir}/experiments/constraints_stability.toml");
        let text = std::fs::read_to_string(&path).unwrap();
        let a = fingerprint_of(&path, &text);
        // the same experiment again: every derived index (hash maps included) rebuilt
        assert_eq!(a, fingerprint_of(&path, &text));
        // from another path, with a comment added: the same experiment
        let moved = format!("# moved\n{text}");
        assert_eq!(
            a,
            fingerprint_of(&format!("{dir}/experiments/x.toml"), &moved)
        );
        // another seed: another experiment
        let reseeded = text.replacen("seed = ", "seed = 1", 1);
        assert_ne!(reseeded, text);
        assert_ne!(a, fingerprint_of(&path, &reseeded));
        // quick is part of it
        let exp = Experiment::parse(Path::new(&path), &text).unwrap();
        assert_ne!(
            journal_header(&exp, false, &[], (1, 1)).fingerprint,
            journal_header(&exp, true, &[], (1, 1)).fingerprint
        );
    }
}
