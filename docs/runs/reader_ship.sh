#!/usr/bin/env bash
# Ship a re-trained SQuAD reader as the apps' default files (issue 55): both int8 files, the
# float parent's logits for their test, the whole-dev scores, the two answer calibrators fitted
# on the new reader's own reads, SHA256SUMS and every port's golden fixtures.
#
#   PARENT=runs/reader_negatives/cont D=runs/reader_negatives K=5 docs/runs/reader_ship.sh
#
# R (default docs/runs/retrieval/reader_negatives) receives the whole-dev scores and the
# benchmark's records, PLOT the abstention curve; give new names for another reader.
# PARENT: the float reader (a Hugging Face folder, as tools.gpu_squad writes). D: the run folder,
# which must already hold the new reader's document-QA reads of SQuAD train (every 100th) and
# dev (every 10th), top K of BM25 and rank fusion (docs/runs/reader_negatives_run.sh collects
# them). K: passages the shipped pipelines read. Resumable: a step whose output exists is
# skipped. The model card's tables and "Made by" rows are then edited by hand from the printed
# numbers. 2-core AMD EPYC Zen 3 (2026-11-29): QAT 40 min, scoring the QAT file 24 min, the rest
# a few minutes. Nothing else should run beside the QAT (memory).
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=.venv/bin/python
PARENT=${PARENT:?the float reader folder}
D=${D:?the run folder}
K=${K:-5}
R=${R:-docs/runs/retrieval/reader_negatives}
PLOT=${PLOT:-docs/images/document_qa_abstention_negatives.png}
SQUAD=../shared/data/squad
DYNAMIC=$D/export/tflite/squad_dynamic_int8.tflite
QAT=$D/export_qat/tflite/squad_qat_int8.tflite
for f in $D/train_every100.jsonl $D/dev_every10.jsonl; do
  [ -f $f ] || { echo "$f missing: collect the reads first (docs/runs/reader_negatives_run.sh)"; exit 1; }
done
[ -f $DYNAMIC ] || $PY -m keras_bert.export.cli --task_name=squad --init_checkpoint=$PARENT \
    --export_dir=$D/export --formats=tflite --quantizations=dynamic_int8
[ -f $QAT ] || $PY -m keras_bert.export.cli --task_name=squad --init_checkpoint=$PARENT \
    --export_dir=$D/export_qat --formats=tflite --quantizations=qat_int8 \
    --calibration_file=$SQUAD/train-v1.1-reconstructed.json.gz --qat_steps=600 \
    --num_qat_examples=20000 --qat_hidden_weight=3000 --noqat_dropout
[ -f $D/squad_minilm_int8.parent.npz ] || $PY -m experiments.record_parent_logits \
    --init_checkpoint=$PARENT --output=$D/squad_minilm_int8.parent.npz
# Whole official dev set, two one-thread shares each (tools/score_tflite_squad.py).
for pair in "$DYNAMIC $D/score_dynamic dynamic" "$QAT $D/score_qat qat"; do
  set -- $pair
  if [ ! -f $2/eval_results.json ]; then
    for i in 0 1; do $PY -m tools.score_tflite_squad --model=$1 --output_dir=$2 --num_shards=2 \
        --shard=$i --num_threads=1 & done; wait
    $PY -m tools.score_tflite_squad --model=$1 --output_dir=$2 --num_shards=2
  fi
  mkdir -p $R && cp $2/eval_results.json $R/full_dev_$3_int8.json
  cat $2/eval_results.json; echo
done
cp $DYNAMIC apps/models/squad_minilm_dynamic_int8.tflite
cp $QAT apps/models/squad_minilm_int8.tflite
cp $D/squad_minilm_int8.parent.npz apps/models/squad_minilm_int8.parent.npz
$PY -m experiments.document_qa_benchmark --train_jsonl=$D/train_every100.jsonl \
    --dev_jsonl=$D/dev_every10.jsonl --rankers=bm25,rrf --max_k=$K --ship="rrf top $K/reader+both" \
    --output_json=$R/document_qa.json --plot=$PLOT \
    --calibrator=apps/models/answer_calibrator.json
$PY -m experiments.document_qa_benchmark --train_jsonl=$D/train_every100.jsonl \
    --dev_jsonl=$D/dev_every10.jsonl --rankers=bm25,rrf --max_k=$K --ship="bm25 top $K/reader+bm25" \
    --output_json=$R/document_qa_bm25.json --calibrator=apps/models/answer_calibrator_bm25.json
$PY -m apps.make_fixtures            # qa_golden.json from the new reader; SHA256SUMS
$PY -m apps.make_retrieval_fixtures  # the pipeline cases with the new calibrators
sha256sum apps/models/squad_minilm_dynamic_int8.tflite apps/models/squad_minilm_int8.tflite
ls -l apps/models
