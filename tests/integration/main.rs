//! Integration tests, one binary with a module per topic.

mod cli;
mod constraints_sim;
mod delay;
mod docs;
mod fuzz;
mod hostile;
mod hostile_files;
mod hostile_round3;
mod hostile_round4;
mod journal;
mod layers;
mod limits;
mod msj;
mod multi;
mod numa_sim;
mod packing;
mod quoted;
mod reference;
mod replay;
mod results_version;
mod skipping;
mod sourced;
mod traces;
mod tutorial;
mod util;
mod vq;
