"""The schedule page's preview (issue 9, item 7): the draws a schedule will create and those it
refuses, each with its reason, shown before anything is written; the manager confirms exactly
what was shown (the confirm button carries the plan's digest, checked again on confirming)."""

import hashlib
from dataclasses import dataclass

from draws.listing import moment_span
from draws.services import PlannedDraw


@dataclass(frozen=True)
class Preview:
    new: list[PlannedDraw]  # to be scheduled
    refused: list[PlannedDraw]  # each with its refusal, none written
    digest: str  # what the confirm button carries

    @property
    def moments(self):
        return [planned.scheduled_at for planned in self.new]


def preview_of(plan: list[PlannedDraw]) -> Preview:
    return Preview(
        new=[p for p in plan if not p.refusal],
        refused=[p for p in plan if p.refusal],
        digest=plan_digest(plan),
    )


def plan_digest(plan: list[PlannedDraw]) -> str:
    """A short fingerprint of the whole plan: a confirm whose digest differs from the plan as it
    stands now (another manager scheduled or moved a draw, a window passed, the fields were
    edited) writes nothing and shows the new preview instead."""
    lines = []
    for p in plan:
        windows = ";".join(f"{opens.isoformat()},{closes.isoformat()}" for opens, closes in p.windows)
        lines.append(f"{p.scheduled_at.isoformat()}|{p.refusal or ''}|{windows}")
    text = "\n".join(lines)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def windows_words(planned: PlannedDraw) -> str:
    """The ticket windows of a planned draw: "08:00 - 12:55", several joined by commas."""
    return ", ".join(moment_span(opens, closes, planned.scheduled_at) for opens, closes in planned.windows)
