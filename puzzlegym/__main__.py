import sys

from puzzlegym.cli import main

sys.exit(main())
