from django.contrib import admin

from core.admin import ReadOnlyAdmin
from proxies.models import DeclineRegistration, ProxyNomination


@admin.register(ProxyNomination)
class ProxyNominationAdmin(ReadOnlyAdmin):
    list_display = ["draw", "participant", "nominee_name", "registered_at", "revoked_at"]
    list_select_related = ["draw", "participant"]


@admin.register(DeclineRegistration)
class DeclineRegistrationAdmin(ReadOnlyAdmin):
    list_display = ["draw", "member", "registered_at", "revoked_at"]
    list_select_related = ["draw", "member"]
