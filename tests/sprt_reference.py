#!/usr/bin/env python3
"""An independent calculation of arena's SPRT, to check crates/tournament/src/sprt.rs.

    python3 tests/sprt_reference.py ELO0 ELO1 LL LD DD_OR_WL WD WW [ALPHA BETA]

prints the log-likelihood ratio of H1 (ELO1) against H0 (ELO0), both in
normalized Elo, for five pair counts; given ALPHA and BETA, also Wald's
lower and upper bounds, on the same line. Written separately from the Rust code,
from the same paper (M. Van den Bergh, "Comments on Normalized Elo", 4.1):
a different iteration and a plain bisection, in floating point throughout.
"""
import math
import sys

PAIR_SCORES = [0.0, 0.25, 0.5, 0.75, 1.0]


def root(f, low, high):
    """The zero of a decreasing f between low and high."""
    for _ in range(300):
        middle = (low + high) / 2
        if f(middle) > 0:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def fitted(observed, t):
    p = [1 / len(PAIR_SCORES)] * len(PAIR_SCORES)
    # Converges in a few steps; in floating point the last digits may then
    # alternate, so the loop stops at 1e-10 or after enough steps.
    for _ in range(10000):
        mean = sum(a * q for a, q in zip(PAIR_SCORES, p))
        sd = math.sqrt(sum(q * (a - mean) ** 2 for a, q in zip(PAIR_SCORES, p)))
        phi = [a - 0.5 - 0.5 * t * sd * (1 + ((a - mean) / sd) ** 2) for a in PAIR_SCORES]
        low, high = -1 / max(phi), -1 / min(phi)
        margin = 1e-12 * (high - low)
        theta = root(lambda th: sum(o * f / (1 + th * f) for o, f in zip(observed, phi)),
                     low + margin, high - margin)
        new = [o / (1 + theta * f) for o, f in zip(observed, phi)]
        change = max(abs(x - y) for x, y in zip(new, p))
        p = new
        if change < 1e-10:
            break
    return p


def llr(elo0, elo1, counts):
    cells = [c if c else 1e-3 for c in counts]
    total = sum(cells)
    observed = [c / total for c in cells]
    scale = math.sqrt(2) / (800 / math.log(10))
    h0, h1 = fitted(observed, elo0 * scale), fitted(observed, elo1 * scale)
    return total * sum(o * (math.log(b) - math.log(a)) for o, a, b in zip(observed, h0, h1))


def bounds(alpha, beta):
    """Wald's thresholds: accept H0 at or below the first, H1 at or above the second."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


if __name__ == "__main__":
    elo0, elo1, *rest = sys.argv[1:]
    counts, errors = rest[:5], rest[5:]
    line = f"{llr(float(elo0), float(elo1), [int(c) for c in counts]):.6f}"
    if errors:
        lower, upper = bounds(float(errors[0]), float(errors[1]))
        line += f" {lower:.6f} {upper:.6f}"
    print(line)
