# cd /tmp/r120 && PYTHONPATH=/tmp/r120/main_copy bash .../probe_6_run_folder.sh > probe_6_run_folder.txt 2>&1   (main)
# cd /tmp/r120 && PYTHONPATH=/tmp/wt_r120 bash .../probe_6_run_folder.sh > probe_6_run_folder_after.txt 2>&1
# h136's Left: a run's folder as --model beside a model folder among the images; then the command it is told, run
export PATH=/work/main/.venv/bin:$PATH OMP_NUM_THREADS=1
rm -rf o6
for cmd in "--model output/demo output/demo/best_model scans/" "--model output/demo output/demo/model scans/" \
           "--model runs/brats2 output/demo/best_model scans/" "--model output/demo/best_model output/demo scans/"; do
  echo "== accelerated-seg predict $cmd --output o6 --tta"
  said=$(accelerated-seg predict $cmd --output o6 --tta 2>&1); st=$?; echo "$said"; echo "[status $st]"
done
said=$(accelerated-seg predict --model output/demo output/demo/best_model scans/ --output o6 2>&1)
told=$(echo "$said" | sed -n 's/.*(accelerated-seg \(predict .*\))$/\1/p; s/.*e\.g\. accelerated-seg \(predict .*\)$/\1/p')
echo "== the command told: accelerated-seg $told"
accelerated-seg $told; echo "[status $?]"
