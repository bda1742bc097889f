"""``python -m uta_tasks.quickstart``."""

import sys

from .cli import main

sys.exit(main())
