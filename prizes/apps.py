from django.apps import AppConfig


class PrizesConfig(AppConfig):
    name = "prizes"

    def ready(self) -> None:
        # draws never imports prizes: a blank required setting of a prize board reaches the
        # draw's Start refusal (the button, the manager's Start, the tick) through this registry.
        from draws.start_checks import register
        from prizes.boards import start_refusal

        register(start_refusal)
        # The draw page and Tonight name what is missing, with a link to the boards (core.panels).
        from core import panels

        panels.register("draw.prizes", "prizes_tags", "draw_prize_settings")
        # Finalist places and entries prizes become entrants of the later draw when its entries
        # freeze (draws.entry_sources; issue 14, item 6).
        from draws.entry_sources import register as register_entry_source
        from prizes.carry import carried_into

        register_entry_source(carried_into)
