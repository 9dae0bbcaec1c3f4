from django.contrib import admin

from core.models import AuditEvent


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    list_display = ["created_at", "actor_label", "action", "object_type", "object_id", "ip"]
    list_filter = ["action"]
    search_fields = ["actor_label", "object_id", "action"]

    # The log is append-only: the admin may read it, never change it.
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
