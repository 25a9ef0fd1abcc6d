#!/usr/bin/env bash
# Bit-identity check for engine refactors: run every scenario of a corpus through the engine
# and write each full result JSON; with a reference directory, compare byte for byte.
#   scripts/engine_identity.sh CORPUS_DIR OUT_DIR [REFERENCE_DIR]
# Build the corpus once, from the commit you compare against:
#   cargo run --release -p bufsize-sim --example identity_corpus -- CORPUS_DIR
# (and add any scenario JSON you like, e.g. the examples/ converted by the Python front end).
set -euo pipefail
corpus=$1; out=$2; ref=${3:-}
cd "$(dirname "$0")/.."
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
