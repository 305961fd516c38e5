"""keras_bert.training: optimizers, schedules, losses, tf.distribute strategies and training loops."""
