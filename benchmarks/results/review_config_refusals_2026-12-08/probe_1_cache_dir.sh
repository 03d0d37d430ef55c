# bash probe_1_cache_dir.sh > probe_1_cache_dir.txt 2>&1   (after `source env.sh`; PKG=/work/main for main's)
# data.cache_dir forms through `train` (the command line's first look, then train()) and `check --config`: what trains
# must not be refused, what train() refuses must be refused in its words.
cd $T && rm -rf runs caches home tilde_cwd && mkdir -p caches/existing home tilde_cwd
ln -sfn $T/caches/existing caches/link; ln -sfn $T/caches/nowhere caches/dangling; touch caches/afile home/afile
run() { echo "== $*"; s=$(date +%s.%N); (cd ${CWD:-$T} && HOME=$T/home accelerated-seg train --config $T/exp.yaml \
  --train.overwrite=true "$@" 2>&1 | grep -v Warning | tail -2); echo "status ${PIPESTATUS[0]} $(echo "$(date +%s.%N) - $s" | bc) s"; }
run --data.cache_dir=$T/caches/existing
run --data.cache_dir=$T/caches/link
run --data.cache_dir=caches/relative
run --data.cache_dir=$T/caches/dangling
run --data.cache_dir=$T/caches/afile/below
run "--data.cache_dir=~/afile/below"
touch $T/tilde_cwd/'~'
CWD=$T/tilde_cwd run "--data.cache_dir=~/cache"
echo "== check --config with a cache_dir below a file"
sed "s#^data:#data:\n  cache_dir: $T/caches/afile/below#" $T/exp.yaml > $T/exp_cache.yaml
accelerated-seg check --config $T/exp_cache.yaml 2>&1 | tail -2; echo "status ${PIPESTATUS[0]}"
