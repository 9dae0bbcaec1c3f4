from django.apps import AppConfig


class DrawsConfig(AppConfig):
    name = "draws"
