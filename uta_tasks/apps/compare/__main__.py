"""``python -m uta_tasks.apps.compare``: the same as ``uta-compare``."""

import sys

from uta_tasks.apps.compare.cli import main

sys.exit(main())
