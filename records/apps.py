from django.apps import AppConfig


class RecordsConfig(AppConfig):
    """The records that outlive the system (issue 16): each promotion's record pack for the
    regulator and the member's own record (POPIA s23). It reads every other app, so it sits on top."""

    name = "records"

    def ready(self) -> None:
        from records import audit_words, retention

        audit_words.register()
        retention.connect()
