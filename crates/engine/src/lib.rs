//! engine. SKELETON.
