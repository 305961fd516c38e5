"""TensorFlow is optional: `import keras_bert` without it, and a one-line install hint for the
parts that need it. The core-environment checks run where TensorFlow is not installed
(make test-core); the others run everywhere."""

import subprocess
import sys
import textwrap

import pytest

from keras_bert import tensorflow_extra

HAS_TENSORFLOW = tensorflow_extra.has_tensorflow()

pytestmark = pytest.mark.backend_portable

# In a fresh interpreter: does `import keras_bert` load TensorFlow, and what does using a
# TensorFlow-only symbol say?
PROBE = textwrap.dedent(
    """
    import sys
    import keras_bert
    print("tensorflow imported:", "tensorflow" in sys.modules)
    print("encoder:", keras_bert.BertEncoder.__name__)
    print("tensorflow symbols loaded with keras:", "BertTokenizer" in vars(keras_bert))
    try:
        keras_bert.BertTokenizer
    except ImportError as error:
        print("error:", error)
    """
)


def _probe():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          check=True)
    return done.stdout.splitlines()


@pytest.mark.skipif(HAS_TENSORFLOW, reason="checks the core environment (make test-core)")
def test_without_tensorflow_the_package_imports_and_names_the_install_for_the_rest():
    lines = _probe()
    assert lines[0] == "tensorflow imported: False"
    assert lines[1] == "encoder: BertEncoder"
    assert lines[2] == "tensorflow symbols loaded with keras: False"
    assert lines[3].startswith("error: keras_bert.BertTokenizer needs tensorflow, which is not "
                               "installed: pip install 'keras-exact-bert[tf]'")
    assert len(lines) == 4  # one line


@pytest.mark.skipif(not HAS_TENSORFLOW, reason="checks the TensorFlow environment")
def test_with_tensorflow_every_symbol_is_there_as_before():
    # `import keras_bert` imports no TensorFlow on any backend. Once Keras is imported, the
    # TensorFlow-only symbols load with the rest on the TensorFlow backend (registered for
    # `.keras` loading, as they always were); on JAX or PyTorch on first use.
    import keras

    lines = _probe()
    with_keras = keras.config.backend() == "tensorflow"
    assert lines == ["tensorflow imported: False", "encoder: BertEncoder",
                     f"tensorflow symbols loaded with keras: {with_keras}"]


@pytest.mark.skipif(HAS_TENSORFLOW, reason="checks the core environment (make test-core)")
def test_a_tensorflow_checkpoint_without_tensorflow_is_a_one_line_error(tmp_path):
    import keras_bert
    from keras_bert.checkpoints import load_init_checkpoint

    model = keras_bert.BertEncoder(vocab_size=23, hidden_size=8, num_hidden_layers=1,
                                   num_attention_heads=2, intermediate_size=12)
    with pytest.raises(ImportError, match=r"^Reading the TensorFlow checkpoint .* needs "
                                          r"tensorflow, which is not installed: pip install"):
        load_init_checkpoint(model, str(tmp_path / "bert_model.ckpt"))


def test_symbols_of_a_missing_tensorflow_module_raise_the_hint_only_when_used(monkeypatch):
    # A package namespace whose TensorFlow-only symbol lives in a module that needs a missing
    # TensorFlow package (simulated: a module name that is not installed, counted as TF's).
    monkeypatch.setattr(tensorflow_extra, "has_tensorflow", lambda: False)
    monkeypatch.setattr(tensorflow_extra, "TENSORFLOW_MODULES",
                        ("not_installed_tf_part",))
    namespace = {"__name__": "keras_bert.fake"}
    tensorflow_extra.export_tensorflow_symbols(
        namespace, {"Tokenizer": "not_installed_tf_part.tokenizer", "ok": "json"})
    assert "Tokenizer" not in namespace  # nothing imported up front
    with pytest.raises(ImportError) as error:
        namespace["__getattr__"]("Tokenizer")
    message = str(error.value)
    assert message.startswith("keras_bert.fake.Tokenizer needs not_installed_tf_part, which is "
                              "not installed: pip install 'keras-exact-bert[tf]'")
    assert "\n" not in message
    # An installed module is imported on use; an unknown name is an AttributeError.
    with pytest.raises(AttributeError, match="json"):
        namespace["__getattr__"]("ok")  # json has no attribute "ok": the real error, not a hint
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        namespace["__getattr__"]("nothing")


def test_with_tensorflow_installed_the_symbols_are_imported_up_front(monkeypatch):
    import keras

    monkeypatch.setattr(tensorflow_extra, "has_tensorflow", lambda: True)
    monkeypatch.setattr(keras.config, "backend", lambda: "tensorflow")
    namespace = {"__name__": "keras_bert.fake"}
    tensorflow_extra.export_tensorflow_symbols(namespace, {"dumps": "json"})
    import json

    assert namespace["dumps"] is json.dumps
    assert "__getattr__" not in namespace


def test_on_another_backend_installed_symbols_load_on_first_use(monkeypatch):
    import keras

    monkeypatch.setattr(tensorflow_extra, "has_tensorflow", lambda: True)
    monkeypatch.setattr(keras.config, "backend", lambda: "jax")
    namespace = {"__name__": "keras_bert.fake"}
    tensorflow_extra.export_tensorflow_symbols(namespace, {"dumps": "json"})
    import json

    assert "dumps" not in namespace  # nothing imported yet
    assert namespace["__getattr__"]("dumps") is json.dumps
    assert namespace["dumps"] is json.dumps  # kept: later lookups skip __getattr__


def test_keras_on_a_missing_tensorflow_backend_is_a_one_line_error(monkeypatch, tmp_path):
    monkeypatch.setattr(tensorflow_extra, "has_tensorflow", lambda: False)
    monkeypatch.delenv("KERAS_BACKEND", raising=False)
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    # No keras.json: Keras would default to TensorFlow.
    with pytest.raises(ImportError, match=r"^Keras is set to the TensorFlow backend, which is not "
                                          r"installed: set KERAS_BACKEND=jax"):
        tensorflow_extra.check_keras_backend()
    (tmp_path / "keras.json").write_text('{"backend": "jax"}')
    tensorflow_extra.check_keras_backend()  # keras.json names an installed backend
    (tmp_path / "keras.json").write_text('{"backend": "tensorflow"}')
    monkeypatch.setenv("KERAS_BACKEND", "torch")
    tensorflow_extra.check_keras_backend()  # the environment variable wins, as in Keras


def test_a_tool_that_needs_a_missing_tensorflow_stops_with_one_line(capsys, monkeypatch):
    from keras_bert import cli

    monkeypatch.setattr(sys, "argv", ["/x/run_squad.py"])
    error = ModuleNotFoundError("No module named 'tensorflow_text'", name="tensorflow_text")
    with pytest.raises(SystemExit) as stopped:
        cli._missing_tensorflow_hook(ModuleNotFoundError, error, None)
    assert stopped.value.code == 1
    message = capsys.readouterr().err
    assert message.startswith("run_squad: This tool needs tensorflow_text, which is not "
                              "installed: pip install 'keras-exact-bert[tf]'")
    assert message.count("\n") == 1
    # Any other error goes to the previous hook untouched.
    seen = []
    cli._missing_tensorflow_hook(ValueError, ValueError("x"), None,
                                 previous=lambda *args: seen.append(args[0]))
    assert seen == [ValueError]


@pytest.mark.skipif(HAS_TENSORFLOW, reason="checks the core environment (make test-core)")
def test_run_squad_without_tensorflow_is_a_one_line_error(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "keras_bert.cli.run_squad", f"--output_dir={tmp_path}",
         "--do_predict", f"--predict_file={tmp_path}/dev.json"],
        capture_output=True, text=True)
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1].startswith("run_squad: This tool needs tensorflow")
