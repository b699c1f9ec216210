//! Whole queueing experiments run in memory, checked against theory: the verdict's
//! calibration at exactly known limits, the paper's Fig. 3 claims, and mean queues against
//! exactly solved Markov chains.

mod calibration;
mod figures;
mod markov;
mod misbehaving;
mod msj;
mod region_map;
