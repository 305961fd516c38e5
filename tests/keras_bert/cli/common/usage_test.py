"""`keras_bert.cli.common.usage.run`: a usage error is one line on stderr, not the module's whole help."""

import subprocess
import sys
import textwrap

import pytest

PROGRAM = textwrap.dedent('''
    """A long docstring that absl would print first.

    Lines and lines of help.
    """
    from absl import app
    from absl import flags

    from keras_bert.cli.common import usage

    flags.DEFINE_string("name", None, "A flag whose help absl would print too.")
    flags.DEFINE_string("out", None, "A file to write.")


    def main(argv):
        del argv
        if flags.FLAGS.name == "full":  # a real write past a file-size limit: EFBIG
            import resource, signal
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))
            with open(flags.FLAGS.out, "wb") as f:
                f.write(b"x" * 5000)
        if flags.FLAGS.name == "tf":  # how TensorFlow reports a full disk
            raise RuntimeError("{{function_node __wrapped__SaveV2}} /d/ckpt-8_temp/part-0; No "
                               "space left on device [Op:SaveV2]")
        if flags.FLAGS.name == "other":
            raise RuntimeError("not a disk problem")
        if flags.FLAGS.name == "status":
            raise app.UsageError("--name=status: exits with 3.", exitcode=3)
        if flags.FLAGS.name:
            raise app.UsageError(f"--name={flags.FLAGS.name}: not a name here; pass --name=ok.")
        print("ran")


    if __name__ == "__main__":
        usage.run(main)
''')


def run_program(tmp_path, *args):
    path = tmp_path / "tool.py"
    path.write_text(PROGRAM)
    return subprocess.run([sys.executable, str(path), *args], capture_output=True, text=True,
                          timeout=300)


def test_a_usage_error_is_one_line_and_absl_exit_status(tmp_path):
    done = run_program(tmp_path, "--name=bad")
    assert done.returncode == 1
    assert done.stderr.splitlines()[-2:] == [
        "tool.py: --name=bad: not a name here; pass --name=ok.", "(--help lists the flags.)"]
    assert "docstring" not in done.stderr and "whose help" not in done.stderr
    assert done.stdout == ""
    assert run_program(tmp_path, "--name=status").returncode == 3


def test_success_help_and_flag_errors_are_absls(tmp_path):
    ok = run_program(tmp_path)
    assert ok.returncode == 0 and ok.stdout == "ran\n"
    helped = run_program(tmp_path, "--help")
    # absl's --help: the docstring and the flags, and exit status 0 (absl's own is 1).
    assert helped.returncode == 0, helped.stderr
    assert "A long docstring" in helped.stdout + helped.stderr
    assert "whose help" in helped.stdout + helped.stderr
    unknown = run_program(tmp_path, "--nme=x")
    assert unknown.returncode != 0 and "Unknown command line flag 'nme'" in unknown.stderr


@pytest.mark.large
def test_a_real_cli_answers_bad_input_in_one_line(tmp_path):
    (tmp_path / "empty.txt").write_text("\n  \n")
    done = subprocess.run([sys.executable, "-m", "keras_bert.cli.learn_vocabulary",
                           f"--input_file={tmp_path / 'empty.txt'}",
                           f"--vocab_file={tmp_path / 'vocab.txt'}"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()
    assert last[-2] == f"learn_vocabulary.py: --input_file {tmp_path / 'empty.txt'}: no text found."
    assert "flags:" not in done.stderr and "Learns a WordPiece" not in done.stderr
    assert not (tmp_path / "vocab.txt").exists()


def test_a_full_disk_is_one_line_and_other_errors_keep_their_traceback(tmp_path):
    done = run_program(tmp_path, "--name=full", f"--out={tmp_path / 'big.bin'}")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1:] == [
        "tool.py: the disk is full (or a file-size limit was reached): File too large. Free space "
        "and run the same command again: outputs are written whole or not at all, and training "
        "resumes from its last checkpoint."]
    done = run_program(tmp_path, "--name=tf")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1:] == [
        "tool.py: the disk is full (or a file-size limit was reached): /d/ckpt-8_temp/part-0; No "
        "space left on device. Free space and run the same command again: outputs are written "
        "whole or not at all, and training resumes from its last checkpoint."]
    done = run_program(tmp_path, "--name=other")
    assert done.returncode == 1 and "Traceback" in done.stderr
    assert done.stderr.splitlines()[-1] == "RuntimeError: not a disk problem"


def test_flag_names_write_library_arguments_as_flags(monkeypatch):
    from absl import flags

    from keras_bert.cli.common import usage

    values = flags.FlagValues()
    for name in ("max_seq_length", "init_checkpoint", "tpu", "eval_batch_size"):
        flags.DEFINE_string(name, None, "", flag_values=values)
    monkeypatch.setattr(flags, "FLAGS", values)  # flag_names reads the program's flags
    assert usage.flag_names(
        "max_seq_length=512 exceeds `init_checkpoint`; foo=3, a.max_seq_length=2 and "
        "--max_seq_length=3 stay, as does `unknown`; pass `tpu_address`"
    ) == ("--max_seq_length=512 exceeds --init_checkpoint; foo=3, a.max_seq_length=2 and "
          "--max_seq_length=3 stay, as does `unknown`; pass --tpu")
    error = usage.flag_error(ValueError("batch_size=6 must be even"), {"batch_size": "eval_batch_size"})
    assert str(error) == "--eval_batch_size=6 must be even"
    # An alias whose flag this program does not define stays an argument name.
    assert usage.flag_names("`global_batch_size`", {"global_batch_size": "train_batch_size"}) == (
        "`global_batch_size`")
