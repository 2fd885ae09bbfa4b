pub mod bombs;
pub mod fixtures;
