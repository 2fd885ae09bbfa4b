#!/bin/sh
# 200 small `tessera index` runs into one index against one run of the same files:
# segments after the merges, `verify`, and check latency of one suspect on each.
#
#   bench/index_runs.sh [TESSERA] [WORK_DIR] [RUNS] [DOCS_PER_RUN]
#
# Defaults: target/release/tessera, /tmp/tessera-index-runs, 200 runs, 25 documents of
# 400 words each per run. Prints the figures docs/performance.md quotes.
set -eu
TESSERA=${1:-target/release/tessera}
WORK=${2:-/tmp/tessera-index-runs}
RUNS=${3:-200}
PER_RUN=${4:-25}
rm -rf "$WORK"
mkdir -p "$WORK/docs"

# Documents and a suspect that borrows a passage from every 50th document.
python3 - "$WORK" "$RUNS" "$PER_RUN" <<'EOF'
import os, random, sys
work, runs, per_run = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(17)
vocab = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9))) for _ in range(20000)]
texts = []
for r in range(runs):
    d = os.path.join(work, "docs", f"run{r:03}")
    os.makedirs(d)
    for k in range(per_run):
        words = [rng.choice(vocab) for _ in range(400)]
        text = " ".join(" ".join(words[i:i + 12]) + "." for i in range(0, 400, 12))
        texts.append(text)
        with open(os.path.join(d, f"doc{k:02}.txt"), "w") as f:
            f.write(text)
parts = []
for i in range(0, len(texts), 50):
    parts.append(" ".join(texts[i].split()[100:220]))
    parts.append(" ".join(rng.choice(vocab) for _ in range(150)) + ".")
with open(os.path.join(work, "suspect.txt"), "w") as f:
    f.write("\n\n".join(parts))
EOF

segments() {
    "$TESSERA" stats --index "$1" --format json | python3 -c \
        'import json,sys; print(sum(c["segments"] for c in json.load(sys.stdin)["collections"]))'
}

start=$(date +%s.%N)
for d in "$WORK"/docs/run*; do
    "$TESSERA" -q index --index "$WORK/runs" -c lib "$d" > /dev/null
done
end=$(date +%s.%N)
echo "runs: $RUNS index runs in $(echo "$end - $start" | bc) s, $(segments "$WORK/runs") segments"
"$TESSERA" verify --index "$WORK/runs"

start=$(date +%s.%N)
"$TESSERA" -q index --index "$WORK/one" -c lib "$WORK/docs" > /dev/null
end=$(date +%s.%N)
echo "one run: $(echo "$end - $start" | bc) s, $(segments "$WORK/one") segments"

echo "check on the index of $RUNS runs:"
"$TESSERA" bench check --index "$WORK/runs" "$WORK/suspect.txt"
echo "check on the index of one run:"
"$TESSERA" bench check --index "$WORK/one" "$WORK/suspect.txt"
