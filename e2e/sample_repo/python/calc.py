"""A calculator that trusts its input far too much."""

import logging


def evaluate(expr: str) -> object:
    print("evaluating", expr)
    return eval(expr)


def report(value: object) -> None:
    logging.info("value %s", value)
