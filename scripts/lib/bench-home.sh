# What the live benchmarks (bench-statusline.sh, bench-watch.sh) share: the generated home they
# run on, made once (scripts/gen-corpus.py --size 2G --seed 1) when it is missing, and the
# release build they time.
prepare_bench_home() {
  local corpus=$1
  if [ ! -d "$corpus/.copilot" ]; then
    scripts/gen-corpus.py "$corpus" --size 2G --seed 1
  fi
  cargo build --release --quiet
}
