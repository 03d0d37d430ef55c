# bash walk_7_stops.sh > walk_7_stops.txt 2>&1   (inference.md "Going on after a stop": a predict of 12 cases (the 4
# scans copied under 12 names, case_001 given a NaN voxel) stopped by SIGINT (as Ctrl-C), SIGTERM and SIGUSR1 after
# its third map, its lines and status; then the same command with --continue; a closed pipe)
source "$(dirname "$0")/env.sh"
rm -rf stop_scans && mkdir stop_scans
for i in $(seq -w 0 11); do cp -p scans/case_00$((10#$i % 4)).nii.gz stop_scans/case_0$i.nii.gz; done
python - <<'PY'
import nibabel as nib, numpy as np
i = nib.load("stop_scans/case_001.nii.gz"); a = np.asanyarray(i.dataobj).astype(np.float32); a[3, 3, 3] = np.nan
nib.save(nib.Nifti1Image(a, i.affine, i.header), "stop_scans/case_001.nii.gz")
PY
C="accelerated-seg predict --model runs/fold0/best_model stop_scans/ --output stop_pred/ --tta all"
for sig in INT TERM USR1; do
  rm -rf stop_pred; echo "== $sig after the third map"
  $C > out.txt 2> err.txt & pid=$!
  until [ "$(grep -c wrote out.txt)" -ge 3 ] || ! kill -0 $pid 2>/dev/null; do sleep 0.05; done
  kill -$sig $pid; wait $pid; echo "status $?"
  cat out.txt; echo "-- stderr:"; grep -v Warning err.txt
  ls stop_pred | wc -l; ls -a stop_pred | grep "^\." | grep -v "^\.\.\?$"
  $C --continue 2>&1 | grep -v "^\["; echo "continue status ${PIPESTATUS[0]}"
done
echo "== a closed pipe"
rm -rf stop_pred
$C 2> err.txt | head -2; echo "statuses ${PIPESTATUS[*]}"; echo "-- stderr:"; cat err.txt; ls stop_pred | wc -l
