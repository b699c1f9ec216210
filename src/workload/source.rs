//! The per-run job source: common random numbers across policies.
//!
//! A run's jobs depend only on its seed, never on the policy: arrival counts, sizes and service
//! times come from three separate streams, so every policy at a (load, replication) point sees
//! exactly the same jobs, and changing the service law does not change the sizes. The arrival
//! stream is drawn batch by batch (the slot of the next batch and its size), so the slot loop
//! can skip the slots in which nothing arrives.
//!
//! [`JobSource`] draws each batch's jobs one batch ahead, when it hands out the batch before.
//! Each stream is still drawn in the same order, so the jobs are the same; what changes is
//! when they are written to memory. A job written field by field and read back whole at once
//! (as copying it does) cannot be forwarded from the processor's store buffer, and the read
//! waits for the writes to reach the cache. Drawn a batch ahead, they are there long before.

use super::{Arrivals, ClassMix, ServiceLaw, SizeLaw};
use crate::model::Job;
use crate::rng::{Stream, Streams};

/// A source of jobs for the slot loop: the batch A(t) of every slot, in arrival order.
pub trait Source<J> {
    /// Appends the batch of slot `t` to `out`.
    fn batch(&mut self, t: u64, out: &mut Vec<J>);
    /// Jobs arrived so far.
    fn arrived(&self) -> u64;
    /// Sum of the sizes of the jobs arrived so far (first resource), `Size` units.
    fn arrived_work(&self) -> u128;
    /// No job arrives before this slot (after the batches handed out so far): the slot loop
    /// skips the slots before it when nothing else happens. `u64::MAX`: no more jobs; the
    /// default 0 says nothing, and every slot is simulated.
    fn next_arrival(&self) -> u64 {
        0
    }
}

/// A source borrowed for a while (wrapped by another source, then read again).
impl<J, S: Source<J> + ?Sized> Source<J> for &mut S {
    fn batch(&mut self, t: u64, out: &mut Vec<J>) {
        (**self).batch(t, out)
    }
    fn arrived(&self) -> u64 {
        (**self).arrived()
    }
    fn arrived_work(&self) -> u128 {
        (**self).arrived_work()
    }
    fn next_arrival(&self) -> u64 {
        (**self).next_arrival()
    }
}

/// The next slot with arrivals and its batch size, drawn one batch ahead from the arrival
/// stream ([`Arrivals::next_batch`]).
#[derive(Clone, Debug)]
pub struct ArrivalClock {
    arrivals: Arrivals,
    /// The next slot with arrivals (`u64::MAX`: none) and its batch size.
    slot: u64,
    n: u32,
}

impl ArrivalClock {
    /// Draws the first batch.
    pub fn new(arrivals: Arrivals, rng: &mut impl rand::Rng) -> Self {
        let (slot, n) = arrivals.next_batch(0, rng).unwrap_or((u64::MAX, 0));
        ArrivalClock { arrivals, slot, n }
    }

    /// The next slot with arrivals (`u64::MAX`: none).
    #[inline]
    pub fn next_slot(&self) -> u64 {
        self.slot
    }

    /// The number of jobs arriving in the next slot with arrivals.
    #[inline]
    pub fn next_count(&self) -> u32 {
        self.n
    }

    /// The number of jobs arriving in slot `t` (0 unless `t` is the next slot with arrivals;
    /// slots must be asked in increasing order, none skipped past [`Self::next_slot`]).
    #[inline]
    pub fn take(&mut self, t: u64, rng: &mut impl rand::Rng) -> u32 {
        if self.slot != t {
            debug_assert!(
                self.slot > t,
                "slot {} with arrivals was skipped",
                self.slot
            );
            return 0;
        }
        let n = self.n;
        (self.slot, self.n) = self
            .arrivals
            .next_batch(t + 1, rng)
            .unwrap_or((u64::MAX, 0));
        n
    }
}

/// Draws the batch A(t) of every slot, with each job's size and service time.
#[derive(Clone, Debug)]
pub struct JobSource {
    sizes: SizeLaw,
    service: ServiceLaw,
    clock: ArrivalClock,
    streams: Streams,
    /// Jobs handed out so far, and the sum of their sizes.
    next_id: u64,
    work: u128,
    /// The jobs of the next slot with arrivals (the clock's next slot), drawn ahead, and the
    /// sum of their sizes.
    ahead: Vec<Job>,
    ahead_work: u128,
    /// The classes of a workload with classes, and the stream a job's class is drawn from
    /// (its size and service then come from the class's laws, on the usual streams).
    classes: Option<Box<(ClassMix, rand_pcg::Pcg64Mcg)>>,
}

impl JobSource {
    /// Jobs of the classes `mix`: each job's class drawn from its own stream of `run_seed`,
    /// then its size and service time from the class's laws on the sizes' and the service's
    /// streams; arrival counts as in [`JobSource::new`]. Every job's [`Job::kind`] is its
    /// class.
    pub fn with_classes(mix: ClassMix, arrivals: Arrivals, run_seed: u64) -> Self {
        let service = mix.pooled_service();
        let sizes = mix.classes()[0].sizes.clone();
        let mut source = JobSource::unstarted(sizes, service, arrivals, run_seed);
        source.classes = Some(Box::new((mix, Stream::JobClass.rng(run_seed))));
        source.draw_ahead();
        source
    }

    /// Jobs with sizes from `sizes`, service times from `service` and arrival counts from
    /// `arrivals`, each drawn from its own stream of `run_seed`.
    pub fn new(sizes: SizeLaw, service: ServiceLaw, arrivals: Arrivals, run_seed: u64) -> Self {
        let mut source = JobSource::unstarted(sizes, service, arrivals, run_seed);
        source.draw_ahead();
        source
    }

    /// The source before its first batch is drawn.
    fn unstarted(sizes: SizeLaw, service: ServiceLaw, arrivals: Arrivals, run_seed: u64) -> Self {
        let mut streams = Streams::new(run_seed);
        JobSource {
            sizes,
            service,
            clock: ArrivalClock::new(arrivals, &mut streams.arrivals),
            streams,
            next_id: 0,
            work: 0,
            ahead: Vec::new(),
            ahead_work: 0,
            classes: None,
        }
    }

    /// Draws the jobs of the clock's next slot into `ahead` (empty before), numbered after the
    /// jobs handed out.
    #[inline]
    fn draw_ahead(&mut self) {
        let (t, n) = (self.clock.next_slot(), self.clock.next_count());
        self.ahead_work = 0;
        if self.classes.is_some() {
            self.draw_classes_ahead(t, n);
            return;
        }
        for k in 0..n as u64 {
            let size = self.sizes.sample(&mut self.streams.sizes);
            let service = self.service.sample(&mut self.streams.service);
            self.ahead.push(Job {
                id: self.next_id + k,
                size,
                service,
                arrival: t,
                class: 0,
                kind: 0,
            });
            self.ahead_work += size.0 as u128;
        }
    }

    /// [`Self::draw_ahead`] for a workload with classes (out of line).
    #[inline(never)]
    fn draw_classes_ahead(&mut self, t: u64, n: u32) {
        let (mix, class_rng) = &mut **self.classes.as_mut().expect("classes");
        for k in 0..n as u64 {
            let (kind, size, service) = mix.sample(
                class_rng,
                &mut self.streams.sizes,
                &mut self.streams.service,
            );
            self.ahead.push(Job {
                id: self.next_id + k,
                size,
                service,
                arrival: t,
                class: 0,
                kind,
            });
            self.ahead_work += size.0 as u128;
        }
    }
}

impl Source<Job> for JobSource {
    fn arrived(&self) -> u64 {
        self.next_id
    }

    fn arrived_work(&self) -> u128 {
        self.work
    }

    #[inline]
    fn next_arrival(&self) -> u64 {
        self.clock.next_slot()
    }

    /// Appends the batch of slot `t` to `out` (in arrival order).
    #[inline]
    fn batch(&mut self, t: u64, out: &mut Vec<Job>) {
        let n = self.clock.take(t, &mut self.streams.arrivals);
        if n == 0 {
            return;
        }
        self.next_id += n as u64;
        self.work += self.ahead_work;
        if out.is_empty() {
            std::mem::swap(out, &mut self.ahead);
        } else {
            out.append(&mut self.ahead);
        }
        self.draw_ahead();
    }
}
