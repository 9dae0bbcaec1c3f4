from django.apps import AppConfig
from django.db.models.signals import post_migrate


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Core: audit log and roles"

    def ready(self) -> None:
        from core import auth
        from core.dbroles import grant_app_role
        from core.roles import sync_roles

        # Permissions only exist after every app has migrated, so the groups are synced then.
        post_migrate.connect(sync_roles, dispatch_uid="core.sync_roles")
        # Every table exists once migrate is done: grant the application's role its rights on them.
        post_migrate.connect(grant_app_role, sender=self, dispatch_uid="core.grant_app_role")
        auth.connect()
        # The audit log's words for sign-in and staff accounts (core.audit_words).
        from core import staff_audit_words

        staff_audit_words.register()
