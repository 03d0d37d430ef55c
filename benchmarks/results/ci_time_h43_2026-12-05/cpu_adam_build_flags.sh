#!/bin/bash
CF="$(cat /tmp/h43/cc/cflags.txt)"
SRC=/work/main/.venv/lib/python3.11/site-packages/deepspeed/ops/csrc/adam
for extra in "" "-O0 -g0" "-O1 -g0" "-O3 -g0"; do
  for f in cpu_adam cpu_adam_impl; do
    /usr/bin/time -f "extra='$extra' $f cpu_user=%U cpu_sys=%S wall=%e" c++ $CF $extra -c $SRC/$f.cpp -o /tmp/h43/cc/$f.o
  done
done
