"""`FunctionalSubclass`: the base of keras_bert's functional models, on every Keras backend."""

import keras


class FunctionalSubclass(keras.Model):
    """A functional `keras.Model` subclass that may name its layers before `super().__init__`.

    keras_bert's models create their layers as attributes (`self.embeddings = ...`), wire the
    functional graph, then call `super().__init__(inputs=..., outputs=...)`. On the PyTorch
    backend a Keras model is a `torch.nn.Module`, which refuses sub-module attributes before its
    own `__init__` has run. Those early attributes are stored plainly instead: the functional
    graph already tracks every layer and weight, so nothing is lost. Other backends and every
    attribute set after initialisation take Keras's normal path.
    """

    def __setattr__(self, name, value):
        if keras.config.backend() == "torch" and "_modules" not in self.__dict__:
            object.__setattr__(self, name, value)
            return
        super().__setattr__(name, value)
