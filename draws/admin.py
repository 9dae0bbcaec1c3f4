from django.contrib import admin, messages

from core.admin import ReadOnlyAdmin
from core.audit import Actor
from draws.models import Activation, DeviceToken, Draw, TicketWindow
from draws.services import device_token_create, device_token_set_active


class TicketWindowInline(admin.TabularInline):
    model = TicketWindow
    extra = 0
    readonly_fields = ["opens_at", "closes_at"]
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Draw)
class DrawAdmin(ReadOnlyAdmin):
    list_display = ["name", "property", "scheduled_at", "status", "entries_count", "tickets_total"]
    list_filter = ["status", "property"]
    inlines = [TicketWindowInline]
    # seed_hex is a secret field (core.secrets): the admin site shows it once the draw is complete.


@admin.register(Activation)
class ActivationAdmin(ReadOnlyAdmin):
    list_display = ["receipt_number", "draw", "member", "channel", "tickets", "activated_at"]
    list_select_related = ["draw", "member"]


@admin.register(DeviceToken)
class DeviceTokenAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "property", "key_prefix", "is_active", "created_at", "last_used_at"]
    list_filter = ["property", "kind", "is_active"]
    fields = ["property", "name", "kind", "is_active", "key_prefix", "created_at", "last_used_at"]
    readonly_fields = ["key_prefix", "created_at", "last_used_at"]

    def get_readonly_fields(self, request, obj=None):
        # A token's property, name and kind are fixed once issued: revoke it and issue another.
        return [*self.readonly_fields, "property", "name", "kind"] if obj else self.readonly_fields

    def has_delete_permission(self, request, obj=None):
        return False  # revoke instead: activations keep pointing at their device

    def save_model(self, request, obj, form, change):
        actor = Actor.from_request(request)
        if change:
            device_token_set_active(actor=actor, device_id=obj.pk, active=obj.is_active)
            return
        device, token = device_token_create(actor=actor, prop=obj.property, name=obj.name, kind=obj.kind)
        obj.pk, obj.key_prefix, obj.key_sha256 = device.pk, device.key_prefix, device.key_sha256
        messages.warning(request, f"Token for {device}: {token}  (copy it now: it is not shown again)")
