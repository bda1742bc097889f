"""Draw the house: the rooms of uta_tasks (its packages and top-level modules) with their imports as
arrows, each room on its floor (1 + the highest floor it imports). ``python scripts/house.py``."""

from __future__ import annotations

import collections
import functools

import grimp


def main() -> None:
    graph = grimp.build_graph("uta_tasks")
    room = functools.partial(lambda m: ".".join(m.split(".")[:2]))
    rooms = sorted({room(m) for m in graph.modules if m != "uta_tasks"})
    arrows: dict[str, set[str]] = collections.defaultdict(set)
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            a, b = room(module), room(imported)
            if a != b and "uta_tasks" not in (a, b):
                arrows[a].add(b)

    @functools.lru_cache(None)
    def floor(name: str) -> int:
        return 1 + max((floor(other) for other in arrows[name]), default=0)

    print(f"{len(rooms)} rooms, {max(map(floor, rooms))} floors, {sum(map(len, arrows.values()))} arrows")
    for name in sorted(rooms, key=lambda r: (-floor(r), r)):
        print(f"{floor(name):>2} {name.removeprefix('uta_tasks.')} -> "
              f"{', '.join(sorted(r.removeprefix('uta_tasks.') for r in arrows[name]))}")


if __name__ == "__main__":
    main()
