"""XLA under tf.distribute: off (or refused when asked for) where a strategy mirrors over
logical CPU devices, since TensorFlow's XLA then reads one replica's variables from another
device (the mirrored run_classifier test in tests/keras_bert/cli trains that way end to end)."""

import types

import pytest

from keras_bert.training.tf_distribute import get_distribution_strategy
from keras_bert.training.tf_distribute import jit_compile_under
from keras_bert.training.tf_distribute import mirrors_cpu_devices

CPU = "/job:localhost/replica:0/task:0/device:CPU:{}"
GPU = "/job:localhost/replica:0/task:0/device:GPU:{}"


def _strategy(*devices):
    return types.SimpleNamespace(num_replicas_in_sync=len(devices),
                                 extended=types.SimpleNamespace(worker_devices=devices))


def test_only_several_cpu_replicas_count_as_mirroring_cpu_devices():
    assert mirrors_cpu_devices(_strategy(CPU.format(0), CPU.format(1)))
    assert not mirrors_cpu_devices(_strategy(GPU.format(0), GPU.format(1)))
    assert not mirrors_cpu_devices(_strategy(CPU.format(0)))
    assert not mirrors_cpu_devices(None)
    assert not mirrors_cpu_devices(get_distribution_strategy("one_device"))


def test_jit_compile_default_turns_off_there_and_an_explicit_request_is_refused():
    cpus, gpus = _strategy(CPU.format(0), CPU.format(1)), _strategy(GPU.format(0), GPU.format(1))
    assert jit_compile_under(cpus, True, None) is False
    assert jit_compile_under(cpus, False, False) is False
    assert jit_compile_under(gpus, True, None) is True
    with pytest.raises(ValueError, match="leave jit_compile unset"):
        jit_compile_under(cpus, True, True)
