"""``python -m uta_tasks`` prints the task folder, for ``--include_path "$(python -m uta_tasks)"``."""

from uta_tasks import include_path

if __name__ == "__main__":
    print(include_path())
