#!/usr/bin/env bash
# Needs the 2-epoch parent in runs/squad_minilm_gpu/parent (docs/fine_tuning.md).
# Issue 28 probe: run 7's QAT recipe at a quarter of the rate and half the steps on the 2-epoch parent, scored on the last 10 dev articles.
set -euo pipefail
cd "$(dirname "$0")/../../.."
PY=.venv/bin/python
[ -f runs/dev_last10.json ] || $PY -c "import gzip, json; d = json.load(gzip.open('../shared/data/squad/dev-v1.1.json.gz')); d['data'] = d['data'][-10:]; json.dump(d, open('runs/dev_last10.json', 'w'))"
E=runs/export_squad_full_qat_probe
date
[ -f $E/tflite/squad_qat_int8.tflite ] || $PY -m keras_bert.export.cli --task_name=squad --init_checkpoint=runs/squad_minilm_gpu/parent --export_dir=$E \
  --formats=tflite --quantizations=qat_int8 --calibration_file=../shared/data/squad/train-v1.1-reconstructed.json.gz \
  --qat_steps=300 --num_qat_examples=20000 --qat_learning_rate=5e-6
date
O=runs/qat_probe_score; mkdir -p $O
for i in 0 1; do $PY -m tools.score_tflite_squad --model=$E/tflite/squad_qat_int8.tflite --predict_file=runs/dev_last10.json --output_dir=$O --num_shards=2 --shard=$i --num_threads=1 > $O/shard$i.log 2>&1 & done
wait
$PY -m tools.score_tflite_squad --model=$E/tflite/squad_qat_int8.tflite --predict_file=runs/dev_last10.json --output_dir=$O --num_shards=2
cat $O/eval_results.json; date
