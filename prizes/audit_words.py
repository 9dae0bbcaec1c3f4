"""The audit log's words for prize boards, prize lines, stage games and jackpots
(core.audit_words), registered from PrizesConfig.ready()."""

from core.audit_words import ObjectKind, register_actions, register_object_kinds, register_system_actors, words


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
            "prizes.prizeletter": ObjectKind(
                "Prize letter",
                "prize letter",
                ("number",),
                lambda v: f"prize letter {v['number']}",
                "prizes:letter",
                "letter_id",
                perm="prizes.view_prizeletter",
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
            # Prize letters and payouts (issue 15)
            "prize.letter_issued": words(
                "Prize letter issued", "issued {object} to card {card_number} for {draw}", "issued {object}"
            ),
            "prize.letter_voided": words("Prize letter voided", "voided {object} because {reason}", "voided {object}"),
            "prize.letter_reissued": words(
                "Prize letter reissued", "reissued letter {replaces} as {object} because {reason}", "reissued {object}"
            ),
            "prize.letter_expired": words(
                "Prize letter expired", "marked {object} expired: not collected by {expires}", "marked {object} expired"
            ),
            # A letter's PDF (prizes.letter_pdf): rendered by the worker, queued again when lost or failed.
            "prize.letter_rendered": words("Prize letter printed", "made the PDF of {object}"),
            "prize.letter_render_failed": words(
                "Prize letter PDF failed",
                "could not make the PDF of {object}: {error}",
                "could not make the PDF of {object}",
            ),
            "prize.letter_render_queued": words("Prize letter PDF asked again", "asked for the PDF of {object} again"),
            "prize.letter_render_requeued": words(
                "Prize letter PDF queued again", "queued the PDF of {object} again: its render was lost"
            ),
            "prize.letters_render_queued": words(
                "Prize letter PDFs asked again",
                "asked for {count} letter PDFs of {object} again",
                "asked for the letter PDFs of {object} again",
            ),
            "prize.device_payout": words(
                "Prize paid at the device", "recorded {object} ({amount}) as paid at the device to card {card_number}"
            ),
            # The cash desk (prizes.cash_desk): one entry per group paid, one when the letter is all paid.
            "prize.cash_desk_payout": words(
                "Prize paid at the cash desk",
                "paid the {what} of {object} ({amount}) to card {card_number}, in person",
                "paid {object}",
            ),
            "prize.letter_paid": words("Prize letter paid", "marked {object} paid: every prize on it collected"),
        },
    )
    register_system_actors({"letter_render": "The letter printer (worker)"})
