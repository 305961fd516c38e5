#!/bin/bash
# One call of the lent GPU machine for the SQuAD column of issue 29's downstream proof
# (experiments/downstream_proof.py): every seed of both arms, the pretrained encoder and a random
# init of its shape, fine-tuned by tools/gpu_squad.py under JAX and scored on the whole dev set.
# On 2 cores the six runs take about 3 hours; here they run side by side in minutes.
#
# Here first (the seeded subsets of run_squad --max_train_examples --random_seed, tokenized here):
#   .venv/bin/python -m tools.gpu_bundle --output_dir=.gpu_proof --init_checkpoint=<HF folder> \
#       --carry_weights=false --squad_train_examples=20000 --squad_seeds=0,1,2 \
#       --squad_max_seq_length=128 --squad_doc_stride=64
# then the device tool, carrying [".gpu_proof"] (the HF folder must travel with the tree: tracked):
#   INIT=<HF folder> OUT=$OUT bash tools/gpu_proof_call.sh
# and here, unpack what came back and let the study read it:
#   mkdir -p runs/downstream_proof_gpu && tar xzf <files_at>/proof.tgz -C runs/downstream_proof_gpu
#   .venv/bin/python -m experiments.downstream_proof ... --imported_runs=squad:runs/downstream_proof_gpu
#
# Settings are the study's for SQuAD (LR 5e-4, 2 epochs, batch 32, 10 % warm-up, bf16, windows
# of SEQ=128 and STRIDE=64); each run stops training at BUDGET - 150 seconds and is still scored
# (its results say how many steps ran; the study refuses a run that stopped short).
# ARMS="pretrained" runs one arm only (the random arm of an equal-shape study is reused:
# experiments/downstream_proof.py --random_arm_from).
# On the CPU with 3 steps and a small dev file (the core, under JAX):
#   SMOKE_DEV=dev32.json INIT=<HF folder> OUT=/tmp/out PY=.venv-core/bin/python bash tools/gpu_proof_call.sh
set -u
: "${OUT:?set OUT: the folder the results go to}"
: "${INIT:?set INIT: the pretrained Hugging Face folder (it travels with the tree)}"
B=${BUNDLE:-.gpu_proof}
PY=${PY:-python3}
SEEDS=${SEEDS:-"0 1 2"}
T=${TMPD:-/tmp/gpu_proof_call}; rm -rf "$T"; mkdir -p "$T"
[ -f "$INIT/config.json" ] || { echo "gpu_proof_call.sh: $INIT has no config.json"; exit 2; }
if [ -z "${SMOKE_DEV:-}" ]; then
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site \
    "$B"/whl/*.whl || exit 1
  export PYTHONPATH=/tmp/site:$PWD
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
  PREDICT=$B/dev-v1.1.json.gz; EXTRA=""
else
  # bf16 only where this CPU has bf16 units: auto picks float32 on, say, an AVX2-only Zen 3.
  PREDICT=$SMOKE_DEV; EXTRA="--num_train_steps=3 --log_every=1 --dtype_policy=auto"
fi
# Six processes share the GPU: none may take most of its memory up front.
export KERAS_BACKEND=${KERAS_BACKEND:-jax} PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
for seed in $SEEDS; do
  cat "$B"/part*/squad_windows_seed$seed.npz.* > "$T/windows_seed$seed.npz" || exit 1
done
for arm in ${ARMS:-pretrained random}; do
  for seed in $SEEDS; do
    flag=""; [ $arm = random ] && flag=--random_init
    $PY -m tools.gpu_squad --init_checkpoint="$INIT" $flag \
      --train_windows="$T/windows_seed$seed.npz" --predict_file="$PREDICT" \
      --output_dir="$T/${arm}_seed$seed" --random_seed=$seed --learning_rate=${LR:-5e-4} \
      --num_train_epochs=${EPOCHS:-2} --train_batch_size=32 --max_seq_length=${SEQ:-128} \
      --doc_stride=${STRIDE:-64} --pad_to_multiple_of=32 --save_dtype=float16 \
      --max_train_seconds=$(( ${BUDGET:-540} - 150 )) $EXTRA > "$T/log_${arm}_seed$seed.txt" 2>&1 &
  done
done
wait
echo "all runs ended after $SECONDS s"
failed=0
for arm in ${ARMS:-pretrained random}; do
  for seed in $SEEDS; do
    if [ ! -f "$T/${arm}_seed$seed/gpu_squad_results.json" ]; then
      echo "${arm}_seed$seed failed:"; tail -n 3 "$T/log_${arm}_seed$seed.txt"; failed=1
    fi
  done
done
(cd "$T" && tar czf "$OUT/proof.tgz" log_*.txt $(ls */gpu_squad_results.json */predictions.json 2>/dev/null))
$PY - "$T" <<'EOF'
import glob, json, os, sys
for f in sorted(glob.glob(sys.argv[1] + "/*/gpu_squad_results.json")):
    r = json.load(open(f))
    print(os.path.basename(os.path.dirname(f)), f"steps {r['steps_done']}/{r['steps']}",
          f"{r['train_seconds']} s", "F1", round(r["eval"]["f1"], 2), "EM",
          round(r["eval"]["exact_match"], 2))
EOF
ls -la "$OUT"
exit $failed
