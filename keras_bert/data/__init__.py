"""keras_bert.data: pretraining text, NSP instances, MLM masking, TFRecords and tf.data pipelines."""
