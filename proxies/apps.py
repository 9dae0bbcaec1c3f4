from django.apps import AppConfig


class ProxiesConfig(AppConfig):
    name = "proxies"

    def ready(self) -> None:
        # draws learns about nominations and declines through its registry, never by importing us.
        from draws.registers import register_provider
        from proxies.registers import PROVIDER

        register_provider(PROVIDER)
