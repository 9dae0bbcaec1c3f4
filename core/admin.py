from django.contrib import admin

from core.models import AuditEvent


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows that only services change (they validate and audit it): the admin shows them."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    """The log is append-only: the admin may read it, never change it."""

    list_display = ["created_at", "actor_label", "action", "object_type", "object_id", "ip"]
    list_filter = ["action"]
    search_fields = ["actor_label", "object_id", "action"]
