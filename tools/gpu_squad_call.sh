#!/bin/bash
# One call of the lent GPU machine for SQuAD (issue 28's parent, issue 30's student), with the
# bundle of tools/gpu_bundle.py carried as `.gpu` (float16 weights, so it fits one call):
#
#   bash tools/gpu_squad_call.sh parent    # MiniLM carried: 2 epochs at LR 2e-4, then 1e-4
#   bash tools/gpu_squad_call.sh student   # a parent carried: 3-layer students (layers 0,2,4),
#                                          # 3 epochs, distil weight 0.5, then 1.0
#
# The first setting runs alone (two processes would time-slice the GPU); the second runs only if
# the first left time for a whole one inside BUDGET seconds (default 500; a device call may run
# 600). Each is scored on the whole dev set there (tools/gpu_squad.py --predict_file). The one
# that ran to its last step with the best F1 comes back in $OUT as float16 pieces of 16 MB
# (model.safetensors.00, .01, ...; `cat` them here), with config.json, bert_config.json, every
# setting's results (results.json) and the logs (log.txt): 7 files, under the 8 a call returns.
#
# Here, the same script on the CPU with 3 steps and a small dev file (the core, under JAX):
#   SMOKE_DEV=dev32.json OUT=/tmp/out PY=.venv-core/bin/python bash tools/gpu_squad_call.sh parent
set -u
MODE=${1:?usage: gpu_squad_call.sh parent|student}
case $MODE in
  parent) FLAG=learning_rate; VALUES="2e-4 1e-4"; ARGS="--num_train_epochs=2" ;;
  student) FLAG=distill_weight; VALUES="0.5 1.0"
           ARGS="--student_layers=0,2,4 --learning_rate=2e-4 --num_train_epochs=3" ;;
  *) echo "gpu_squad_call.sh: mode must be 'parent' or 'student', got '$MODE'."; exit 2 ;;
esac
PY=${PY:-python3}
T=${TMPD:-/tmp/gpu_squad_call}; rm -rf "$T"; mkdir -p "$T/init"
: "${OUT:?set OUT: the folder the results go to}"
if [ -z "${SMOKE_DEV:-}" ]; then
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site \
    .gpu/whl/*.whl || exit 1
  export PYTHONPATH=/tmp/site:$PWD
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
  PREDICT=.gpu/dev-v1.1.json.gz
else
  PREDICT=$SMOKE_DEV; ARGS="$ARGS --num_train_steps=3 --log_every=1"
fi
export KERAS_BACKEND=jax PYTHONUNBUFFERED=1
cat .gpu/part*/model.safetensors.* > "$T/init/model.safetensors"
cp .gpu/part00/*.json .gpu/part00/vocab.txt "$T/init/"
cat .gpu/part*/squad_windows.npz.* > "$T/windows.npz"

train() {  # value, seconds of training allowed
  $PY -m tools.gpu_squad --init_checkpoint="$T/init" --train_windows="$T/windows.npz" \
    --predict_file="$PREDICT" --output_dir="$T/${FLAG}_$1" --$FLAG=$1 $ARGS \
    --save_dtype=float16 --pad_to_multiple_of=128 --max_train_seconds=$2 \
    > "$T/log_${FLAG}_$1.txt" 2>&1
  echo "--$FLAG=$1 finished after $SECONDS s"; tail -n 1 "$T/log_${FLAG}_$1.txt"
}
set -- $VALUES
first=$(( ${BUDGET:-500} - 120 )); [ $first -ge 1 ] || first=1
train "$1" $first
took=$SECONDS
left=$(( ${BUDGET:-500} - took - 60 ))
if [ $left -gt $(( took * 9 / 10 )) ]; then train "$2" $left; fi

tail -n +1 "$T"/log_*.txt > "$OUT/log.txt"
$PY - "$T" "$OUT/results.json" <<'EOF'
import glob, json, os, sys
found = {os.path.basename(os.path.dirname(f)): json.load(open(f))
         for f in glob.glob(sys.argv[1] + "/*/gpu_squad_results.json")}
json.dump(found, open(sys.argv[2], "w"), indent=1)
EOF
best=$($PY - "$OUT/results.json" <<'EOF'
import json, sys
found = json.load(open(sys.argv[1]))
ranked = sorted((r["steps_done"] == r["steps"], r["eval"]["f1"], name) for name, r in found.items())
print(ranked[-1][2] if ranked else "")
EOF
)
[ -n "$best" ] || { echo "no setting finished: see log.txt"; exit 1; }
echo "returned: $best"
cp "$T/$best/config.json" "$T/$best/bert_config.json" "$OUT/"
split -b 16000000 -d "$T/$best/model.safetensors" "$OUT/model.safetensors."
ls -la "$OUT"
