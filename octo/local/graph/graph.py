"""The import graph of a root's files and the questions asked of it: what a file imports,
who imports it, the shortest chain between two files, the cycles, what no entry point
reaches, and the most connected files."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from collections.abc import Iterable
from dataclasses import dataclass
from dataclasses import field


@dataclass(frozen=True, slots=True)
class Edge:
    """One import: ``source`` imports ``target`` (a file under the root), or ``package``
    (an external package) when ``target`` is None; neither means it was not resolved."""

    source: str
    target: str | None
    package: str | None
    line: int
    text: str
    flags: int
    #: What the import names, as written (shown when it resolved to nothing).
    spec: str = ""


@dataclass
class ImportGraph:
    """Files (paths relative to the root) and the imports between them."""

    files: list[str]
    edges: list[Edge]
    out_edges: dict[str, list[Edge]] = field(default_factory=dict)
    in_edges: dict[str, list[Edge]] = field(default_factory=dict)
    #: The files each file imports, each once.
    imported: dict[str, list[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        targets: dict[str, dict[str, None]] = {}
        for edge in self.edges:
            self.out_edges.setdefault(edge.source, []).append(edge)
            if edge.target is not None:
                self.in_edges.setdefault(edge.target, []).append(edge)
                targets.setdefault(edge.source, {})[edge.target] = None
        self.imported = {source: list(found) for source, found in targets.items()}

    def reach(self, start: str, depth: int, *, forward: bool) -> list[tuple[int, Edge]]:
        """The edges met walking from ``start`` (imports when ``forward``, importers when
        not) up to ``depth`` steps, each with its distance, nearest first; each file once."""
        adjacent = self.out_edges if forward else self.in_edges
        seen = {start}
        found: list[tuple[int, Edge]] = []
        frontier = [start]
        for distance in range(1, depth + 1):
            following: list[str] = []
            for node in frontier:
                for edge in adjacent.get(node, ()):
                    other = edge.target if forward else edge.source
                    if other is None:
                        if distance == 1:
                            found.append((distance, edge))
                        continue
                    if other in seen:
                        continue
                    seen.add(other)
                    found.append((distance, edge))
                    following.append(other)
            frontier = following
            if not frontier:
                break
        return found

    def path(self, start: str, goal: str) -> list[Edge] | None:
        """The edges of a shortest import chain from ``start`` to ``goal``."""
        parents: dict[str, Edge | None] = {start: None}
        queue = deque([start])
        while queue:
            node = queue.popleft()
            if node == goal:
                chain: list[Edge] = []
                step = parents[node]
                while step is not None:
                    chain.append(step)
                    step = parents[step.source]
                return chain[::-1]
            for edge in self.out_edges.get(node, ()):
                if edge.target is not None and edge.target not in parents:
                    parents[edge.target] = edge
                    queue.append(edge.target)
        return None

    def cycles(self) -> list[list[str]]:
        """The strongly connected components of more than one file (or a file importing
        itself), largest first, members sorted."""
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        stack: list[str] = []
        on_stack: set[str] = set()
        found: list[list[str]] = []
        counter = 0
        for root in self.files:
            if root in index:
                continue
            # Tarjan's algorithm without recursion: a frame is a node and its next edge.
            work: list[tuple[str, int]] = [(root, 0)]
            while work:
                node, at = work.pop()
                if at == 0:
                    index[node] = low[node] = counter
                    counter += 1
                    stack.append(node)
                    on_stack.add(node)
                targets = self._targets(node)
                if at < len(targets):
                    work.append((node, at + 1))
                    nxt = targets[at]
                    if nxt not in index:
                        work.append((nxt, 0))
                    elif nxt in on_stack:
                        low[node] = min(low[node], index[nxt])
                    continue
                if low[node] == index[node]:
                    members: list[str] = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        members.append(member)
                        if member == node:
                            break
                    if len(members) > 1 or node in targets:
                        found.append(sorted(members))
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
        return sorted(found, key=lambda members: (-len(members), members[0]))

    def witness(self, members: list[str]) -> list[Edge]:
        """One cycle through the first member, staying inside ``members``."""
        inside = set(members)
        start = members[0]
        parents: dict[str, Edge] = {}
        queue = deque([start])
        while queue:
            node = queue.popleft()
            for edge in self.out_edges.get(node, ()):
                target = edge.target
                if target is None or target not in inside:
                    continue
                if target == start:
                    chain = [edge]
                    while chain[-1].source != start:
                        chain.append(parents[chain[-1].source])
                    return chain[::-1]
                if target not in parents:
                    parents[target] = edge
                    queue.append(target)
        return []

    def reached(
        self, entries: Iterable[str], implied: Callable[[str], list[str]] | None = None
    ) -> dict[str, str | None]:
        """Every file the entry points reach, each with the file that first reached it;
        ``implied(file)`` names files loading ``file`` loads too (a package's ``__init__``)."""
        reached: dict[str, str | None] = {}
        queue: deque[str] = deque()
        for entry in entries:
            if entry not in reached:
                reached[entry] = None
                queue.append(entry)
        while queue:
            node = queue.popleft()
            following = self._targets(node)
            if implied is not None:
                following = [*following, *implied(node)]
            for target in following:
                if target not in reached:
                    reached[target] = node
                    queue.append(target)
        return reached

    def fan(self, file: str) -> tuple[int, int]:
        """How many files import ``file``, and how many it imports."""
        importers = {edge.source for edge in self.in_edges.get(file, ())}
        return len(importers), len(self._targets(file))

    def _targets(self, node: str) -> list[str]:
        return self.imported.get(node, [])
