"""`in_xla_context`: whether TensorFlow is tracing a function it will XLA-compile."""


def in_xla_context():
    """True while TensorFlow traces a function it will XLA-compile (`jit_compile=True`).

    TensorFlow marks such a function's graph with an XLA control-flow context; this walks the
    graph and its outer graphs for one, as TensorFlow's own `GraphOrParentsInXlaContext` does.
    That context has no public accessor: should its shape change, this returns False and the
    callers (`Dropout`, the attention softmax) take their non-XLA path, which is correct under
    XLA too, only slower. `xla_context_test` checks that the context is seen.
    """
    import tensorflow as tf

    graph = tf.compat.v1.get_default_graph()
    try:
        while graph is not None:
            context = graph._get_control_flow_context()
            while context is not None:
                if context.IsXLAContext():
                    return True
                context = context.outer_context
            graph = getattr(graph, "outer_graph", None)
    except AttributeError:
        return False
    return False
