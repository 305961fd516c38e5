#!/usr/bin/env bash
# Issue 29: which model size fits the 12 CPU-hour budget? Each BertConfig preset of SIZES
# (default tiny mini small medium) runs the budget recipe for SIZE_MINUTES (default 2) on the
# budget run's packed records (docs/runs/pretrain_budget_run.sh makes them), batch 64, bf16 by
# default; the table gives its parameters, the tokens per second of its last logged half (the
# first steps compile), and what 12 hours at that speed would be in tokens and tokens per
# parameter. Run it on a quiet machine: the speed is the point.
#   docs/runs/pretrain_model_size.sh > docs/runs/pretrain_model_size.md
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=.venv/bin/python
V=../shared/data/vocab/bert-base-uncased-vocab.txt
RECORDS=${SIZE_RECORDS:-runs/pretrain_budget/packed.tfrecord}
OUT=${SIZE_DIR:-runs/model_size}
MIN=${SIZE_MINUTES:-2}
[ -f "$RECORDS" ] || { echo "$RECORDS is missing: run docs/runs/pretrain_budget_run.sh first" >&2; exit 1; }
mkdir -p $OUT
for size in ${SIZES:-tiny mini small medium}; do
  [ -f $OUT/$size/model/train_log.jsonl ] && continue
  rm -rf $OUT/$size; mkdir -p $OUT/$size
  $PY -c "from keras_bert.models.bert_config import BertConfig; BertConfig.$size().to_json_file('$OUT/$size/bert_config.json')"
  $PY -m keras_bert.cli.run_pretraining --recipe=budget --budget_hours=$($PY -c "print($MIN / 60)") \
    --input_file=$RECORDS --vocab_file=$V --bert_config_file=$OUT/$size/bert_config.json \
    --output_dir=$OUT/$size/model --max_seq_length=128 --max_predictions_per_seq=20 \
    --train_batch_size=64 --learning_rate=1e-3 --save_checkpoints_steps=100000 \
    --iterations_per_loop=5 > $OUT/$size/log.txt 2>&1
done
$PY - $OUT ${SIZES:-tiny mini small medium} <<'PYEOF'
import json, os, subprocess, sys
out, sizes = sys.argv[1], sys.argv[2:]
cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
model = next(l.split(":", 1)[1].strip() for l in cpu.splitlines() if l.startswith("Model name"))
print(f"CPU: {model}, {os.cpu_count()} cores; bf16 units: {'avx512_bf16' in cpu or 'amx_bf16' in cpu}\n")
print("| size | layers x hidden | parameters (non-embedding) | tokens/s | tokens in 12 h | tokens per parameter |")
print("|---|---|---|---|---|---|")
for size in sizes:
    config = json.load(open(f"{out}/{size}/bert_config.json"))
    h, l, i, v = (config[k] for k in ("hidden_size", "num_hidden_layers", "intermediate_size", "vocab_size"))
    body = l * (4 * h * h + 4 * h + 2 * h * i + i + h + 4 * h)  # attention, FFN, 2 LayerNorms
    total = body + (v + config["max_position_embeddings"] + config["type_vocab_size"]) * h + 2 * h
    rows = [json.loads(x) for x in open(f"{out}/{size}/model/train_log.jsonl")]
    late = rows[len(rows) // 2:]
    speed = sum(r["tokens_per_s"] for r in late) / len(late)
    tokens = speed * 12 * 3600
    print(f"| {size} | {l} x {h} | {total / 1e6:.1f} M ({body / 1e6:.1f} M) | {speed:,.0f} | "
          f"{tokens / 1e6:,.0f} M | {tokens / total:.1f} |")
PYEOF
