"""How many winners a draw wants, when an app above draws decides it (Turn Up the Heat r69: the
9pm finalist draw picks until the car draw has six distinct finalists). draws never imports
that app (prizes): it registers a count here in its AppConfig.ready(); the engine asks at the
Start for draw.winners_wanted and again, under the draw's row lock, each time a winner is
recorded, before it decides the draw is complete (it only ever raises the number, audited).

A count takes the draw and returns the winners it wants now, or None when it has no say.
"""

from collections.abc import Callable

from draws.models import Draw

WinnerCount = Callable[[Draw], int | None]

_counts: list[WinnerCount] = []


def register(count: WinnerCount) -> None:
    if count not in _counts:
        _counts.append(count)


def winners_wanted(draw: Draw) -> int | None:
    """The first registered count that has a say, or None (the series' number of winners)."""
    for count in _counts:
        wanted = count(draw)
        if wanted is not None:
            return wanted
    return None
