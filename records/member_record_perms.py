"""The permission to print a member's own record (POPIA s23), without a model.

Nothing is stored when a member is given their record (the audit event is the history), so no
table is made for the permission to hang on: it gets a content type of its own, "records |
member record", made after every migrate (as core.roles.sync_roles syncs the groups then).
Made again if `remove_stale_contenttypes` ever deletes it, since no model stands behind it."""

APP_LABEL = "records"
CONTENT_MODEL = "memberrecord"
CODENAME = "disclose_member_record"
PERMISSION = f"{APP_LABEL}.{CODENAME}"


def ensure_permission(**kwargs) -> None:
    """The permission, once (post_migrate, for every app: it runs before the last sync_roles)."""
    from django.contrib.auth.models import Permission
    from django.contrib.contenttypes.models import ContentType

    content_type, _ = ContentType.objects.get_or_create(app_label=APP_LABEL, model=CONTENT_MODEL)
    Permission.objects.get_or_create(
        content_type=content_type,
        codename=CODENAME,
        defaults={"name": "Can print a member's own record for them (POPIA section 23)"},
    )
