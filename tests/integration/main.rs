//! Integration tests, one binary with a module per topic.

mod cli;
mod figures;
mod markov;
mod reference;
mod regions;
mod vq;
