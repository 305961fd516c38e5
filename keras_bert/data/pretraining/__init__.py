"""Pretraining data: corpora, documents, NSP instances, MLM masking, TFRecords, the input pipeline."""
