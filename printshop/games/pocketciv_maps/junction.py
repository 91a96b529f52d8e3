"""Junctions: where borders meet, worked out from the order in which each face lists them.

Every Region, Frontier and Sea (a face) lists its neighbours going round it. Two neighbours
next to each other in a list meet at a corner of that face; on a legal map every corner is
one of the three corners of a junction where exactly three borders meet: if region 3 lists
... 7, 5 ... then 7 lists ... 5, 3 ... and 5 lists ... 3, 7 ... (all going the same way).
A person may list any face in either direction, so each list's direction is found first.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from operator import eq
from typing import NamedTuple

from .model import WorldMap


@dataclass(slots=True)
class Face:
    """A Region, Frontier or Sea as the junction analysis sees it (slots, not frozen: a map
    makes one for every region and area each time it is checked, and a frozen dataclass is
    slow to make)."""

    id: str
    cycles: tuple[tuple[str, ...], ...]
    at: tuple
    label: str
    region: bool

    def entry_path(self, cycle: int, index: int) -> tuple:
        """Return the key path of one entry of the face's borders."""
        if len(self.cycles) > 1:
            return self.at + ("borders", cycle, index)
        return self.at + ("borders", index)


class Corner(NamedTuple):
    """A corner of a face, between its borders with ``before`` and ``after``."""

    before: str
    face: str
    after: str
    cycle: int
    index: int


@dataclass(frozen=True)
class Junctions:
    """How many junctions of three were found, and the corners that belong to none."""

    met: int
    broken: tuple[tuple[Corner, ...], ...]


def faces_of(world: WorldMap) -> dict[str, Face]:
    """Return every face by id (ids are assumed unique)."""
    out = {r.id: Face(r.id, (r.borders,), r.at, r.label, True) for r in world.regions}
    out.update({a.id: Face(a.id, a.coasts, a.at, a.label, False) for a in world.areas})
    return out


def _verdict(mine: tuple, theirs: tuple, me: str, them: str) -> str | None:
    """Say whether two touching lists run the same way ('same'), opposite ('flip') or unknown."""
    found = set()
    n, m = len(mine), len(theirs)
    for i, x in enumerate(mine):
        if x != them:
            continue
        a_prev, a_next = mine[i - 1], mine[(i + 1) % n]
        if a_prev == a_next:
            continue
        for j, y in enumerate(theirs):
            if y != me:
                continue
            b_prev, b_next = theirs[j - 1], theirs[(j + 1) % m]
            if b_prev == a_next and b_next == a_prev:
                found.add("same")
            elif b_prev == a_prev and b_next == a_next:
                found.add("flip")
    return found.pop() if len(found) == 1 else None


def directions(faces: dict[str, Face]) -> dict[tuple[str, int], bool]:
    """Return, for each list, whether it must be reversed to run the same way as the first."""
    keys = [(f.id, k) for f in faces.values() for k in range(len(f.cycles))]
    flipped: dict[tuple[str, int], bool] = {}
    unturned = {f.id: len(f.cycles) for f in faces.values()}   # lists not yet given a way
    for start in keys:
        if start in flipped:
            continue
        flipped[start] = False
        unturned[start[0]] -= 1
        queue = deque([start])
        while queue:
            fid, k = queue.popleft()
            cycle = faces[fid].cycles[k]
            for other in dict.fromkeys(cycle):
                if not unturned.get(other):
                    continue
                for m, theirs in enumerate(faces[other].cycles):
                    if (other, m) in flipped or fid not in theirs:
                        continue
                    verdict = _verdict(cycle, theirs, fid, other)
                    if verdict is None:
                        continue
                    flipped[(other, m)] = flipped[(fid, k)] ^ (verdict == "flip")
                    unturned[other] -= 1
                    queue.append((other, m))
    return flipped


def corners(faces: dict[str, Face], flipped: dict[tuple[str, int], bool]) -> list[tuple]:
    """Return every corner of every face, each list turned to run the common way, as plain
    (before, face, after, cycle, index) tuples (see Corner)."""
    out = []
    for f in faces.values():
        for k, cycle in enumerate(f.cycles):
            n = len(cycle)
            order = list(range(n))[::-1] if flipped.get((f.id, k)) else list(range(n))
            out.extend([(cycle[i], f.id, cycle[j], k, i)
                        for i, j in zip(order, order[1:] + order[:1])])
    return out


def _free(candidates: list[int], used: list[bool]) -> int | None:
    """Return the first of the candidate corners that no junction has taken yet."""
    for i in candidates:
        if not used[i]:
            return i
    return None


def _all_meet(faces: dict[str, Face], flipped: dict[tuple[str, int], bool]) -> int | None:
    """Return how many junctions of three the corners make when each corner is one of the
    three corners of a junction, and no corner is listed twice (a legal map); else None.

    Every corner (before, face, after) then has its turn (face, after, before) among the
    corners (turning the corners of one junction gives the same three again); the corners
    are handled as three columns, which Python compares without a loop of its own."""
    befores: list[str] = []
    owners: list[str] = []
    afters: list[str] = []
    for f in faces.values():
        for k, cycle in enumerate(f.cycles):
            ahead = cycle[::-1] if flipped.get((f.id, k)) else cycle
            befores += ahead
            owners += [f.id] * len(ahead)
            afters += ahead[1:] + ahead[:1]
    found = set(zip(befores, owners, afters))
    if (len(found) < len(befores) or any(map(eq, befores, owners)) or
            any(map(eq, owners, afters)) or any(map(eq, afters, befores)) or
            not found.issuperset(zip(owners, afters, befores))):
        return None
    return len(found) // 3


def junctions(faces: dict[str, Face]) -> Junctions:
    """Group corners into junctions of three; gather the rest by the point they share."""
    flipped = directions(faces)
    count = _all_meet(faces, flipped)
    if count is not None:
        return Junctions(count, ())
    found = corners(faces, flipped)
    waiting: dict[tuple, list[int]] = {}
    for n, c in enumerate(found):
        waiting.setdefault(c[:3], []).append(n)
    used = [False] * len(found)
    met = []
    for n, (before, face, after, _, _) in enumerate(found):
        if used[n] or before == face or face == after or after == before:
            continue
        at_after = _free(waiting.get((face, after, before), ()), used)
        at_before = _free(waiting.get((after, before, face), ()), used)
        if at_after is not None and at_before is not None:
            used[n] = used[at_after] = used[at_before] = True
            met.append((before, face, after))
    return Junctions(len(met), tuple(_chains(found, used)))


def _chains(corner_tuples: list[tuple], used: list[bool]) -> list[tuple[Corner, ...]]:
    """Follow unmatched corners face to face round the point they share."""
    free = [n for n, u in enumerate(used) if not u]
    if not free:
        return []
    found = [Corner(*c) for c in corner_tuples]
    taken = set()
    chains = []
    for n in free:
        if n in taken:
            continue
        chain = [n]
        taken.add(n)
        while len(chain) < 16:
            last = found[chain[-1]]
            nxt = next((i for i in free if i not in taken and found[i].face == last.after
                        and found[i].before == last.face), None)
            if nxt is None:
                break
            chain.append(nxt)
            taken.add(nxt)
        chains.append(tuple(found[i] for i in chain))
    return chains


def closes(chain: tuple[Corner, ...]) -> bool:
    """Say whether a chain of corners goes all the way round one point."""
    first, last = chain[0], chain[-1]
    return len(chain) > 1 and last.after == first.face and first.before == last.face


def pieces(faces: dict[str, Face], keep=lambda face: True) -> list[list[str]]:
    """Return the connected groups of faces (those ``keep`` accepts), in list order."""
    seen: set[str] = set()
    groups = []
    for fid, face in faces.items():
        if fid in seen or not keep(face):
            continue
        group, queue = [], deque([fid])
        seen.add(fid)
        while queue:
            cur = queue.popleft()
            group.append(cur)
            for cycle in faces[cur].cycles:
                for other in cycle:
                    if other in faces and other not in seen and keep(faces[other]):
                        seen.add(other)
                        queue.append(other)
        groups.append(group)
    return groups


def euler(faces: dict[str, Face], junction_count: int) -> tuple[int, int]:
    """Return (V - E + boundary lists, 2 x connected pieces): equal when the map is flat."""
    edges = sum(len(c) for f in faces.values() for c in f.cycles) // 2
    lists = sum(len(f.cycles) for f in faces.values())
    return junction_count - edges + lists, 2 * _list_groups(faces)


def _list_groups(faces: dict[str, Face]) -> int:
    """Return how many groups the border lists fall into, two lists being joined when each
    names the other's face."""
    names = {(f.id, k): set(cycle) for f in faces.values() for k, cycle in enumerate(f.cycles)}
    lists_of: dict[str, list[tuple[str, int]]] = {}
    for key in names:
        lists_of.setdefault(key[0], []).append(key)
    seen: set[tuple[str, int]] = set()
    groups = 0
    for start in names:
        if start in seen:
            continue
        groups += 1
        seen.add(start)
        stack = [start]
        while stack:
            key = stack.pop()
            for other in names[key]:
                for theirs in lists_of.get(other, ()):
                    if theirs not in seen and key[0] in names[theirs]:
                        seen.add(theirs)
                        stack.append(theirs)
    return groups
