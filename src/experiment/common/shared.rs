//! A value that many units of a plan share (a size law, a trace, a table of constraint
//! classes), held once and known by its fingerprint.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use serde::{Serialize, Serializer};

/// A value shared by the units of a plan: held once ([`Arc`]) and fingerprinted once, when it
/// is made. Serialised, it writes its fingerprint only, so that a unit's identity (the
/// fingerprint of the unit's serialisation) costs the same whatever the size of what it
/// shares, and two units share a value exactly when its fingerprints agree.
pub(crate) struct Shared<T> {
    value: Arc<T>,
    print: u64,
}

impl<T: Serialize> Shared<T> {
    /// Shares `value`, fingerprinting it now.
    pub(crate) fn new(value: T) -> Self {
        let print = crate::experiment::journal::fingerprint(&value);
        Shared {
            value: Arc::new(value),
            print,
        }
    }
}

impl<T: Serialize + Clone> Shared<T> {
    /// A shared copy of this value changed by `f` (fingerprinted anew).
    pub(crate) fn edited(&self, f: impl FnOnce(&mut T)) -> Self {
        let mut v = (*self.value).clone();
        f(&mut v);
        Shared::new(v)
    }
}

impl<T> Shared<T> {
    /// The value's own [`Arc`], for what keeps it beyond the plan (a run's cluster).
    pub(crate) fn arc(&self) -> Arc<T> {
        Arc::clone(&self.value)
    }
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared {
            value: Arc::clone(&self.value),
            print: self.print,
        }
    }
}

impl<T> Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T> AsRef<T> for Shared<T> {
    fn as_ref(&self) -> &T {
        &self.value
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        self.print == other.print
    }
}

impl<T: fmt::Debug> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.value.fmt(f)
    }
}

impl<T> Serialize for Shared<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.print.serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shared_value_serialises_as_its_fingerprint() {
        let big: Vec<u64> = (0..100_000).collect();
        let a = Shared::new(big.clone());
        let b = Shared::new(big);
        assert_eq!(a, b);
        assert_eq!(a.print, crate::experiment::journal::fingerprint(&*a));
        // a unit holding it is as cheap to fingerprint as one holding a number
        assert!(postcard::to_allocvec(&(7u8, &a)).unwrap().len() <= 11);
        let c = a.edited(|v| v[0] = 1);
        assert_ne!(a, c);
        assert_eq!(a[5], 5);
    }
}
