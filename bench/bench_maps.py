"""Measure PocketCiv maps generated and validated per second, on one core.

Run from the repository:  python bench/bench_maps.py [--seconds 5]
Prints maps per second for 8 regions (standard) and 16 regions (two-player), generation and
validation together, then each alone. CPU time of this process is used, so other work on the
machine disturbs the numbers less than it would wall-clock time. The target for 8 regions is
at least 333 maps per second (issue 16: 1,000 standard maps generated and validated in under
3 s).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from printshop.games.pocketciv_maps.generate import generate  # noqa: E402
from printshop.games.pocketciv_maps.seed import Seed  # noqa: E402
from printshop.games.pocketciv_maps.validate import validate_map  # noqa: E402


def rate(work, seconds: float) -> tuple[float, int]:
    """Run work(n) for n = 0, 1, ... for about ``seconds`` of CPU time; return (per second, n)."""
    start = time.process_time()
    n = 0
    while time.process_time() - start < seconds:
        work(n)
        n += 1
    return n / (time.process_time() - start), n


def main() -> None:
    """Print the three rates for each map size."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="CPU seconds per measurement")
    args = parser.parse_args()
    print(f"{'map':<24}{'generate+validate':>20}{'generate':>12}{'validate':>12}")
    for variant, label in (("standard", "8 regions (standard)"),
                           ("two-player", "16 regions (two-player)")):
        seeds = [Seed("m1", variant, n) for n in range(100_000)]
        both, n = rate(lambda i: validate_map(generate(seeds[i])), args.seconds)
        alone, _ = rate(lambda i: generate(seeds[i]), args.seconds / 2)
        worlds = [generate(seeds[i]) for i in range(50)]
        check, _ = rate(lambda i: validate_map(worlds[i % 50]), args.seconds / 2)
        print(f"{label:<24}{both:>16.0f} /s{alone:>9.0f} /s{check:>9.0f} /s   ({n} maps)")


if __name__ == "__main__":
    main()
