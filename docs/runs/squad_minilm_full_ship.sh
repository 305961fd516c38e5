#!/usr/bin/env bash
# Issue 28, after squad_minilm_full_run.sh has finished (2 epochs, step 5,600): the int8 files for
# the app from that parent, and every figure the release needs on the whole official dev set.
#   1. the parent in float32 (the int8 files are converted from float32 weights; training's own
#      final prediction is bf16);
#   2. `dynamic_int8` and `qat_int8` (run 7's recipe, docs/lab/export_history.md: 600 QAT steps on 20,000
#      windows, frozen calibrated ranges);
#   3. each file scored by tools.score_tflite_squad (official v1.1 rules; full int8 as two
#      one-thread shares, which is faster on 2 cores than one two-thread process).
# Every step is skipped when its result exists and the scorer resumes from its saved logits, so
# re-running this script continues where a stop left it:
#   nohup docs/runs/squad_minilm_full_ship.sh >> runs/squad_minilm_full/ship_log.txt 2>&1 &
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=.venv/bin/python
# PARENT: run_squad's output_dir, or the Hugging Face folder tools/gpu_squad.py wrote on the
# lent GPU (docs/fine_tuning.md, "On the lent GPU"): PARENT=runs/gpu_parent docs/runs/...
PARENT=${PARENT:-runs/squad_minilm_full/out}
EXPORT=runs/export_squad_full
DATA=../shared/data/squad
test -f "$PARENT/eval_results.json" -o -f "$PARENT/gpu_squad_results.json" || { echo "the parent has not finished: run docs/runs/squad_minilm_full_run.sh (or tools/gpu_squad.py) first"; exit 1; }
INIT=$PARENT/best
test -d "$INIT" || INIT=$PARENT  # a Hugging Face folder is the model itself
git rev-parse HEAD

if [ ! -f runs/squad_minilm_full/float32/eval_results.json ]; then
  date; echo "== float32 prediction of the parent"
  $PY -m keras_bert.cli.run_squad --do_predict --dtype_policy=float32 \
    --init_checkpoint=$INIT --predict_file=$DATA/dev-v1.1.json.gz \
    --max_seq_length=384 --doc_stride=128 --max_query_length=64 --eval_batch_size=64 \
    --output_dir=runs/squad_minilm_full/float32
fi

if [ ! -f $EXPORT/tflite/squad_qat_int8.tflite ]; then
  date; echo "== export: dynamic_int8 and qat_int8"
  $PY -m keras_bert.export.cli --task_name=squad --init_checkpoint=$PARENT --export_dir=$EXPORT \
    --formats=tflite --quantizations=dynamic_int8,qat_int8 \
    --calibration_file=$DATA/train-v1.1-reconstructed.json.gz \
    --qat_steps=600 --num_qat_examples=20000
fi

for variant in qat_int8 dynamic_int8; do
  M=$EXPORT/tflite/squad_$variant.tflite
  O=runs/squad_minilm_full/score_$variant
  mkdir -p $O
  if [ ! -f $O/eval_results.json ]; then
    date; echo "== scoring $M on the whole dev set"
    for i in 0 1; do
      $PY -m tools.score_tflite_squad --model=$M --output_dir=$O --num_shards=2 --shard=$i \
        --num_threads=1 > $O/shard$i.log 2>&1 &
    done
    wait
    $PY -m tools.score_tflite_squad --model=$M --output_dir=$O --num_shards=2
  fi
  cat $O/eval_results.json
done
date; echo "== done"
