"""Fine-tuning task data: SQuAD examples/features/predictions, CoNLL-2003 NER, GLUE classification."""
