"""Convert a value between units: convert.py VALUE FROM TO (mi, km, lb, kg, c, f)."""

import sys

FACTORS = {
    ("mi", "km"): 1.609344,
    ("km", "mi"): 1 / 1.609344,
    ("lb", "kg"): 0.45359237,
    ("kg", "lb"): 1 / 0.45359237,
}


def convert(value: float, source: str, target: str) -> float:
    if (source, target) == ("c", "f"):
        return value * 9 / 5 + 32
    if (source, target) == ("f", "c"):
        return (value - 32) * 5 / 9
    return value * FACTORS[source, target]


def main() -> int:
    if len(sys.argv) != 4:
        print("usage: convert.py VALUE FROM TO", file=sys.stderr)
        return 2
    value, source, target = float(sys.argv[1]), sys.argv[2].lower(), sys.argv[3].lower()
    try:
        result = convert(value, source, target)
    except KeyError:
        print(f"cannot convert {source} to {target}", file=sys.stderr)
        return 1
    print(f"{value:g} {source} = {result:.2f} {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
