#!/bin/bash
# cell.sh NET PROFILE [extra overrides]
N=$1; P=$2; shift 2
read PATCH ARGS < <(/work/main/.venv/bin/python /tmp/probe_strat/nets.py $N 2>/dev/null | sed 's/ /\t/' ) 
PATCH=$(/work/main/.venv/bin/python -c "import sys;sys.path.insert(0,'/tmp/probe_strat');from nets import NETS;print(NETS['$N'][0])")
ARGS=$(/work/main/.venv/bin/python -c "import sys;sys.path.insert(0,'/tmp/probe_strat');from nets import NETS;print(NETS['$N'][1])")
R=/tmp/probe_strat/runs
cd /tmp/probe_strat
./run.sh $P $R/${P}${MP:+_$MP}_${N}_full --model.name=$N "--model.args=$ARGS" --data.patch_size=$PATCH "$@" > logs/${P}${MP:+_$MP}_${N}_full.txt 2>&1 || { echo "FULL FAILED"; tail -30 logs/${P}${MP:+_$MP}_${N}_full.txt; exit 1; }
./run.sh $P $R/${P}${MP:+_$MP}_${N}_res --model.name=$N "--model.args=$ARGS" --data.patch_size=$PATCH --resume $R/${P}${MP:+_$MP}_${N}_full/checkpoints/step_2 "$@" > logs/${P}${MP:+_$MP}_${N}_res.txt 2>&1 || { echo "RES FAILED"; tail -30 logs/${P}${MP:+_$MP}_${N}_res.txt; exit 1; }
grep -h "^strategy\|WARN\|warn" logs/${P}${MP:+_$MP}_${N}_full.txt | head -5
tail -2 logs/${P}${MP:+_$MP}_${N}_res.txt
timeout 300 /work/main/.venv/bin/python check.py $R/${P}${MP:+_$MP}_${N}_full --ref $R/${P}${MP:+_$MP}_${N}_res/model --ckpt-export $R/${P}${MP:+_$MP}_${N}_full/checkpoints/step_4 --ckpt-export $R/${P}${MP:+_$MP}_${N}_full/checkpoints/step_2 2>&1 | grep -v Warning | tail -8
