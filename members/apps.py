from django.apps import AppConfig


class MembersConfig(AppConfig):
    name = "members"
    verbose_name = "Members, tiers and points"

    def ready(self) -> None:
        # The audit log's words for members, imports and reference data (core.audit_words).
        from members import audit_words

        audit_words.register()
