from django.contrib import admin

from core.admin import AuditedAdmin, ReadOnlyAdmin
from members.models import Exclusion, ImportJob, Member, Property, Tier


@admin.register(Property)
class PropertyAdmin(AuditedAdmin):
    list_display = ["code", "name"]
    audit_name = "property"


@admin.register(Tier)
class TierAdmin(AuditedAdmin):
    list_display = ["rank", "code", "name"]
    audit_name = "tier"

    def get_readonly_fields(self, request, obj=None):
        # Earning rules and the imports name tiers by code: renaming one would silently change
        # every rule that uses it. The name shown to people may change.
        return ["code", "rank"] if obj is not None else []


@admin.register(Member)
class MemberAdmin(ReadOnlyAdmin):
    list_display = ["card_number", "first_name", "last_name", "tier", "home_property"]
    list_select_related = ["tier", "home_property"]
    search_fields = ["=card_number", "=id_number", "search_name"]
    list_filter = ["tier", "home_property"]
    readonly_fields = ["created_at"]


@admin.register(Exclusion)
class ExclusionAdmin(ReadOnlyAdmin):
    list_display = ["full_name", "kind", "starts_at", "ends_at"]
    readonly_fields = ["recorded_by", "recorded_at", "ended_by"]


@admin.register(ImportJob)
class ImportJobAdmin(ReadOnlyAdmin):
    list_display = ["pk", "kind", "original_name", "status", "rows_total", "error_count", "created_at"]
    readonly_fields = [f.name for f in ImportJob._meta.fields]
