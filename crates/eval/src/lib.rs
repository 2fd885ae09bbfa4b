//! eval. SKELETON.
