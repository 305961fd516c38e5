"""`run(main)`: absl's `app.run`, with a usage error printed as one line.

absl answers an `app.UsageError` by printing the program's docstring and every flag of its
module before the one line that says what is wrong; a user reads the last line of a screenful.
Here the error is the output: `<program>: <message>` and where the help is, on stderr, with
absl's exit status (1 unless the error sets another). `--help` is absl's, but exits 0 (absl
exits 1 after printing it); flag-parsing errors are absl's own, unchanged.

Library code names its arguments in its errors (`` `max_seq_length` ``, `init_checkpoint=...`),
not flags: it is called from Python too. `flag_error` turns such an error into a usage error
that names the flags instead (`--max_seq_length`, `--init_checkpoint=...`).

A full disk (or a file-size limit) is the other error a user can fix and should not read a
traceback for: Python's `OSError` (ENOSPC, EFBIG, EDQUOT) and TensorFlow's errors saying the
same ("No space left on device", "File too large") become one line too, exit status 1.
"""

import contextlib
import errno
import os
import re
import sys

from absl import app


# Library arguments whose flag has another name, in every CLI.
_ALIASES = {"tpu_address": "tpu"}
_DISK_FULL_ERRNOS = (errno.ENOSPC, errno.EFBIG, errno.EDQUOT)
_DISK_FULL_TEXT = ("No space left on device", "File too large", "Disk quota exceeded")


def run(main):
    """Runs `main(argv)` under `app.run`; an `app.UsageError` or a full disk is one line, and
    `--help` exits 0."""

    def one_line_errors(argv):
        program = program_name()
        try:
            return main(argv)
        except app.UsageError as error:
            sys.stderr.write(f"{program}: {error}\n(--help lists the flags.)\n")
            sys.stderr.flush()
            sys.exit(error.exitcode)
        except Exception as error:  # noqa: BLE001 - re-raised unless the disk is full
            if not is_disk_full(error):
                raise
            sys.stderr.write(f"{program}: {disk_full_message(error)}\n")
            sys.stderr.flush()
            sys.exit(1)

    app.run(one_line_errors, flags_parser=_parse_flags)


def program_name():
    """The name errors start with: the script's file name, or for `python -m package.cli` (a
    file named `cli.py` or `__main__.py`, which says little) the module's dotted name."""
    name = os.path.basename(sys.argv[0])
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    if name in ("cli.py", "__main__.py") and spec is not None and spec.name:
        return spec.name.removesuffix(".__main__")
    return name


# absl's help flags print the help, then exit with status 1 as if the command had failed.
_HELP_FLAGS = ("help", "helpshort", "helpfull", "helpxml")


def _parse_flags(argv):
    """absl's parsing, with the help it was asked for ending in exit status 0."""
    from absl import flags

    for name in _HELP_FLAGS:
        if name in flags.FLAGS:
            flag = flags.FLAGS[name]
            flag.parse = _exits_zero(flag.parse)
    return app.parse_flags_with_usage(argv)


def _exits_zero(parse):
    def parse_help(argument):
        try:
            parse(argument)
        except SystemExit as done:  # the help was printed
            raise SystemExit(0) from done.__cause__

    return parse_help


def flag_names(message, aliases=None):
    """`message` with the argument names that are flags of this program written as flags.

    An argument written `` `name` `` becomes `--name`, and `name=` becomes `--name=`, for every
    `name` that is a defined flag (or a key of `aliases`, which maps an argument name to the
    flag that sets it: `{"global_batch_size": "train_batch_size"}`). Other words stay.
    """
    from absl import flags

    defined = {name for name in flags.FLAGS if len(name) > 1}
    names = {name: name for name in defined}
    names.update({k: v for k, v in {**_ALIASES, **(aliases or {})}.items() if v in defined})

    def flag(match):
        name = match.group(1) or match.group(2)
        if name not in names:
            return match.group(0)
        return f"--{names[name]}" + ("=" if match.group(2) else "")

    return re.sub(r"`(\w+)`|(?<![\w.-])([a-z_][a-z0-9_]*)=", flag, str(message))


def flag_error(error, aliases=None):
    """An `app.UsageError` saying what `error` (a library `ValueError`, say) says, in flag names."""
    return app.UsageError(flag_names(error, aliases))


@contextlib.contextmanager
def library_errors(aliases=None):
    """Turns a library `ValueError` / `FileNotFoundError` / `IsADirectoryError` raised in the
    block into a one-line usage error that names the flags (`flag_error`)."""
    try:
        yield
    except (ValueError, FileNotFoundError, IsADirectoryError) as e:
        raise flag_error(e, aliases) from None


def is_disk_full(error):
    """Whether `error` says a write failed for lack of space or a file-size limit."""
    if isinstance(error, OSError) and error.errno in _DISK_FULL_ERRNOS:
        return True
    return any(text in str(error) for text in _DISK_FULL_TEXT)


def disk_full_message(error):
    """One line: what failed, where, and what to do."""
    if isinstance(error, OSError) and error.errno in _DISK_FULL_ERRNOS:
        what = f"{error.strerror}" + (f" writing {error.filename}" if error.filename else "")
    else:  # TensorFlow's "{{function_node ...}} <path>; File too large [Op:SaveV2]"
        what = re.sub(r"\{\{.*?\}\}\s*|\s*\[Op:\w+\]", "", str(error)).strip().splitlines()[0]
    return (f"the disk is full (or a file-size limit was reached): {what}. Free space and run "
            "the same command again: outputs are written whole or not at all, and training "
            "resumes from its last checkpoint.")
