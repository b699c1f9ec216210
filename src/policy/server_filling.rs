//! ServerFilling (Grosof, Harchol-Balter and Scheller-Wolf, "New stability results for
//! multiserver-job models via product-form saturated systems", SIGMETRICS 2022 /
//! "ServerFilling: a better approach to packing multiserver jobs", 2022), preemptive, on one
//! server whose job sizes are powers of two of it (1/2, 1/4, …, one core of a machine of 2^m
//! cores).
//!
//! At step 3 of every slot: M is the shortest prefix of every job present (waiting, preempted
//! or in service), in arrival order, whose sizes add up to at least one server (or all of them
//! when they add up to less). M's jobs are served largest first (ties: the earliest) while they
//! fit; every other job in service is preempted (preempt-resume: it keeps the service it has
//! had). With power-of-two sizes the largest-first packing of a set adding up to at least one
//! fills the server exactly, so the server is full whenever the work present is at least one
//! server: ServerFilling is throughput-optimal, its stability limit ρ*.
//!
//! Preemptions first (in arrival order), then starts (in arrival order). The jobs in service
//! are always among M's (M only grows as jobs leave or arrive), so a slot with an event costs
//! O(|M| log |M|), |M| at most the number of the smallest jobs that fill the server.

use std::collections::VecDeque;

use super::entry::PolicyEntry;
use super::params::ParamError;
use super::{Policy, PolicySpec, SlotView};
use crate::model::{Job, Size};
use crate::sim::{Cluster, Violation};
use crate::workload::SizeLaw;

/// ServerFilling in experiment files.
pub(crate) const SERVER_FILLING: PolicyEntry = PolicyEntry::new(
    "server-filling",
    "ServerFilling (preemptive; one server, sizes powers of two of it): the shortest prefix of \
     the jobs present adding up to a server is served largest first",
    parse,
)
.max_servers(1)
.colour((255, 111, 0))
.reference(super::plain_msj::server_filling);

fn parse(_: &super::PolicyParams<'_>, sizes: &SizeLaw) -> Result<PolicySpec, ParamError> {
    super::msj_keys::powers_of_two(sizes)?;
    Ok(PolicySpec::new("", ServerFilling::new))
}

/// A job present: waiting (its `service` what it still needs) or in service until `due`.
#[derive(Clone, Copy, Debug)]
struct Present {
    job: Job,
    running: bool,
    /// The slot it leaves at step 1 of, when running.
    due: u64,
}

/// ServerFilling on one server.
#[derive(Clone, Debug)]
pub struct ServerFilling {
    present: VecDeque<Present>,
    waiting: usize,
    /// How many of the first jobs present M held at the last pass (every job in service is
    /// among them).
    m_len: usize,
    /// Scratch: the positions of M, largest first.
    order: Vec<usize>,
}

impl ServerFilling {
    /// ServerFilling for one server (`servers` must be 1: the experiment file's validation
    /// refuses more, and the policy panics on a larger cluster).
    pub fn new(servers: usize) -> Self {
        assert!(
            servers == 1,
            "server-filling runs on one server, not {servers}"
        );
        ServerFilling {
            present: VecDeque::new(),
            waiting: 0,
            m_len: 0,
            order: Vec::new(),
        }
    }

    /// The length of M, and which of its jobs are served (flags by position in M).
    fn choose(&mut self) -> (usize, Vec<bool>) {
        let mut sum = 0u64;
        let mut len = 0;
        for p in &self.present {
            if sum >= Size::UNIT {
                break;
            }
            sum += p.job.size.0;
            len += 1;
        }
        self.order.clear();
        self.order.extend(0..len);
        let present = &self.present;
        self.order
            .sort_by_key(|&k| (std::cmp::Reverse(present[k].job.size), k));
        let mut free = Size::UNIT;
        let mut served = vec![false; len];
        for &k in &self.order {
            let s = self.present[k].job.size.0;
            if s <= free {
                free -= s;
                served[k] = true;
            }
        }
        (len, served)
    }
}

impl Policy for ServerFilling {
    fn enqueue(&mut self, job: Job) {
        self.present.push_back(Present {
            job,
            running: false,
            due: 0,
        });
        self.waiting += 1;
    }

    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>) {
        let now = view.now;
        // the jobs that left at step 1 (all among the first m_len)
        if !view.departed.is_empty() {
            let mut k = 0;
            let mut end = self.m_len.min(self.present.len());
            while k < end {
                let p = self.present[k];
                if p.running && p.due <= now {
                    self.present.remove(k);
                    end -= 1;
                } else {
                    k += 1;
                }
            }
        }
        let (len, served) = self.choose();
        self.m_len = len;
        for (p, &on) in self.present.iter_mut().take(len).zip(&served) {
            if p.running && !on {
                let (_, job) = cluster.preempt(p.job.id, now);
                p.job = job;
                p.running = false;
                self.waiting += 1;
            }
        }
        for (p, &on) in self.present.iter_mut().take(len).zip(&served) {
            if !p.running && on {
                cluster.place(0, &p.job, now);
                p.running = true;
                p.due = now + p.job.service as u64;
                self.waiting -= 1;
            }
        }
    }

    fn waiting(&self) -> usize {
        self.waiting
    }

    /// Nothing changes until a job leaves or arrives.
    fn idle(&self) -> bool {
        true
    }

    fn preemptive(&self) -> bool {
        true
    }

    fn check(&self, _cluster: &Cluster) -> Result<(), Violation> {
        let mut me = self.clone();
        let (len, served) = me.choose();
        let running_beyond = self.present.iter().skip(len).any(|p| p.running);
        let differs = (0..len).any(|k| self.present[k].running != served[k]);
        if running_beyond || differs {
            return Err(Violation(
                "ServerFilling serves other jobs than M's largest first".into(),
            ));
        }
        Ok(())
    }
}
