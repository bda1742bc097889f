"""``python -m uta_tasks.apps.quickstart``."""

import sys

from .cli import main

sys.exit(main())
