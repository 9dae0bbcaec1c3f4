from django.apps import AppConfig


class PromotionsConfig(AppConfig):
    name = "promotions"

    def ready(self) -> None:
        # The audit log's words for promotions and series (core.audit_words).
        from promotions import audit_words

        audit_words.register()
