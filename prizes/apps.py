from django.apps import AppConfig


class PrizesConfig(AppConfig):
    name = "prizes"

    def ready(self) -> None:
        # draws never imports prizes: a blank required setting of a prize board reaches the
        # draw's Start refusal (the button, the manager's Start, the tick) through this registry.
        from draws.start_checks import register
        from prizes.boards import start_refusal

        register(start_refusal)
        # A Golden Horse vault draw also waits for its jackpots to be set for it (GH r9, A4).
        from prizes.vault_jackpots import vault_start_refusal

        register(vault_start_refusal)
        # The draw page and Tonight name what is missing, with a link to the boards (core.panels).
        from core import panels

        panels.register("draw.prizes", "prizes_tags", "draw_prize_settings")
