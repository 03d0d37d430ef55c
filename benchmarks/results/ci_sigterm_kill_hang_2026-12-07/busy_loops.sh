# Sourced by loaded.sh and pytest_loop.sh: busy_loops N starts N busy loops (python3 -c "while True: pass") beside
# the script, each ended by its own id as the script ends.
busy_loops() {
  loops=()
  for _ in $(seq "$1"); do
    python3 -c "while True: pass" &
    loops+=($!)
  done
  trap '[ ${#loops[@]} -gt 0 ] && kill "${loops[@]}"' EXIT
}
