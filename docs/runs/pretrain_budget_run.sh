#!/usr/bin/env bash
# Issue 29: BertConfig.mini() pretrained from random init with the budget recipe on all the
# unlabelled text here (runs/corpus/all.txt, every 100th document held out as in
# docs/runs/pretraining_ablation.sh), for PRETRAIN_HOURS of wall clock (default 2). Re-running
# it resumes from the last checkpoint (the budget's spent seconds are checkpointed). When the
# budget is spent, export it as float16 with keras_bert.cli.export_hf_checkpoint (docs/pretraining.md).
# PRETRAIN_INIT: start from another run's weights (its output_dir) with a fresh budget schedule.
#   nohup docs/runs/pretrain_budget_run.sh >> runs/pretrain_budget/log.txt 2>&1 &
#   PRETRAIN_DIR=runs/pretrain_budget_cont PRETRAIN_HOURS=2.4 PRETRAIN_INIT=runs/pretrain_budget/model \
#     nohup docs/runs/pretrain_budget_run.sh >> runs/pretrain_budget_cont.log 2>&1 &
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=.venv/bin/python
V=../shared/data/vocab/bert-base-uncased-vocab.txt
D=${PRETRAIN_DIR:-runs/pretrain_budget}
HOURS=${PRETRAIN_HOURS:-2}
mkdir -p $D
if [ ! -f $D/packed.tfrecord ]; then
  if [ ! -f runs/corpus/all.txt ]; then
    echo "runs/corpus/all.txt is missing: build it with the command in docs/pretraining.md" >&2
    exit 1
  fi
  awk -v RS= -v ORS='\n\n' -v dir=$D '{ print > (dir "/" (NR % 100 == 0 ? "heldout" : "train") ".txt") }' \
    runs/corpus/all.txt
  $PY -m keras_bert.cli.create_pretraining_data --pack_sequences --input_file=$D/train.txt \
    --output_file=$D/packed.tmp.tfrecord --vocab_file=$V --max_seq_length=128 \
    --max_predictions_per_seq=20 --dupe_factor=1
  mv $D/packed.tmp.tfrecord $D/packed.tfrecord
fi
[ -f $D/bert_config.json ] || $PY -c "from keras_bert.models.bert_config import BertConfig; BertConfig.mini().to_json_file('$D/bert_config.json')"
$PY -m keras_bert.cli.run_pretraining --recipe=budget --budget_hours=$HOURS \
  --input_file=$D/packed.tfrecord --vocab_file=$V --bert_config_file=$D/bert_config.json \
  --output_dir=$D/model --max_seq_length=128 --max_predictions_per_seq=20 \
  --train_batch_size=64 --learning_rate=1e-3 --save_checkpoints_steps=250 --iterations_per_loop=10 \
  ${PRETRAIN_INIT:+--init_checkpoint=$PRETRAIN_INIT}
