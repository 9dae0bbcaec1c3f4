from django.apps import AppConfig


class DrawsConfig(AppConfig):
    name = "draws"

    def ready(self) -> None:
        # The audit log's words for draws, tickets and devices (core.audit_words).
        from draws import audit_words

        audit_words.register()
        # promotions learns about its series' draws through its registry, never by importing us.
        from draws.promotion_links import PROVIDER
        from promotions.draw_links import register_provider

        register_provider(PROVIDER)
        # The pieces of draws on the member and promotion pages (core.panels).
        from core import panels

        panels.register("member.act_now", "draws_tags", "member_act_now")
        panels.register("member.draws", "draws_tags", "member_draws")
        panels.register("promotion.calendar", "draws_tags", "promotion_calendar")
        # Their part of the member's history (members.history).
        from draws.history import register_sources

        register_sources()
