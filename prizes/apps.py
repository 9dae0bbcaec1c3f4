from django.apps import AppConfig


class PrizesConfig(AppConfig):
    name = "prizes"
