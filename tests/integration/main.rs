//! Integration tests, one binary with a module per topic.

mod calibration;
mod cli;
mod constraints_sim;
mod docs;
mod figures;
mod fuzz;
mod hostile;
mod hostile_files;
mod journal;
mod markov;
mod multi;
mod numa_sim;
mod packing;
mod reference;
mod regions;
mod replay;
mod skipping;
mod traces;
mod util;
mod vq;
