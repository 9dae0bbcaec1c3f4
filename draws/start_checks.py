"""What an app above draws needs of a draw before it may start (issue 14: a prize board's
required setting still blank). draws never imports those apps: they register a check here in
their AppConfig.ready() (prizes.apps), and the draw's Start refusal (draws.states) asks every
check, so the manager's Start, the page's button and the scheduler's tick refuse alike.

A check takes the draw and returns the refusal in words, or None when the draw may start.
"""

from collections.abc import Callable

from draws.models import Draw

StartCheck = Callable[[Draw], str | None]

_checks: list[StartCheck] = []


def register(check: StartCheck) -> None:
    if check not in _checks:
        _checks.append(check)


def start_check_refusal(draw: Draw) -> str | None:
    """The first registered check's refusal, or None."""
    for check in _checks:
        refusal = check(draw)
        if refusal:
            return refusal
    return None
