//! Helpers shared by this crate's unit tests.

/// splitmix64's finalizer: spreads test keys over the whole 64-bit range, reproducibly.
pub(crate) use tessera_test_support::splitmix as mix;
