"""The audit log's words for prize boards, prize lines, stage games and jackpots
(core.audit_words), registered from PrizesConfig.ready()."""

from core.audit_words import ObjectKind, register_actions, register_object_kinds, words


def register() -> None:
    register_object_kinds(
        {
            "prizes.prizeboard": ObjectKind(
                "Prize board",
                "prize board",
                ("series__name", "series_id"),
                lambda v: f"the prize board of {v['series__name']}",
                "prizes:board",
                "board_id",
                perm="prizes.view_prizeboard",
            ),
            "prizes.prizeline": ObjectKind(
                "Prize line",
                "prize line",
                ("words", "draw_id"),
                lambda v: f"the prize line \u201c{v['words']}\u201d",
                "prizes:draw",
                "draw_id",
                url_field="draw_id",
                perm="prizes.view_prizeline",
            ),
        }
    )
    register_actions(
        "Prizes",
        {
            "prize.board_created": words("Prize board created", "created {object} ({game}, {slots} prizes)"),
            "prize.board_saved": words("Prize board changed", "changed {object}"),
            "prize.lines_stored": words("Prizes recorded", "recorded the prizes of pick {pick} of {object}"),
            "prize.line_reversed": words(
                "Prize line corrected", "corrected {object} of {draw} by a reversing line because {reason}"
            ),
            "prize.game_event": words(
                "Stage game turn recorded", "recorded pick {pick}'s turn in the game of {object}"
            ),
            "prize.game_finished": words("Stage game finished", "finished the game of {object}: {lines} prize lines"),
            "prize.wild_card_bin": words("Wild card bin recorded", "recorded bin {bin} drawn by hand for {object}"),
            # Jackpots (prizes.progressives): every change names the draw that caused it.
            "progressive.created": words("Jackpot created", "created the jackpot {object}"),
            "progressive.grow": words("Jackpot grew", "grew {object}: {words}", "grew {object}"),
            "progressive.won": words("Jackpot won", "paid {object}: {words}", "paid {object}"),
            "progressive.reset": words(
                "Jackpot back to base", "put {object} back to base: {words}", "put {object} back to base"
            ),
            "progressive.share_out": words("Jackpot shared out", "shared {object} out: {words}", "shared {object} out"),
            "progressive.set": words("Jackpot amount set", "set {object}: {words}", "set {object}"),
        },
    )
