"""Measure PocketCiv maps generated and validated per second, on one core.

Run from the repository:  python bench/bench_maps.py [--seconds 5] [--no-m1]
Prints maps per second for 8 regions (standard) and 16 regions (two-player) drawn by the
default map algorithm (a bare seed number's), generation and validation together, then each
alone, and the tries a map took; then the same for 8 regions drawn by algorithm m1, the
algorithm of the seeds printed before m2 (``--no-m1`` leaves it out). CPU time of this
process is used, so other work on the machine disturbs the numbers less than it would
wall-clock time. The target for 8 regions is at least 333 maps per second (issue 16: 1,000
standard maps generated and validated in under 3 s). bench/run.py reads the lines that start
with "8 regions" and "16 regions": the default algorithm's.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from printshop.games.pocketciv_maps import algorithm_m1, algorithm_m2  # noqa: E402
from printshop.games.pocketciv_maps import generate as generator  # noqa: E402
from printshop.games.pocketciv_maps.seed import ALGORITHM, Seed  # noqa: E402
from printshop.games.pocketciv_maps.validate import validate_map  # noqa: E402

SIZES = (("standard", "8 regions (standard)"), ("two-player", "16 regions (two-player)"))


def rate(work, seconds: float) -> tuple[float, int]:
    """Run work(n) for n = 0, 1, ... for about ``seconds`` of CPU time; return (per second, n)."""
    start = time.process_time()
    n = 0
    while time.process_time() - start < seconds:
        work(n)
        n += 1
    return n / (time.process_time() - start), n


def tries(seeds: list[Seed]) -> float:
    """Return how many sets of sites the maps of these seeds relaxed, per map: the tries
    (either algorithm relaxes the sites once a try for each piece of land, one piece here)."""
    algorithms = (algorithm_m1, algorithm_m2)
    relax = algorithm_m1.relax
    count = 0

    def counted(*args):
        nonlocal count
        count += 1
        return relax(*args)

    for algorithm in algorithms:
        algorithm.relax = counted
    try:
        for seed in seeds:
            generator.generate(seed)
    finally:
        for algorithm in algorithms:
            algorithm.relax = relax
    return count / len(seeds)


def measure(algorithm: str, variant: str, label: str, seconds: float) -> None:
    """Print the three rates and the tries per map for one algorithm and map size."""
    seeds = [Seed(algorithm, variant, n) for n in range(100_000)]
    both, n = rate(lambda i: validate_map(generator.generate(seeds[i])), seconds)
    alone, _ = rate(lambda i: generator.generate(seeds[i]), seconds / 2)
    worlds = [generator.generate(seeds[i]) for i in range(50)]
    check, _ = rate(lambda i: validate_map(worlds[i % 50]), seconds / 2)
    print(f"{label:<27}{both:>14.0f} /s{alone:>9.0f} /s{check:>9.0f} /s"
          f"{tries(seeds[:200]):>7.2f}   ({n} maps)")


def main() -> None:
    """Print the rates for each map size, the default algorithm's first."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="CPU seconds per measurement")
    parser.add_argument("--no-m1", action="store_true",
                        help="measure only the default algorithm, not m1 as well")
    args = parser.parse_args()
    print(f"algorithm {ALGORITHM} (the default)")
    print(f"{'map':<27}{'generate+validate':>17}{'generate':>12}{'validate':>12}{'tries':>7}")
    for variant, label in SIZES:
        measure(ALGORITHM, variant, label, args.seconds)
    if not args.no_m1 and ALGORITHM != "m1":
        measure("m1", "standard", "m1: 8 regions (standard)", args.seconds)


if __name__ == "__main__":
    main()
