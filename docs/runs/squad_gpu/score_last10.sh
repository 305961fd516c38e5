#!/usr/bin/env bash
# Scores a SQuAD .tflite on the last 10 dev articles (1,988 questions) as the apps run it
# (XNNPACK), in two one-thread shards, and prints the official v1.1 figures.
#   docs/runs/squad_gpu/score_last10.sh MODEL.tflite OUTPUT_DIR
set -euo pipefail
cd "$(dirname "$0")/../../.."
PY=.venv/bin/python
MODEL=$1; O=$2; mkdir -p "$O"
if [ ! -f runs/dev_last10.json ]; then
  $PY -c "import gzip, json; d = json.load(gzip.open('../shared/data/squad/dev-v1.1.json.gz')); d['data'] = d['data'][-10:]; json.dump(d, open('runs/dev_last10.json.tmp', 'w'))"
  mv runs/dev_last10.json.tmp runs/dev_last10.json
fi
for i in 0 1; do $PY -m tools.score_tflite_squad --model="$MODEL" --predict_file=runs/dev_last10.json --output_dir="$O" --num_shards=2 --shard=$i --num_threads=1 > "$O/shard$i.log" 2>&1 & done
wait
$PY -m tools.score_tflite_squad --model="$MODEL" --predict_file=runs/dev_last10.json --output_dir="$O" --num_shards=2
cat "$O/eval_results.json"; date
