from django.contrib import admin

from core.admin import AuditedAdmin, ReadOnlyAdmin
from core.audit import Actor, audit_log
from members.models import Exclusion, ImportJob, Member, Property, StaffProfile, Tier


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


@admin.register(StaffProfile)
class StaffProfileAdmin(AuditedAdmin):
    """Where each member of staff works (their pages start there), audited like any admin change."""

    list_display = ["user", "home_property", "others"]
    list_select_related = ["user", "home_property"]
    list_filter = ["home_property"]
    search_fields = ["user__username", "user__first_name", "user__last_name"]
    autocomplete_fields = ["user"]
    filter_horizontal = ["other_properties"]
    audit_name = "staff_profile"

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("other_properties")

    @admin.display(description="Other properties")
    def others(self, profile: StaffProfile) -> str:
        return ", ".join(p.code for p in profile.other_properties.all()) or "—"

    def save_related(self, request, form, formsets, change):
        # The admin audit skips many-to-many fields: the further properties are logged here.
        profile = form.instance
        before = sorted(profile.other_properties.values_list("code", flat=True)) if change else []
        super().save_related(request, form, formsets, change)
        after = sorted(profile.other_properties.values_list("code", flat=True))
        if after != before:
            audit_log(
                actor=Actor.from_request(request),
                action="staff_profile.changed",
                obj=profile,
                data={"other_properties": {"before": before, "after": after}},
            )
