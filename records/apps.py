from django.apps import AppConfig


class RecordsConfig(AppConfig):
    """The records that outlive the system (issue 16): each promotion's record pack for the
    regulator and the member's own record (POPIA s23). It reads every other app, so it sits on top."""

    name = "records"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from core import panels
        from records import audit_words, retention
        from records.member_record_perms import ensure_permission

        audit_words.register()
        # Nothing of a promotion's record is deleted within three years of its end (records/retention.py).
        retention.connect()
        # The record pack's panel on the promotion page (core.panels).
        panels.register("promotion.records", "records_tags", "promotion_packs")
        # A member's own record (POPIA s23): its permission, made after every migrate (no model
        # holds it), and its button on the member page (members never imports records).
        post_migrate.connect(ensure_permission, dispatch_uid="records.member_record_permission")
        panels.register("member.records", "member_record_tags", "member_record_button")
