"""``python -m verify``: the same program as the ``svt-verify`` console script."""

from __future__ import annotations

import sys


def _run() -> int:
    try:
        from verify.cli.unraisable import deliver_ignored_interrupts

        deliver_ignored_interrupts()  # before the libraries load: a Ctrl-C in an import's callback is not lost
        from verify.cli.main import main
    except KeyboardInterrupt:  # Ctrl-C while the libraries load
        sys.stderr.write("svt-verify: interrupted\n")
        exec("pass", {})  # noqa: S102 (a constant; see verify.cli.main.forget_interrupted_exec)
        return 130
    return main()


if __name__ == "__main__":
    raise SystemExit(_run())
