//! Integration tests, one binary with a module per topic.

mod cli;
mod markov;
mod reference;
mod vq;
