//! `tessera index --shards N` and checks against the shards (issue 50): the same report as
//! one index of the same documents, from the command line.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use support::{build_index, run, workspace};

#[test]
fn a_sharded_index_checks_as_one_index_from_the_command_line() {
    let tmp = workspace();
    let dir = tmp.path();
    build_index(dir, "one");
    for n in ["2", "3"] {
        let sharded = format!("sharded-{n}");
        run(dir, &["index", "--index", &sharded, "--shards", n, "-c", "library", "--keep-texts", "demo/library"]).ok();
        let citations =
            ["index", "--index", &sharded, "--shards", n, "-c", "citations", "--kind", "citation", "demo/citations"];
        run(dir, &citations).ok();
        for s in 0..n.parse::<usize>().unwrap() {
            assert!(dir.join(&sharded).join(format!("shard-{s:03}-of-00{n}")).join("MANIFEST").is_file());
        }
        let one = run(dir, &["check", "--index", "one", "--format", "json", "demo/thesis.txt"]).ok();
        let many = run(dir, &["check", "--index", &sharded, "--format", "json", "demo/thesis.txt"]).ok();
        assert_eq!(many, one, "{n} shards");
        assert!(one.contains("honey-bees"), "the thesis finds its sources");
        let stats = support::json(&run(dir, &["stats", "--index", &sharded, "--format", "json"]).ok());
        assert_eq!(stats["shards"], n.parse::<u64>().unwrap());
        let docs: u64 = stats["collections"].as_array().unwrap().iter().map(|c| c["docs"].as_u64().unwrap()).sum();
        assert_eq!(docs, 4);
    }
    // What needs one index is refused on the shards, naming what to do.
    let plain = run(dir, &["index", "--index", "sharded-2", "demo/thesis.txt"]);
    assert_ne!(plain.code, Some(0));
    assert!(plain.stderr.contains("holds the shards of an index of 2 shards"), "{}", plain.stderr);
    let other = run(dir, &["index", "--index", "sharded-2", "--shards", "3", "demo/thesis.txt"]);
    assert!(other.stderr.contains("not 3: an index keeps its number of shards"), "{}", other.stderr);
    let optimize = run(dir, &["optimize", "--index", "sharded-2"]);
    assert!(optimize.stderr.contains("run it on a shard's folder"), "{}", optimize.stderr);
    // One shard's folder is an ordinary index.
    run(dir, &["check", "--index", "sharded-2/shard-001-of-002", "--format", "json", "demo/thesis.txt"]).ok();
}
