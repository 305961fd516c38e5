"""`run(main)`: absl's `app.run`, with a usage error printed as one line.

absl answers an `app.UsageError` by printing the program's docstring and every flag of its
module before the one line that says what is wrong; a user reads the last line of a screenful.
Here the error is the output: `<program>: <message>` and where the help is, on stderr, with
absl's exit status (1 unless the error sets another). `--help` and flag-parsing errors are
absl's own, unchanged.
"""

import os
import sys

from absl import app


def run(main):
    """Runs `main(argv)` under `app.run`; an `app.UsageError` from it is one line on stderr."""

    def one_line_errors(argv):
        try:
            return main(argv)
        except app.UsageError as error:
            program = os.path.basename(sys.argv[0])
            sys.stderr.write(f"{program}: {error}\n(--help lists the flags.)\n")
            sys.stderr.flush()
            sys.exit(error.exitcode)

    app.run(one_line_errors)
