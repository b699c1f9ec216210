//! A registered policy that breaks the model's rules is named in an error; the process goes on.

use std::path::Path;

use crate::experiment::ExperimentError;
use crate::experiment::queueing::{Experiment, execute};
use crate::model::{Job, ServerId};
use crate::policy::{
    ParamError, Policy, PolicyEntry, PolicyParams, PolicySpec, SlotView, registry::Registry,
};
use crate::sim::Cluster;
use crate::workload::SizeLaw;

/// Places every waiting job on `server`, whether it fits or exists.
struct Careless {
    server: ServerId,
    queue: Vec<Job>,
}

impl Policy for Careless {
    fn enqueue(&mut self, job: Job) {
        self.queue.push(job);
    }
    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>) {
        for job in self.queue.drain(..) {
            cluster.place(self.server, &job, view.now);
        }
    }
    fn waiting(&self) -> usize {
        self.queue.len()
    }
}

/// First come, first fit, honestly placed, but it says no job waits.
struct Liar {
    queue: std::collections::VecDeque<Job>,
}

impl Policy for Liar {
    fn enqueue(&mut self, job: Job) {
        self.queue.push_back(job);
    }
    fn schedule(&mut self, cluster: &mut Cluster, view: SlotView<'_>) {
        while let Some(job) = self.queue.front() {
            let Some(server) =
                (0..cluster.servers() as ServerId).find(|&i| job.size <= cluster.free(i))
            else {
                break;
            };
            let job = self.queue.pop_front().expect("a head");
            cluster.place(server, &job, view.now);
        }
    }
    fn waiting(&self) -> usize {
        0
    }
}

fn liar(_: &PolicyParams<'_>, _: &SizeLaw) -> Result<PolicySpec, ParamError> {
    Ok(PolicySpec::new("", |_| Liar {
        queue: Default::default(),
    }))
}

fn overfill(_: &PolicyParams<'_>, _: &SizeLaw) -> Result<PolicySpec, ParamError> {
    Ok(PolicySpec::new("", |_| Careless {
        server: 0,
        queue: Vec::new(),
    }))
}

fn nowhere(_: &PolicyParams<'_>, _: &SizeLaw) -> Result<PolicySpec, ParamError> {
    Ok(PolicySpec::new("", |servers| Careless {
        server: servers as ServerId + 5,
        queue: Vec::new(),
    }))
}

#[test]
fn a_policy_that_breaks_the_rules_is_named_and_nothing_panics() {
    let policies = Registry::builtin()
        .with(PolicyEntry::new("test-overfill", "overfills", overfill))
        .and_then(|r| r.with(PolicyEntry::new("test-nowhere", "no such server", nowhere)))
        .and_then(|r| r.with(PolicyEntry::new("test-liar", "says no job waits", liar)))
        .unwrap();
    for (name, words) in [
        ("test-overfill", "on server 0 with free"),
        ("test-nowhere", "index out of bounds"),
        // at load 0.5 the queue is empty at the run's end: only a check while it runs sees it
        ("test-liar", "jobs not conserved"),
    ] {
        let text = format!(
            "name = \"m\"\n[cluster]\nservers = 3\n[workload]\n\
             sizes = {{ dist = \"uniform\", low = 0.4, high = 0.9 }}\n\
             service = {{ dist = \"geometric\", mean = 10.0 }}\n[run]\nslots = 10_000\n\
             replications = 2\n[sweep]\nload = [0.5]\n[[policy]]\nname = \"{name}\"\n"
        );
        let exp = Experiment::parse_with(Path::new("m.toml"), &text, &policies).unwrap();
        match execute(&exp, Some(2)) {
            Err(e @ ExperimentError::Policy { .. }) => {
                let m = e.to_string();
                assert!(m.contains(&format!("policy \"{name}\"")), "{m}");
                assert!(m.contains(words), "{m}");
            }
            other => panic!("{name}: expected the policy named, got {:?}", other.err()),
        }
    }
}
