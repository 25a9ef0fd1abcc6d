#!/usr/bin/env bash
# Bit-identity check for engine refactors: run every scenario of a corpus through the engine
# and write each full result JSON; with a reference directory, compare byte for byte.
#   scripts/engine_identity.sh CORPUS_DIR OUT_DIR [REFERENCE_DIR]
# Build the corpus once, from the commit you compare against:
#   cargo run --release -p bufsize-sim --example identity_corpus -- CORPUS_DIR
# (and add any scenario JSON you like, e.g. the examples/ converted by the Python front end).
#
# Or all in one, against a commit (built in a temporary worktree; its corpus generator writes
# the corpus, its engine the reference results, this tree's engine the results compared):
#   scripts/engine_identity.sh --against REV WORK_DIR
# WORK_DIR receives corpus/, ref/ and out/. Set IDENTITY_REF_TARGET to a cargo target directory
# to reuse between calls (the reference build otherwise starts from nothing).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--against" ]; then
  rev=${2:?usage: engine_identity.sh --against REV WORK_DIR}
  work=${3:?usage: engine_identity.sh --against REV WORK_DIR}
  mkdir -p "$work"
  work=$(cd "$work" && pwd)
  tree=$(mktemp -d)
  git worktree add -q --detach "$tree" "$rev"
  trap 'git worktree remove --force "$tree"' EXIT
  target=${IDENTITY_REF_TARGET:-$tree/target}
  (cd "$tree" && CARGO_TARGET_DIR="$target" cargo build --release -q -p bufsize-sim \
    --example dump --example identity_corpus)
  rm -rf "$work/corpus" "$work/ref"
  "$target/release/examples/identity_corpus" "$work/corpus"
  mkdir -p "$work/ref"
  for f in "$work/corpus"/*.json; do
    "$target/release/examples/dump" "$f" > "$work/ref/$(basename "$f")"
  done
  echo "reference: $(git rev-parse --short "$rev"), $(ls "$work/corpus"/*.json | wc -l) scenarios"
  "$PWD/scripts/engine_identity.sh" "$work/corpus" "$work/out" "$work/ref"
  exit
fi
corpus=$1; out=$2; ref=${3:-}
cargo build --release -q -p bufsize-sim --example dump
bin=target/release/examples/dump
mkdir -p "$out"
for f in "$corpus"/*.json; do
  "$bin" "$f" > "$out/$(basename "$f")"
done
echo "ran $(ls "$corpus"/*.json | wc -l) scenarios into $out"
if [ -n "$ref" ]; then
  bad=0
  for f in "$ref"/*.json; do
    cmp -s "$f" "$out/$(basename "$f")" || { echo "DIFFERS: $(basename "$f")"; bad=$((bad+1)); }
  done
  [ "$bad" -eq 0 ] && echo "all $(ls "$ref"/*.json | wc -l) results byte-identical to $ref" || { echo "$bad differ"; exit 1; }
fi
