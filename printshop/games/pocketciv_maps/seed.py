"""Map seeds and the random streams they open.

A printed seed such as ``m2-standard-42`` names the algorithm version, the variant and a
number, so the same map can be drawn again by any later printshop that still knows ``m2``
(generate.ALGORITHMS lists the algorithms known; a bare number means ALGORITHM).
Each stage of the generator draws from its own stream, so changing one stage (say, where the
Forests go) never moves a border. Only ``Random.random()`` is used: CPython promises its
sequence for a seed, not that of ``shuffle`` or ``randrange``.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

ALGORITHM = "m2"             # the default: what a bare number means
_SEED = re.compile(r"(m[0-9]+)-([a-z][a-z-]*[a-z])-([0-9]{1,18})")
_NUMBER = re.compile(r"[0-9]{1,18}")     # ASCII digits only: '²' and '٣' are no seed
LARGEST = 10 ** 18 - 1                   # the largest seed number a printed seed can hold


class SeedError(ValueError):
    """A seed that does not name a map this printshop can draw."""


@dataclass(frozen=True)
class Seed:
    """An algorithm version, a variant and a number: one map."""

    algorithm: str
    variant: str
    number: int

    def __str__(self) -> str:
        return f"{self.algorithm}-{self.variant}-{self.number}"

    def command(self) -> str:
        """Return the command that prints this map at full size."""
        if self.algorithm == ALGORITHM:
            return f"printshop map pocketciv --seed {self.number} --variant {self.variant}"
        return f"printshop map pocketciv --seed {self}"

    def stream(self, stage: str) -> random.Random:
        """Return the random stream of one generator stage."""
        return random.Random(f"pocketciv-map/{self}/{stage}")


def parse_seed(text: str | int, variant: str | None = None) -> Seed:
    """Read a seed: a number (with the variant given) or a printed seed like m1-standard-42."""
    text = str(text).strip()
    if _NUMBER.fullmatch(text):
        return Seed(ALGORITHM, variant or "standard", int(text))
    found = _SEED.fullmatch(text)
    if not found:
        raise SeedError(f"'{text}' is not a seed: give a whole number or a printed seed such "
                        f"as {ALGORITHM}-standard-42")
    algorithm, named, number = found.groups()
    if variant is not None and variant != named:
        raise SeedError(f"seed '{text}' is for the {named} variant, not {variant}")
    return Seed(algorithm, named, int(number))


def below(stream: random.Random, n: int) -> int:
    """Return a whole number from 0 to n - 1."""
    return min(int(stream.random() * n), n - 1)


def between(stream: random.Random, low: float, high: float) -> float:
    """Return a number from low to high."""
    return low + (high - low) * stream.random()


def shuffled(stream: random.Random, items) -> list:
    """Return the items in a random order (Fisher-Yates on random())."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = below(stream, i + 1)
        out[i], out[j] = out[j], out[i]
    return out
