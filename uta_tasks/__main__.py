"""``python -m uta_tasks`` prints the task folder, for ``--include_path "$(python -m uta_tasks)"``;
``python -m uta_tasks wrap TASK... --out DIR`` wraps lm-eval tasks (see :mod:`uta_tasks.wrap.command`)."""

import sys

from uta_tasks import include_path

if __name__ == "__main__":
    if sys.argv[1:2] == ["wrap"]:
        from uta_tasks.wrap.command import main

        raise SystemExit(main(sys.argv[2:]))
    print(include_path())
