"""python -m teachgbt: the teachgbt command."""

import sys

from .cli import main

sys.exit(main())
