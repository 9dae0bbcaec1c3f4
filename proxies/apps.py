from django.apps import AppConfig


class ProxiesConfig(AppConfig):
    name = "proxies"

    def ready(self) -> None:
        # The audit log's words for nominations and declines (core.audit_words).
        from proxies import audit_words

        audit_words.register()
        # draws learns about nominations and declines through its registry, never by importing us.
        from draws.registers import register_provider
        from proxies.registers import PROVIDER

        register_provider(PROVIDER)
        # The registers' pieces on the member and draw pages (core.panels).
        from core import panels

        panels.register("member.registers", "proxies_tags", "member_proxies")
        panels.register("draw.registers", "proxies_tags", "draw_proxy_count")
        # Their part of the member's history (members.history).
        from proxies.history import register_sources

        register_sources()
