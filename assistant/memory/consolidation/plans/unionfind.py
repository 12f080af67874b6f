"""Union-find over memory ids (clusters of duplicates / repeated episodes)."""

from __future__ import annotations

from typing import Hashable, Iterable


class UnionFind:
    def __init__(self) -> None:
        self.parent: dict[Hashable, Hashable] = {}

    def find(self, x: Hashable) -> Hashable:
        parent = self.parent
        parent.setdefault(x, x)
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:  # path compression
            parent[x], x = root, parent[x]
        return root

    def union(self, a: Hashable, b: Hashable) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)  # type: ignore[type-var]

    def groups(self, items: Iterable[Hashable] | None = None) -> list[list[Hashable]]:
        out: dict[Hashable, list[Hashable]] = {}
        for x in (items if items is not None else list(self.parent)):
            out.setdefault(self.find(x), []).append(x)
        return [sorted(g) for g in out.values() if len(g) > 1]  # type: ignore[type-var]
