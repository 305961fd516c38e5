#!/usr/bin/env bash
# Issue 29: the downstream proof of docs/runs/pretrain_budget/mini_hf (the 2-hour budget-recipe
# mini, float16) against random init of its shape. Re-running continues: finished runs are read.
# TASKS (default conll,sst2,mrpc,squad). SQuAD uses 128-token windows (stride 64): pretraining
# saw 128 positions only. SST-2 runs each arm at its own rate, the grid's best on a held-out
# fifth of the 1,000 training sentences (selection runs under runs/downstream_proof/selection).
#   nohup docs/runs/downstream_proof_run.sh >> runs/downstream_proof.log 2>&1 &
set -euo pipefail
cd "$(dirname "$0")/../.."
.venv/bin/python -m experiments.downstream_proof --init_checkpoint=docs/runs/pretrain_budget/mini_hf \
  --vocab_file=../shared/data/vocab/bert-base-uncased-vocab.txt --seeds=0,1,2 \
  --tasks=${TASKS:-conll,sst2,mrpc,squad} --squad_max_seq_length=128 --squad_doc_stride=64 \
  --learning_rate_grid=sst2:5e-5:1e-4:2e-4:5e-4:1e-3 \
  --json=docs/runs/downstream_proof.json --markdown=docs/runs/downstream_proof.md \
  --plot=docs/images/downstream_proof.png
