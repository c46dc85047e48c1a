"""Entry point of a task process: ``python -m turs.bench._child TASK_FD RESULT_FD`` (see ``_sandbox``)."""
import sys

from turs.bench._sandbox import _child_main

if __name__ == "__main__":
    _child_main(int(sys.argv[1]), int(sys.argv[2]))
