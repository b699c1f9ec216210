# Sourced by the scripts that run packlab: sets `bin` to $PACKLAB_BIN if given (so that the tree
# can be rebuilt while a long run goes on), else builds and uses target/release/packlab.
bin=${PACKLAB_BIN:-}
if [ -z "$bin" ]; then
  cargo build --release --quiet
  bin=./target/release/packlab
fi
