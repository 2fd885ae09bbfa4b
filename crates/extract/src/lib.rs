//! extract. SKELETON.
