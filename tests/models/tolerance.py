"""Tolerances of MODELS.md, shared by the model tests."""

C_REL = 1e-6  # [C] closed forms
NUM_REL = 1e-4  # root finding, quadrature, ODE


def half_unit(printed_decimals: int) -> float:
    """Absolute tolerance of half a unit of the last printed digit."""
    return 0.5 * 10.0 ** (-printed_decimals)


def close(value: float, printed: str, rel: float = C_REL) -> bool:
    """``value`` matches a MODELS.md number ``printed`` as text: within ``rel``, or within half a
    unit of its last printed digit when the printed precision is coarser than ``rel``."""
    target = float(printed)
    mantissa = printed.lower().split("e")[0]
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    exponent = int(printed.lower().split("e")[1]) if "e" in printed.lower() else 0
    tol = max(rel * abs(target), 0.5 * 10.0 ** (exponent - decimals))
    return abs(value - target) <= tol
