from django.apps import AppConfig


class ProxiesConfig(AppConfig):
    name = "proxies"
