//! report. SKELETON.
