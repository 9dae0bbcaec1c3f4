from django.apps import AppConfig


class PrizesConfig(AppConfig):
    name = "prizes"

    def ready(self) -> None:
        # The audit log's words for prize boards, lines and jackpots (core.audit_words).
        from prizes import audit_words

        audit_words.register()
        # draws never imports prizes: a blank required setting of a prize board reaches the
        # draw's Start refusal (the button, the manager's Start, the tick) through this registry.
        from draws.start_checks import register
        from prizes.boards import start_refusal

        register(start_refusal)
        # A Golden Horse vault draw also waits for its jackpots to be set for it (GH r9, A4).
        from prizes.vault_jackpots import vault_start_refusal

        register(vault_start_refusal)
        # TH r135: the 21h30 share-out does not start once the digit safe was cracked.
        from prizes.conducting.share_out import share_out_start_refusal

        register(share_out_start_refusal)
        # RF r68, A14: a wild card draw waits for the bin number drawn by hand on stage.
        from prizes.wild_card import wild_card_entries, wild_card_start_refusal

        register(wild_card_start_refusal)
        # The draw page and Tonight name what is missing, with a link to the boards (core.panels).
        from core import panels

        panels.register("draw.prizes", "prizes_tags", "draw_prize_settings")
        # The conductor's game controls on the draw's run page (prizes/conduct.py).
        panels.register("draw.game", "prizes_tags", "draw_game")
        # The member page shows the member's wins, letters and payouts (issue 15).
        panels.register("member.prizes", "prizes_tags", "member_prizes")
        # The stage screen shows the game as it is played and the prize won (issue 14, item 8).
        from draws.stage import register_game_words
        from prizes.conduct import stage_game_words

        register_game_words(stage_game_words)
        # Finalist places and entries prizes become entrants of the later draw when its entries
        # freeze (draws.entry_sources; issue 14, item 6).
        from draws.entry_sources import register as register_entry_source
        from prizes.carry import carried_into

        register_entry_source(carried_into)
        # TH r69: the last finalist draw before the car draw picks until the car draw has its six
        # distinct finalists (draws.winner_counts), and does not start once it has them.
        from draws.winner_counts import register as register_winner_count
        from prizes.finalists import fill_start_refusal, finalists_wanted

        register_winner_count(finalists_wanted)
        register(fill_start_refusal)
        # A wild card draw's entrants are its bin's, less the bin's winners and the finalists.
        register_entry_source(wild_card_entries)
