# bash walk_7b_ctrl_c.sh > walk_7b_ctrl_c.txt 2>&1   (walk_7's SIGINT again: there the predict ran as a background job
# of a script without job control, which bash starts with SIGINT ignored, so the signal did nothing and it ran to the
# end (status 2 for the NaN case), the probe's fault; here with job control on (set -m), as an interactive shell's)
source "$(dirname "$0")/env.sh"
set -m
C="accelerated-seg predict --model runs/fold0/best_model stop_scans/ --output stop_pred/ --tta all"
rm -rf stop_pred; echo "== INT after the third map"
$C > out.txt 2> err.txt & pid=$!
until [ "$(grep -c wrote out.txt)" -ge 3 ] || ! kill -0 $pid 2>/dev/null; do sleep 0.05; done
kill -INT $pid; wait $pid; echo "status $?"
cat out.txt; echo "-- stderr:"; grep -v Warning err.txt
ls stop_pred | wc -l
$C --continue 2>&1 | grep -v "^\["; echo "continue status ${PIPESTATUS[0]}"
